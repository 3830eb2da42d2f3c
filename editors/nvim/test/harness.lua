-- Helpers of the headless end-to-end scripts (e2e.lua, trust.lua,
-- explain.lua): output, the verdict line with Neovim's exit code, required
-- environment variables, and waiting for the server to attach. Load with
-- dofile from the script's own directory.
local M = {}

function M.out(msg)
  io.stdout:write(msg .. "\n")
  io.stdout:flush()
end

-- finish prints PASS or FAIL with msg and quits Neovim with code.
function M.finish(code, msg)
  M.out((code == 0 and "PASS: " or "FAIL: ") .. msg)
  vim.cmd("cquit " .. code)
end

-- env returns a variable that must be set, or fails the test.
function M.env(name)
  local v = os.getenv(name)
  if not v or v == "" then
    M.finish(2, "environment variable " .. name .. " is not set")
  end
  return v
end

-- attached waits up to ms for a faultline client to be initialized and
-- attached to bufnr, and returns its id (nil if none came).
function M.attached(faultline, bufnr, ms)
  local id
  vim.wait(ms, function()
    for _, client in ipairs(faultline.clients()) do
      if client.initialized ~= false and vim.lsp.buf_is_attached(bufnr, client.id) then
        id = client.id
        return true
      end
    end
    return false
  end, 100)
  return id
end

return M
