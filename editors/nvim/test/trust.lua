-- End-to-end check of workspace trust, run inside headless Neovim by
-- e2e.sh: the plugin and the real server on a module whose tests leave a
-- marker file when they run. Without vim.secure (Neovim before 0.9) the
-- server asks with window/showMessageRequest, which Neovim's own handler
-- shows as an inputlist; the answers are typed into it.
--   1. "Not now": nothing runs, a save asks nothing; :FaultlineRun runs.
--   2. A new server asks again; "Run this time" runs.
--   3. A new server asks again; "Always for this module" runs and is
--      written to the trust list.
--   4. A new server runs without asking.
--   5. With the trust list gone and setup{ trust = "always" }, a new server
--      runs without asking: the plugin vouches in its capabilities.
-- While each question is open the test waits and checks that the marker
-- has not appeared. Inputs (environment): FAULTLINE_CMD (JSON list),
-- FAULTLINE_PLUGIN_DIR, MODULE (the module's directory), STORE_DIR (the
-- spectra stores, emptied between servers so every run runs the tests),
-- TRUST_LIST (the trust list file the server uses).
local uv = vim.uv or vim.loop

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/harness.lua")
local out, finish, env = harness.out, harness.finish, harness.env

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local ok, err = pcall(function()
  if vim.secure then
    out("SKIP: this Neovim has vim.secure, so the plugin asks through :trust instead of the server")
    vim.cmd("qall!")
    return
  end
  local cmd = vim.fn.json_decode(env("FAULTLINE_CMD"))
  local module = uv.fs_realpath(env("MODULE"))
  local marker = module .. "/ran-tests"
  local store_dir, trust_list = env("STORE_DIR"), env("TRUST_LIST")
  local timeout = 300000

  vim.opt.runtimepath:prepend(env("FAULTLINE_PLUGIN_DIR"))
  vim.cmd("filetype on")
  vim.cmd("runtime plugin/faultline.lua")
  local faultline = require("faultline")

  -- Answers to type, in order, one per question; a question with none
  -- left fails the test.
  local answers, questions, ran_early, unexpected = {}, 0, false, nil
  local default = vim.lsp.handlers["window/showMessageRequest"]
  vim.lsp.handlers["window/showMessageRequest"] = function(e, params, ctx, config)
    questions = questions + 1
    -- The server is a separate process: give it time to run what it must
    -- not while the question is open.
    ran_early = ran_early or exists(marker)
    uv.sleep(3000)
    ran_early = ran_early or exists(marker)
    local choice = table.remove(answers, 1)
    if not choice then
      unexpected = params.message
      choice = "3"
    end
    vim.api.nvim_feedkeys(choice .. "\r", "t", false)
    return default(e, params, ctx, config)
  end

  faultline.setup({ cmd = cmd, open_quickfix = false })
  vim.cmd("edit " .. vim.fn.fnameescape(module .. "/double.go"))
  local bufnr = vim.api.nvim_get_current_buf()

  local function client()
    for _, c in ipairs(faultline.clients()) do
      if vim.lsp.buf_is_attached(bufnr, c.id) then
        return c
      end
    end
    return nil
  end

  local function check(what)
    if ran_early then
      finish(1, what .. ": the tests ran while the question was open")
    end
    if unexpected then
      finish(1, what .. ": unexpected question: " .. unexpected)
    end
  end

  local function wait_marker(what)
    if not vim.wait(timeout, function()
      return exists(marker)
    end, 200) then
      finish(1, what .. ": the tests did not run within " .. timeout .. " ms")
    end
  end

  -- restart stops the server, forgets its results and starts a new one.
  local function restart()
    local c = client()
    if c then
      local pid = c.rpc and c.rpc.pid
      vim.lsp.stop_client(c.id)
      local gone = function()
        return vim.lsp.get_client_by_id(c.id) == nil
      end
      -- A server still there after shutdown and exit is killed: this test
      -- is about what runs, not about how the server ends.
      if not vim.wait(5000, gone, 100) and pid then
        uv.kill(pid, "sigkill")
      end
      if not vim.wait(10000, gone, 100) then
        finish(1, "could not stop the server")
      end
    end
    os.remove(marker)
    vim.fn.delete(store_dir, "rf")
    faultline.attach(bufnr)
  end

  -- 1. Not now.
  answers = { "3" }
  if not vim.wait(30000, function()
    return questions == 1 and #answers == 0
  end, 100) then
    finish(1, "the server did not ask before running the tests")
  end
  check("not now")
  vim.cmd("write")
  vim.wait(3000)
  if questions ~= 1 or exists(marker) then
    finish(1, string.format("after Not now and a save: %d questions, marker %s", questions, tostring(exists(marker))))
  end
  out("not now: nothing ran, a save asked nothing")
  local done, run_err = false, nil
  faultline.run(function(e)
    done, run_err = true, e
  end)
  vim.wait(timeout, function()
    return done
  end, 200)
  if not done or run_err or not exists(marker) then
    finish(1, ":FaultlineRun did not run the tests: " .. vim.inspect(run_err))
  end
  out(":FaultlineRun ran the tests")

  -- new_server restarts the server, typing the answers given to its
  -- questions, and waits until the tests ran; want is the number of
  -- questions asked since the start.
  local function new_server(what, typed, want)
    answers = typed
    restart()
    wait_marker(what)
    check(what)
    if questions ~= want then
      finish(1, string.format("%s: %d questions, want %d", what, questions, want))
    end
  end

  new_server("run this time", { "1" }, 2)
  if exists(trust_list) then
    finish(1, "Run this time wrote the trust list")
  end
  out("run this time: asked again, ran")

  new_server("always", { "2" }, 3)
  local list = table.concat(vim.fn.readfile(trust_list), "\n")
  if not list:find(module, 1, true) then
    finish(1, "the trust list does not name the module:\n" .. list)
  end
  out("always: ran, and the trust list names " .. module)

  new_server("after always", {}, 3)

  -- The plugin's own trust = "always" (the user's setup(), which no
  -- repository writes) reaches the server as the client's verdict in its
  -- capabilities: with an empty trust list it runs without asking.
  os.remove(trust_list)
  faultline.setup({ cmd = cmd, open_quickfix = false, trust = "always" })
  new_server("plugin trust always", {}, 3)
  out("plugin trust always: ran without asking")
  finish(0, "nothing ran before consent; Not now held for the session; Always survived a restart; the plugin vouched")
end)
if not ok then
  finish(1, "error: " .. tostring(err))
end
