-- Pure helpers over the server's faultline/ranking result: the colour grade
-- of a score and the quickfix entries. No editor state is touched here.
local M = {}

M.levels = 5

-- grade maps a score to a highlight level 1..levels relative to the highest
-- score of the ranking, so the scale works for bounded formulas (ochiai,
-- tarantula) and unbounded ones (dstar) alike. Non-positive scores get 0:
-- nothing to highlight.
function M.grade(score, max_score)
  if type(score) ~= "number" or type(max_score) ~= "number" then
    return 0
  end
  if score <= 0 or max_score <= 0 then
    return 0
  end
  local ratio = math.min(score / max_score, 1)
  local level = math.ceil(ratio * M.levels)
  if level < 1 then
    level = 1
  end
  return level
end

-- line_grade is a ranked line's highlight level: the highest for a line
-- hosting a verified angelic fix, which the combined order puts first
-- whatever its score, and by score otherwise.
function M.line_grade(entry, max_score)
  if type(entry.fixes) == "number" and entry.fixes > 0 then
    return M.levels
  end
  return M.grade(entry.score, max_score)
end

-- max_score returns the highest score among the ranked lines (0 if none).
function M.max_score(lines)
  local best = 0
  for _, entry in ipairs(lines or {}) do
    if type(entry.score) == "number" and entry.score > best then
      best = entry.score
    end
  end
  return best
end

-- describe is the one-line text of a ranked line, shared by the quickfix
-- list and the virtual text.
function M.describe(entry, formula)
  local tie = ""
  if type(entry.tie) == "table" and entry.tie[1] and entry.tie[2] and entry.tie[1] ~= entry.tie[2] then
    tie = string.format(" (tied %d-%d)", entry.tie[1], entry.tie[2])
  end
  local fixes = ""
  if type(entry.fixes) == "number" and entry.fixes > 0 then
    fixes = string.format(", angelic fixes %d", entry.fixes)
  end
  return string.format(
    "#%d %s %.3f%s  failing %d/%d, passing %d/%d%s",
    entry.rank or 0,
    formula or "score",
    entry.score or 0,
    tie,
    entry.ef or 0,
    (entry.ef or 0) + (entry.nf or 0),
    entry.ep or 0,
    (entry.ep or 0) + (entry.np or 0),
    fixes
  )
end

-- filename returns the absolute path of a ranked line, preferring its uri.
function M.filename(entry, root)
  if type(entry.uri) == "string" and entry.uri ~= "" then
    return vim.uri_to_fname(entry.uri)
  end
  if type(entry.file) == "string" and entry.file ~= "" then
    if entry.file:sub(1, 1) == "/" or not root then
      return entry.file
    end
    return root .. "/" .. entry.file
  end
  return nil
end

-- quickfix_items turns a ranking result into quickfix entries in rank order.
function M.quickfix_items(result, root)
  local items = {}
  if type(result) ~= "table" or type(result.lines) ~= "table" then
    return items
  end
  local lines = vim.deepcopy(result.lines)
  table.sort(lines, function(a, b)
    if (a.rank or 0) ~= (b.rank or 0) then
      return (a.rank or 0) < (b.rank or 0)
    end
    return (a.score or 0) > (b.score or 0)
  end)
  for _, entry in ipairs(lines) do
    local fname = M.filename(entry, root)
    if fname and type(entry.line) == "number" then
      table.insert(items, {
        filename = fname,
        lnum = entry.line,
        col = 1,
        type = (entry.rank or 99) <= 3 and "W" or "I",
        text = M.describe(entry, result.formula),
      })
    end
  end
  return items
end

-- title is the quickfix list title for a ranking result.
function M.title(result)
  if type(result) ~= "table" then
    return "faultline"
  end
  local by = result.formula or "?"
  if result.order == "combined" then
    by = by .. " and verified angelic fixes"
  elseif result.order == "learned" then
    by = "the learned order (model " .. tostring(result.model or "?") .. ")"
  end
  return string.format(
    "faultline: %s, %d failing / %d passing tests",
    by,
    result.failed or 0,
    result.passed or 0
  )
end

-- run_summary renders the result of the faultline.run command, one
-- "root: N failing, M passing" part per module.
function M.run_summary(result)
  if type(result) ~= "table" or type(result.modules) ~= "table" or #result.modules == 0 then
    return "run finished"
  end
  local parts = {}
  for _, mod in ipairs(result.modules) do
    local text
    if type(mod.error) == "string" and mod.error ~= "" then
      text = "error: " .. mod.error:gsub("\n.*", "")
    else
      text = string.format("%d failing, %d passing", mod.failed or 0, mod.passed or 0)
      if (mod.buildErrors or 0) > 0 then
        text = text .. string.format(", %d packages did not build", mod.buildErrors)
      end
    end
    table.insert(parts, vim.fn.fnamemodify(mod.root or "?", ":t") .. ": " .. text)
  end
  return "run finished: " .. table.concat(parts, "; ")
end

-- status_text renders a faultline/status notification for a statusline.
function M.status_text(status)
  if type(status) ~= "table" or status.state == nil then
    return ""
  end
  local state = status.state
  local text
  if state == "running" and type(status.message) == "string" and status.message ~= "" then
    -- The server's own progress text says what done/total count.
    return "faultline: " .. status.message
  elseif state == "running" then
    text = string.format("running %d/%d tests", status.done or 0, status.total or 0)
  elseif state == "building" then
    text = "building"
  elseif state == "error" then
    text = "error"
  else
    text = "idle"
  end
  if (status.failing or 0) > 0 then
    text = text .. string.format(", %d failing", status.failing)
  end
  if state == "error" and type(status.message) == "string" and status.message ~= "" then
    text = text .. ": " .. status.message:gsub("\n.*", "")
  end
  return "faultline: " .. text
end

return M
