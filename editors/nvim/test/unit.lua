-- Unit tests of the plugin's pure logic, run by test/plugin.sh inside
-- headless Neovim. Prints "unit: N passed, M failed" and exits non-zero on failure.
local plugin_dir = os.getenv("FAULTLINE_PLUGIN_DIR")
vim.opt.runtimepath:prepend(plugin_dir)
local ranking = require("faultline.ranking")
local config = require("faultline.config")
local explain = require("faultline.explain")

local passed, failed = 0, 0
local function test(name, fn)
  local ok, err = pcall(fn)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.stdout:write("FAIL " .. name .. ": " .. tostring(err) .. "\n")
  end
end
local function eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(string.format("%s: got %s, want %s", what or "value", vim.inspect(got), vim.inspect(want)), 2)
  end
end

test("grade scales relative to the top score", function()
  eq(ranking.grade(1, 1), 5, "top")
  eq(ranking.grade(0.5, 1), 3, "half")
  eq(ranking.grade(0.01, 1), 1, "faint")
  eq(ranking.grade(0, 1), 0, "zero")
  eq(ranking.grade(-2, 1), 0, "negative")
  eq(ranking.grade(40, 80), 3, "unbounded formula")
  eq(ranking.grade(2, 1), 5, "clamped")
  eq(ranking.grade(nil, 1), 0, "missing score")
end)

