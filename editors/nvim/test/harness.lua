-- Helpers of the headless end-to-end scripts (e2e.lua, trust.lua): output,
-- the verdict line with Neovim's exit code, and required environment
-- variables. Load with dofile from the script's own directory.
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

return M
