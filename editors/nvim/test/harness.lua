-- Helpers of the headless end-to-end scripts (e2e.lua, trust.lua,
-- explain.lua): output, the verdict line with Neovim's exit code, required
-- environment variables, loading the plugin and waiting for the server to
-- attach. Load with
-- dofile from the script's own directory.
local M = {}

function M.out(msg)
  io.stdout:write(msg .. "\n")
  io.stdout:flush()
end

-- finish stops the language servers (shutdown, exit) and waits for them
-- to end, then prints PASS or FAIL with msg and quits Neovim with code.
-- Quitting does not wait for a server, and one still writing its store
-- would race the removal of the test's directories. A server that does
-- not exit within 10 s fails the test.
function M.finish(code, msg)
  local clients = vim.lsp.get_active_clients()
  for _, c in ipairs(clients) do
    vim.lsp.stop_client(c.id)
  end
  local gone = vim.wait(10000, function()
    for _, c in ipairs(clients) do
      if vim.lsp.get_client_by_id(c.id) ~= nil then
        return false
      end
    end
    return true
  end, 50)
  if not gone then
    code, msg = 1, msg .. "; a language server did not exit within 10 s of shutdown and exit"
  end
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

-- plugin loads the plugin from FAULTLINE_PLUGIN_DIR, with the LSP log at
-- debug level, and answers the server's question before it runs a
-- module's tests (asked without vim.secure) with "Run this time". It
-- returns require("faultline").
function M.plugin()
  vim.lsp.set_log_level("debug")
  vim.opt.runtimepath:prepend(M.env("FAULTLINE_PLUGIN_DIR"))
  vim.cmd("filetype on")
  vim.cmd("runtime plugin/faultline.lua")
  local ask = vim.lsp.handlers["window/showMessageRequest"]
  vim.lsp.handlers["window/showMessageRequest"] = function(e, params, ctx, config)
    vim.api.nvim_feedkeys("1\r", "t", false)
    return ask(e, params, ctx, config)
  end
  return require("faultline")
end

return M