test("quickfix items come in rank order with absolute paths", function()
  local result = {
    formula = "ochiai",
    failed = 1,
    passed = 2,
    lines = {
      { file = "b.go", line = 3, score = 0.5, rank = 2, ef = 1, ep = 1, nf = 0, np = 1 },
      { uri = "file:///m/a.go", file = "a.go", line = 7, score = 1, rank = 1, tie = { 1, 1 }, ef = 1, ep = 0, nf = 0, np = 2 },
      { file = "c.go", score = 0.1, rank = 3 }, -- no line: dropped
    },
  }
  local items = ranking.quickfix_items(result, "/m")
  eq(#items, 2, "count")
  eq(items[1].filename, "/m/a.go", "first file")
  eq(items[1].lnum, 7, "first line")
  eq(items[2].filename, "/m/b.go", "second file")
  eq(items[1].text, "#1 ochiai 1.000  failing 1/1, passing 0/2", "text")
  eq(ranking.title(result), "faultline: ochiai, 1 failing / 2 passing tests", "title")
end)

test("quickfix items tolerate bad results", function()
  eq(ranking.quickfix_items(nil, "/m"), {}, "nil")
  eq(ranking.quickfix_items({ lines = vim.NIL }, "/m"), {}, "null lines")
end)

test("the combined order names the angelic fixes", function()
  local result = {
    formula = "ochiai",
    order = "combined",
    failed = 2,
    passed = 3,
    lines = {
      { file = "a.go", line = 8, score = 0.3, rank = 1, tie = { 1, 1 }, ef = 1, ep = 1, nf = 1, np = 2, fixes = 2 },
    },
  }
  eq(ranking.title(result), "faultline: ochiai and verified angelic fixes, 2 failing / 3 passing tests", "title")
  eq(ranking.title(vim.tbl_extend("force", result, { order = "learned", model = "m1" })), "faultline: the learned order (model m1), 2 failing / 3 passing tests", "learned title")
  eq(ranking.quickfix_items(result, "/m")[1].text, "#1 ochiai 0.300  failing 1/2, passing 1/3, angelic fixes 2", "text")
  eq(ranking.line_grade(result.lines[1], 0.9), ranking.levels, "top grade")
  eq(ranking.line_grade({ score = 0.45 }, 0.9), 3, "by score")
end)

test("ties are described", function()
  local text = ranking.describe({ rank = 2, score = 0.5, tie = { 2, 4 }, ef = 1, ep = 2, nf = 0, np = 0 }, "dstar")
  eq(text, "#2 dstar 0.500 (tied 2-4)  failing 1/1, passing 2/2")
end)

test("status text", function()
  eq(ranking.status_text({ state = "running", done = 37, total = 120, failing = 2 }), "faultline: running 37/120 tests, 2 failing")
  eq(ranking.status_text({ state = "idle", done = 4, total = 4, failing = 0 }), "faultline: idle")
  eq(ranking.status_text({ state = "error", message = "build failed\nmore" }), "faultline: error: build failed")
  eq(ranking.status_text(nil), "")
  eq(ranking.status_text({ state = "running", done = 0, total = 2, failing = 1, message = "0/2 packages done, 17 tests run, 1 failing" }), "faultline: 0/2 packages done, 17 tests run, 1 failing")
end)

test("run summary", function()
  eq(ranking.run_summary({ modules = { { root = "/w/calc", failed = 3, passed = 33, buildErrors = 0 } } }), "run finished: calc: 3 failing, 33 passing")
  eq(ranking.run_summary({ modules = { { root = "/w/a", failed = 0, passed = 1, buildErrors = 2 }, { root = "/w/b", error = "boom\nmore" } } }),
    "run finished: a: 0 failing, 1 passing, 2 packages did not build; b: error: boom")
  eq(ranking.run_summary(vim.NIL), "run finished")
end)

test("config merges and validates", function()
  local cfg = config.merge({ formula = "dstar", top = 5 })
  eq(cfg.formula, "dstar")
  eq(cfg.cmd, { "faultline", "serve" })
  eq(config.server_settings(cfg), { formula = "dstar", top = 5, threshold = 0, autoRun = true, timeout = "60s", parallel = 0, angelic = true, order = "learned", budget = "10s", maxAnalyzed = 10, mutants = 200, memory = 1024, testMemory = 0, trust = "ask" })
  eq(config.server_settings(config.merge({ order = "combined" })).order, "combined", "the order reaches the server")
  eq(config.server_settings(config.merge({ trust = "never" })).trust, "never", "never reaches the server")
  eq(config.server_settings(config.merge({ trust = "always" })).trust, "ask", "always is no setting: the plugin vouches instead")
  local ok, err = pcall(config.merge, { formul = "x" })
  eq(ok, false, "unknown key rejected")
  assert(tostring(err):find("unknown option"), tostring(err))
  ok, err = pcall(config.merge, { top = "ten" })
  eq(ok, false, "wrong type rejected")
  assert(tostring(err):find('"top" must be a number'), tostring(err))
  ok = pcall(config.merge, { cmd = {} })
  eq(ok, false, "empty cmd rejected")
  ok, err = pcall(config.merge, { trust = "sometimes" })
  eq(ok, false, "unknown trust rejected")
  assert(tostring(err):find('"trust" must be "ask", "always" or "never"'), tostring(err))
  ok, err = pcall(config.merge, { order = "best" })
  eq(ok, false, "unknown order rejected")
  assert(tostring(err):find('"order" must be "combined", "formula" or "learned"'), tostring(err))
end)

test("trust follows vim.secure where Neovim has it", function()
  local trust = require("faultline.trust")
  local asked = {}
  local function secure(answer)
    return {
      read = function(path)
        table.insert(asked, path)
        if answer == "error" then
          error("Keyboard interrupt")
        end
        return answer
      end,
    }
  end
  local function version(at_least_0_11_2)
    return function(feature)
      eq(feature, "nvim-0.11.2", "feature asked")
      return at_least_0_11_2
    end
  end
  eq(trust.stated("/m", {}, version(true)), nil, "no vim.secure.read: the server asks")
  eq(trust.stated("/m", secure(true), version(true)), true, "trusted directory")
  eq(trust.stated("/m", secure("module m\n"), version(false)), true, "trusted go.mod")
  eq(trust.stated("/m", secure(nil), version(true)), false, "denied or ignored")
  eq(trust.stated("/m", secure("error"), version(true)), false, "prompt interrupted")
  eq(asked, { "/m", "/m/go.mod", "/m", "/m" }, "paths asked")
end)

test("an explanation lists its changes, then its cause", function()
  local ex = {
    test = "TestMaxPlus",
    base = "9cde2c1f5453cfb3bc3bcb1ce71a576c05ae30fa",
    changes = {
      { file = "after.go", line = 10, endLine = 10, role = "root", old = "\t\tif x > y {\n", new = "\t\tif x < y {\n" },
      { file = "walk.go", line = 30, endLine = 29, role = "auxiliary", old = "\tif mode {\n\t}\n", new = "" },
    },
    cause = { { file = "after_test.go", line = 6, why = "the check fails" } },
  }
  local items = explain.quickfix_items(ex, "/m")
  eq(#items, 3, "count")
  eq(items[1], { filename = "/m/after.go", lnum = 10, col = 1, type = "W", text = "root change: if x < y {  (was: if x > y {)" }, "root")
  eq(items[2].text, "auxiliary change: (deleted)  (was: if mode {)", "auxiliary")
  eq(items[2].type, "I", "auxiliary type")
  eq(items[3], { filename = "/m/after_test.go", lnum = 6, col = 1, type = "I", text = "cause: the check fails" }, "cause")
  eq(explain.title(ex), "faultline: TestMaxPlus since 9cde2c1f5453", "title")
  eq(explain.quickfix_items(nil, "/m"), {}, "nil")
end)

test("set changes the settings the servers get, checked like setup's", function()
  local faultline = require("faultline")
  faultline.setup({ cmd = { "/nonexistent/faultline", "serve" }, filetypes = { "faultline-none" }, top = 3 })
  faultline.set({ order = "learned" })
  eq(faultline.config().order, "learned", "order")
  eq(faultline.config().top, 3, "the other settings kept")
  local ok, err = pcall(faultline.set, { order = "best" })
  eq(ok, false, "unknown order rejected")
  assert(tostring(err):find('"order" must be'), tostring(err))
  eq(faultline.config().order, "learned", "a rejected value changes nothing")
end)

io.stdout:write(string.format("unit: %d passed, %d failed\n", passed, failed))
vim.cmd("cquit " .. (failed == 0 and 0 or 1))
