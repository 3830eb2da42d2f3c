-- End-to-end check run inside headless Neovim by e2e.sh: load the plugin,
-- open the faulty file of an example module, wait for the server, run
-- :FaultlineRanking and check the quickfix list and the extmarks.
-- Inputs (environment): FAULTLINE_CMD (JSON list), FAULTLINE_PLUGIN_DIR,
-- FAULT_FILE (absolute), FAULT_LINE, FAULTLINE_E2E_TIMEOUT_MS, FAULTLINE_TOP_N.
local uv = vim.uv or vim.loop

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/harness.lua")
local out, finish, env = harness.out, harness.finish, harness.env

local ok, err = pcall(function()
  local cmd = vim.fn.json_decode(env("FAULTLINE_CMD"))
  local plugin_dir = env("FAULTLINE_PLUGIN_DIR")
  local fault_file = uv.fs_realpath(env("FAULT_FILE")) or env("FAULT_FILE")
  local fault_line = tonumber(env("FAULT_LINE"))
  local timeout = tonumber(os.getenv("FAULTLINE_E2E_TIMEOUT_MS") or "") or 420000
  local top_n = tonumber(os.getenv("FAULTLINE_TOP_N") or "") or 3

  vim.lsp.set_log_level("debug")
  vim.opt.runtimepath:prepend(plugin_dir)
  vim.cmd("filetype on")
  vim.cmd("runtime plugin/faultline.lua")
  if vim.fn.exists(":FaultlineRanking") ~= 2 then
    finish(1, "plugin/faultline.lua did not define :FaultlineRanking")
  end
  local faultline = require("faultline")
  local changes = 0
  vim.api.nvim_create_autocmd("User", {
    pattern = "FaultlineRankingChanged",
    callback = function()
      changes = changes + 1
    end,
  })

  -- Neovim before 0.9 has no vim.secure, so the server asks before it runs
  -- the tests: type "1" (Run this time) into Neovim's own prompt.
  local questions = 0
  local ask = vim.lsp.handlers["window/showMessageRequest"]
  vim.lsp.handlers["window/showMessageRequest"] = function(e, params, ctx, config)
    questions = questions + 1
    vim.api.nvim_feedkeys("1\r", "t", false)
    return ask(e, params, ctx, config)
  end

  faultline.setup({ cmd = cmd, open_quickfix = false })

  vim.cmd("edit " .. vim.fn.fnameescape(fault_file))
  local bufnr = vim.api.nvim_get_current_buf()
  out("opened " .. fault_file .. " (filetype " .. vim.bo.filetype .. ")")

  local started = uv.now()
  local function elapsed()
    return uv.now() - started
  end

  local client_id = harness.attached(faultline, bufnr, 30000)
  if not client_id then
    finish(1, "the server did not start and attach within 30 s (cmd " .. table.concat(cmd, " ") .. ")")
  end
  out(string.format("server attached after %d ms", elapsed()))

  local function server_alive()
    local client = vim.lsp.get_client_by_id(client_id)
    if client == nil then
      return false
    end
    -- A method since 0.11; a plain function before.
    if vim.fn.has("nvim-0.11") == 1 then
      return not client:is_stopped()
    end
    return not client.is_stopped()
  end

  -- The server collects on its own after initialize (autoRun) and announces
  -- the result with faultline/rankingChanged, on which the plugin fetches
  -- the ranking: wait for that fetched ranking to have lines.
  local got = vim.wait(timeout, function()
    local result = faultline.ranking_of(client_id)
    return not server_alive() or (result ~= nil and type(result.lines) == "table" and #result.lines > 0)
  end, 200)
  if not server_alive() then
    finish(1, "the server exited before producing a ranking (see the LSP log below)")
  end
  if not got then
    local st = faultline.last_status()
    finish(1, string.format("no ranking with lines after %d ms (%d rankingChanged, last status %s)", elapsed(), changes, vim.inspect(st)))
  end
  out(string.format("ranking received after %d ms (%d rankingChanged notifications, %d questions)", elapsed(), changes, questions))

  -- With default settings the server also analyses the failing tests: the
  -- angelic values reach the editor in the diagnostics of the lines that
  -- host them, and the ranking is in the learned order. (The mock
  -- server of plugin.sh has no analysis.)
  local angelic
  vim.wait(os.getenv("EXPECT_ANGELIC") == "1" and timeout or 0, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.message:find("\nangelic fix: ", 1, true) then
        angelic = d
        return true
      end
    end
    return not server_alive()
  end, 200)
  if not angelic and os.getenv("EXPECT_ANGELIC") == "1" then
    finish(1, string.format("no diagnostic in %s carries an angelic value after %d ms", fault_file, elapsed()))
  end
  if angelic then
    out(string.format("angelic value on line %d after %d ms: %s", angelic.lnum + 1, elapsed(), angelic.message:match("angelic fix: [^\n]*")))
    vim.wait(10000, function()
      local result = faultline.ranking_of(client_id)
      return result ~= nil and result.order == "learned"
    end, 100)
  end

  vim.cmd("FaultlineRanking")
  vim.wait(10000, function()
    return #vim.fn.getqflist() > 0
  end, 100)
  local items = vim.fn.getqflist()
  if #items == 0 then
    finish(1, ":FaultlineRanking left the quickfix list empty")
  end
  local title = vim.fn.getqflist({ title = 1 }).title
  out(string.format("quickfix: %s, %d entries", title, #items))

  local position
  for i, item in ipairs(items) do
    if i > 10 and position then
      out(string.format("  ... %d more", #items - 10))
      break
    end
    local name = vim.fn.bufname(item.bufnr)
    local path = uv.fs_realpath(vim.fn.fnamemodify(name, ":p")) or name
    out(string.format("  %2d. %s:%d  %s", i, vim.fn.fnamemodify(path, ":~:."), item.lnum, item.text))
    if not position and path == fault_file and item.lnum == fault_line then
      position = i
    end
  end
  if not position then
    finish(1, string.format("faulty line %s:%d is not in the quickfix list", fault_file, fault_line))
  end
  if position > top_n then
    finish(1, string.format("faulty line is at position %d of the quickfix list, want top %d", position, top_n))
  end

  local marks = {}
  vim.wait(5000, function()
    marks = require("faultline.highlight").marks(bufnr)
    return #marks > 0
  end, 100)
  if #marks == 0 then
    finish(1, "no faultline extmarks placed in " .. fault_file)
  end
  local fault_marked = false
  for _, mark in ipairs(marks) do
    local row, details = mark[2], mark[4]
    -- Neovim 0.7 does not report line_hl_group back; the virtual text
    -- group carries the same level there.
    local group = details.line_hl_group
    if not group and details.virt_text and details.virt_text[1] then
      group = details.virt_text[1][2]
    end
    if row == fault_line - 1 and type(group) == "string" and group:match("^FaultlineSusp%a*%d$") then
      fault_marked = true
      out(string.format("faulty line highlighted with %s", group))
    end
  end
  if not fault_marked then
    finish(1, string.format("%d extmarks placed but none with a FaultlineSusp group on line %d", #marks, fault_line))
  end
  -- The order at run time (:FaultlineOrder): the combined order, the
  -- formula's alone, then the learned order again, each made from what the
  -- server holds; the hover
  -- on the faulty line says which order put it where it is and on which
  -- evidence.
  local function hover_text()
    local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = fault_line - 1, character = 0 } }
    local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000) or {}
    local reply = replies[client_id]
    if reply and type(reply.result) == "table" and type(reply.result.contents) == "table" then
      return reply.result.contents.value or ""
    end
    return ""
  end
  local function fault_rank()
    for _, l in ipairs((faultline.ranking_of(client_id) or {}).lines or {}) do
      if (uv.fs_realpath(vim.uri_to_fname(l.uri)) or "") == fault_file and l.line == fault_line then
        return l.rank
      end
    end
    return nil
  end
  local function order_now(order)
    vim.cmd("FaultlineOrder " .. order)
    local switched = vim.wait(30000, function()
      local result = faultline.ranking_of(client_id)
      return result ~= nil and result.order == order
    end, 100)
    if not switched then
      finish(1, string.format(":FaultlineOrder %s: the ranking did not change order within 30 s", order))
    end
  end
  -- expect_why checks that the hover's sentence on the faulty line
  -- matches pattern and returns the line's rank.
  local function expect_why(label, pattern)
    local why = hover_text():match("^%*%*faultline%*%* · ([^\n]*)")
    out(string.format("hover %s: %s", label, tostring(why)))
    if not why or not why:find(pattern) then
      finish(1, string.format("the hover on the faulty line does not say why %s: %s", label, tostring(why)))
    end
    return fault_rank()
  end
  if (faultline.ranking_of(client_id) or {}).order == "learned" then
    local learned_rank = expect_why("under the learned order", "^Rank %d+ .*under the learned order %(model [^)]+%): weighed most by ")
    order_now("combined")
    local combined_rank = expect_why("under the combined order", "^Rank %d+ .*under the combined order: ")
    order_now("formula")
    local formula_rank = expect_why("by the formula alone", "^Rank %d+ .*by ochiai alone: ochiai ")
    if formula_rank == combined_rank then
      finish(1, string.format("the faulty line stayed at rank %s when the order changed", tostring(formula_rank)))
    end
    out(string.format("faulty line at rank %s under the combined order, %s by the formula alone, %s under the learned order",
      tostring(combined_rank), tostring(formula_rank), tostring(learned_rank)))
    order_now("learned")
  elseif os.getenv("EXPECT_ANGELIC") == "1" then
    finish(1, "the ranking never reached the learned order")
  end

  -- :FaultlineRun's request is answered when the fresh run is over; the
  -- server must still be alive and report the module's failing tests.
  local run_done, run_err, run_result = false, nil, nil
  faultline.run(function(err, result)
    run_done, run_err, run_result = true, err, result
  end)
  vim.wait(timeout, function()
    return run_done or not server_alive()
  end, 100)
  if not server_alive() then
    finish(1, "faultline.run made the server exit (see the LSP log below)")
  end
  if not run_done then
    finish(1, string.format("faultline.run was not answered within %d ms", timeout))
  end
  if run_err then
    finish(1, "faultline.run failed: " .. vim.inspect(run_err))
  end
  out(string.format("%s (%d ms)", require("faultline.ranking").run_summary(run_result), elapsed()))
  if type(run_result) == "table" and type(run_result.modules) == "table" and run_result.modules[1] and (run_result.modules[1].failed or 0) == 0 then
    finish(1, "faultline.run reported no failing test in a module with a known fault")
  end
  finish(0, string.format("faulty line ranked at position %d, %d lines highlighted, %d ms", position, #marks, elapsed()))
end)
if not ok then
  finish(1, "error: " .. tostring(err))
end
