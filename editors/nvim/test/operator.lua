-- End-to-end check of a verified operator fix, run inside headless Neovim
-- by e2e.sh on server/testdata/ratio.txtar (Ratio multiplies where it
-- should divide). With the plugin's mutants option on, ratio.go:5 gets the
-- "Apply verified operator fix" code action; applying its edit rewrites
-- the line to `return a / b`, and the line's hover names the fix. Inputs
-- (environment): FAULTLINE_CMD (JSON list), FAULTLINE_PLUGIN_DIR, MODULE
-- (the module's directory).
local uv = vim.uv or vim.loop

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/harness.lua")
local out, finish, env = harness.out, harness.finish, harness.env

local ok, err = pcall(function()
  local cmd = vim.fn.json_decode(env("FAULTLINE_CMD"))
  local module = uv.fs_realpath(env("MODULE"))
  local timeout = 300000

  local faultline = harness.plugin()
  faultline.setup({ cmd = cmd, open_quickfix = false, order = "formula", mutants = 50 })

  local started = uv.now()
  vim.cmd("edit " .. vim.fn.fnameescape(module .. "/ratio.go"))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = harness.attached(faultline, buf, 30000)
  if not client_id then
    finish(1, "the server did not start and attach within 30 s")
  end

  -- The mutants run after the ranking: ask until the action is offered.
  local action
  vim.wait(timeout, function()
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      range = { start = { line = 4, character = 0 }, ["end"] = { line = 4, character = 0 } },
      context = { diagnostics = {} },
    }
    local replies = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000) or {}
    for _, a in ipairs((replies[client_id] or {}).result or {}) do
      if a.title:find("Apply verified operator fix", 1, true) then
        action = a
        return true
      end
    end
    return false
  end, 500)
  if not action then
    finish(1, string.format("no \"Apply verified operator fix\" action on ratio.go:5 after %d ms", uv.now() - started))
  end
  out(string.format("operator fix offered after %d ms: %s", uv.now() - started, action.title))

  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 4, character = 2 } }
  local replies = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 10000) or {}
  local hover = ((((replies[client_id] or {}).result or {}).contents or {}).value) or ""
  if not hover:find("it hosts a verified operator fix (* → /)", 1, true) then
    finish(1, "the hover of ratio.go:5 does not name the operator fix:\n" .. hover)
  end

  local client = vim.lsp.get_client_by_id(client_id)
  vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
  local text = vim.api.nvim_buf_get_lines(buf, 4, 5, true)[1]
  if text ~= "\treturn a / b" then
    finish(1, string.format("ratio.go:5 reads %q after the fix, want %q", text, "\treturn a / b"))
  end
  finish(0, "the operator fix applied: " .. text)
end)
if not ok then
  finish(1, "error: " .. tostring(err))
end
