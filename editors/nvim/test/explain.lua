-- End-to-end check of explaining a regression, run inside headless Neovim
-- by e2e.sh on a module whose git history holds one (the paper's running
-- example, regress/testdata/running.txtar: commit 1 breaks TestMaxPlus).
-- The failing test's file offers the "explain" code lens; :FaultlineExplain
-- fills the quickfix list with the root changes, and the root change on
-- after.go:10 gets a diagnostic naming its lines, its commit, the commit's
-- author date and subject. Inputs (environment): FAULTLINE_CMD (JSON list),
-- FAULTLINE_PLUGIN_DIR, MODULE (the module's directory), COMMIT (the
-- breaking commit's hash), COMMIT_DATE (its author date, YYYY-MM-DD).
local uv = vim.uv or vim.loop

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/harness.lua")
local out, finish, env = harness.out, harness.finish, harness.env

local ok, err = pcall(function()
  local cmd = vim.fn.json_decode(env("FAULTLINE_CMD"))
  local module = uv.fs_realpath(env("MODULE"))
  local commit, date = env("COMMIT"), env("COMMIT_DATE")
  local timeout = 300000

  local faultline = harness.plugin()
  if vim.fn.exists(":FaultlineExplain") ~= 2 then
    finish(1, "plugin/faultline.lua did not define :FaultlineExplain")
  end
  faultline.setup({ cmd = cmd, open_quickfix = false })

  local started = uv.now()
  vim.cmd("edit " .. vim.fn.fnameescape(module .. "/after_test.go"))
  local test_buf = vim.api.nvim_get_current_buf()
  local client_id = harness.attached(faultline, test_buf, 30000)
  if not client_id then
    finish(1, "the server did not start and attach within 30 s")
  end
  -- The failing test is known once the first ranking is in.
  local ranked = vim.wait(timeout, function()
    local result = faultline.ranking_of(client_id)
    return result ~= nil and type(result.lines) == "table" and #result.lines > 0
  end, 200)
  if not ranked then
    finish(1, string.format("no ranking after %d ms", uv.now() - started))
  end
  out(string.format("ranking received after %d ms", uv.now() - started))

  local lens
  vim.wait(30000, function()
    local params = { textDocument = { uri = vim.uri_from_bufnr(test_buf) } }
    local replies = vim.lsp.buf_request_sync(test_buf, "textDocument/codeLens", params, 10000) or {}
    for _, l in ipairs((replies[client_id] or {}).result or {}) do
      if l.command and l.command.command == "faultline.explainTest" then
        lens = l
        return true
      end
    end
    return false
  end, 500)
  if not lens then
    finish(1, "after_test.go has no explain code lens")
  end
  out("code lens: " .. lens.command.title)

  vim.cmd("edit " .. vim.fn.fnameescape(module .. "/after.go"))
  local src_buf = vim.api.nvim_get_current_buf()
  vim.cmd("FaultlineExplain TestMaxPlus")
  local explained = vim.wait(timeout, function()
    return vim.fn.getqflist({ title = 1 }).title:find("^faultline: TestMaxPlus since ") ~= nil
  end, 200)
  if not explained then
    finish(1, string.format(":FaultlineExplain filled no quickfix list within %d ms", timeout))
  end
  local items = vim.fn.getqflist()
  out(string.format("quickfix: %s, %d entries", vim.fn.getqflist({ title = 1 }).title, #items))
  if #items == 0 or items[1].lnum ~= 10 or not items[1].text:find("^root change: ") then
    finish(1, "the quickfix list does not start with the root change on after.go:10: " .. vim.inspect(items[1]))
  end

  local want = string.format('this change at after.go:10, from commit %s of %s "commit 1", makes TestMaxPlus fail', commit:sub(1, 12), date)
  local found
  vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(src_buf)) do
      if d.lnum == 9 and d.message:find(want, 1, true) then
        found = d
        return true
      end
    end
    return false
  end, 200)
  if not found then
    local got = {}
    for _, d in ipairs(vim.diagnostic.get(src_buf)) do
      table.insert(got, string.format("%d: %s", d.lnum + 1, d.message))
    end
    finish(1, "no diagnostic on after.go:10 says " .. want .. "; diagnostics:\n" .. table.concat(got, "\n"))
  end
  finish(0, string.format("explained in %d ms: %s", uv.now() - started, found.message))
end)
if not ok then
  finish(1, "error: " .. tostring(err))
end
