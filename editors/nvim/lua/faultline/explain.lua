-- Turning an explanation from the git history (the result of the server's
-- faultline.explainTest) into quickfix entries: the root and auxiliary
-- changes, then the cause from the change to the failed check.
local M = {}

local function first_line(text)
  if type(text) ~= "string" then
    return ""
  end
  return (vim.trim(text):match("^[^\n]*") or "")
end

local function path(root, file)
  if file:sub(1, 1) == "/" or not root then
    return file
  end
  return root .. "/" .. file
end

-- quickfix_items lists the changes (root ones as warnings), then the cause
-- steps, of an explanation.
function M.quickfix_items(ex, root)
  local items = {}
  if type(ex) ~= "table" then
    return items
  end
  for _, c in ipairs(ex.changes or {}) do
    local was = first_line(c.old)
    local now = first_line(c.new)
    local text = string.format("%s change: %s", c.role, now ~= "" and now or "(deleted)")
    if was ~= "" then
      text = text .. "  (was: " .. was .. ")"
    end
    table.insert(items, {
      filename = path(root, c.file),
      lnum = c.line,
      col = 1,
      type = c.role == "root" and "W" or "I",
      text = text,
    })
  end
  for _, s in ipairs(ex.cause or {}) do
    table.insert(items, { filename = path(root, s.file), lnum = s.line, col = 1, type = "I", text = "cause: " .. (s.why or "") })
  end
  return items
end

-- title is the quickfix list title of an explanation.
function M.title(ex)
  local base = type(ex.base) == "string" and ex.base:sub(1, 12) or "?"
  return string.format("faultline: %s since %s", ex.test or "?", base)
end

return M
