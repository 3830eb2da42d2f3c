-- Configuration of the faultline plugin: defaults, validation and the
-- settings object sent to the server.
local M = {}

M.defaults = {
  -- Command that starts the language server.
  cmd = { "faultline", "serve" },
  -- File types whose buffers get the server.
  filetypes = { "go", "gomod" },
  -- Server settings (see :help faultline-settings).
  formula = "ochiai",
  top = 10,
  threshold = 0,
  autoRun = true,
  timeout = "60s",
  parallel = 0,
  -- Angelic analysis of failing tests: lines hosting verified fixes first.
  angelic = true,
  -- How lines are ordered, as `faultline rank -order`: "learned" (the
  -- shipped model over every technique's evidence), "combined" (lines
  -- hosting verified angelic fixes first) or "formula".
  order = "learned",
  budget = "10s",
  maxAnalyzed = 10,
  -- mutants of the failing tests' lines to try, with the angelic
  -- analysis, for the learned order and verified operator fixes (0: none).
  mutants = 200,
  -- MB the processes of one test may hold (0: the smaller of 4096 and
  -- half the machine's memory).
  testMemory = 0,
  memory = 1024,
  -- "ask": run a module's tests only once you agree (Neovim's :trust on
  -- 0.9+, else the server's question); "always": run without asking (the
  -- plugin vouches for every module, from your own configuration);
  -- "never": run only on :FaultlineRun.
  trust = "ask",
  -- Colour suspicious lines by score with extmarks.
  highlight = true,
  -- Show "#rank score" at the end of suspicious lines.
  virtual_text = true,
  -- Enable the server's inlay hints (Neovim 0.10+ only).
  inlay_hints = false,
  -- Open the quickfix window after :FaultlineRanking.
  open_quickfix = true,
  -- Called as on_attach(client, bufnr) after the client attaches to a buffer.
  on_attach = nil,
}

local server_keys = {
  "formula", "top", "threshold", "autoRun", "timeout", "parallel",
  "angelic", "order", "budget", "maxAnalyzed", "memory", "trust",
  "testMemory", "mutants",
}

local function check_type(name, value, want)
  if type(value) ~= want then
    error(string.format("faultline: option %q must be a %s, got %s", name, want, type(value)), 3)
  end
end

-- merge returns the defaults overlaid with opts, after checking types so a
-- typo fails at setup() rather than as an obscure server error later.
function M.merge(opts)
  opts = opts or {}
  check_type("setup options", opts, "table")
  local cfg = vim.deepcopy(M.defaults)
  for key, value in pairs(opts) do
    if M.defaults[key] == nil and key ~= "on_attach" then
      error(string.format("faultline: unknown option %q", key), 2)
    end
    cfg[key] = value
  end
  check_type("cmd", cfg.cmd, "table")
  if #cfg.cmd == 0 or type(cfg.cmd[1]) ~= "string" then
    error("faultline: option \"cmd\" must be a non-empty list of strings", 2)
  end
  check_type("filetypes", cfg.filetypes, "table")
  check_type("formula", cfg.formula, "string")
  check_type("top", cfg.top, "number")
  check_type("threshold", cfg.threshold, "number")
  check_type("autoRun", cfg.autoRun, "boolean")
  check_type("timeout", cfg.timeout, "string")
  check_type("parallel", cfg.parallel, "number")
  check_type("angelic", cfg.angelic, "boolean")
  if cfg.order ~= "combined" and cfg.order ~= "formula" and cfg.order ~= "learned" then
    error(string.format('faultline: option "order" must be "combined", "formula" or "learned", got %s', vim.inspect(cfg.order)), 2)
  end
  check_type("budget", cfg.budget, "string")
  check_type("maxAnalyzed", cfg.maxAnalyzed, "number")
  check_type("mutants", cfg.mutants, "number")
  check_type("testMemory", cfg.testMemory, "number")
  check_type("memory", cfg.memory, "number")
  if cfg.trust ~= "ask" and cfg.trust ~= "always" and cfg.trust ~= "never" then
    error(string.format('faultline: option "trust" must be "ask", "always" or "never", got %s', vim.inspect(cfg.trust)), 2)
  end
  if cfg.on_attach ~= nil then
    check_type("on_attach", cfg.on_attach, "function")
  end
  return cfg
end

-- server_settings extracts the part of the configuration the server reads,
-- as initializationOptions and as the "faultline" configuration section.
-- The server takes no trust from settings, which a repository may supply:
-- "always" goes as the client's own verdict (init.lua), and the setting
-- says "ask".
function M.server_settings(cfg)
  local settings = {}
  for _, key in ipairs(server_keys) do
    settings[key] = cfg[key]
  end
  if settings.trust == "always" then
    settings.trust = "ask"
  end
  return settings
end

return M
