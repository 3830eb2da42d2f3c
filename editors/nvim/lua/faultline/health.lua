-- :checkhealth faultline. Neovim 0.10 has vim.health.start/ok/...; 0.8 and
-- 0.9 have vim.health.report_*; 0.7 only the Vimscript health#report_*.
local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  if h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  local function vimscript(name)
    return function(msg, advice)
      if advice then
        vim.fn["health#report_" .. name](msg, advice)
      else
        vim.fn["health#report_" .. name](msg)
      end
    end
  end
  return {
    start = vimscript("start"),
    ok = vimscript("ok"),
    warn = vimscript("warn"),
    error = vimscript("error"),
    info = vimscript("info"),
  }
end

function M.check()
  local report = reporter()
  report.start("faultline")

  if vim.fn.has("nvim-0.7") == 1 then
    report.ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
  else
    report.error("Neovim 0.7 or later is required")
  end
  if vim.lsp.start then
    report.ok("vim.lsp.start available (0.8+): servers are reused per module root")
  else
    report.info("vim.lsp.start missing (Neovim 0.7): using vim.lsp.start_client")
  end
  if vim.lsp.inlay_hint then
    report.ok("inlay hints supported (0.10+): set inlay_hints = true to show the server's hints")
  else
    report.info("inlay hints need Neovim 0.10; scores are shown as virtual text instead")
  end

  local faultline = require("faultline")
  local cfg = faultline.config()
  if not cfg then
    report.error("setup() has not been called", { "Add require('faultline').setup{} to your init.lua" })
    return
  end
  report.ok(string.format("formula=%s order=%s top=%d autoRun=%s timeout=%s trust=%s", cfg.formula, cfg.order, cfg.top, tostring(cfg.autoRun), cfg.timeout, cfg.trust))
  if cfg.trust == "ask" then
    if vim.secure then
      report.ok("module trust: Neovim's :trust decides (vim.secure)")
    else
      report.info("module trust: the server asks before running a module's tests (no vim.secure before Neovim 0.9)")
    end
  elseif cfg.trust == "always" then
    report.warn("module trust: every module's tests run without asking (trust = \"always\")")
  else
    report.info("module trust: tests run only on :FaultlineRun (trust = \"never\")")
  end

  local exe = cfg.cmd[1]
  if vim.fn.executable(exe) == 1 then
    report.ok(string.format("server binary: %s", vim.fn.exepath(exe)))
    local out = vim.fn.system({ exe, "version" })
    if vim.v.shell_error == 0 then
      report.info("faultline version: " .. vim.trim(out))
    end
  else
    report.error(string.format("%q is not executable", exe), {
      "Install it with: go install github.com/faultline-go/faultline/cmd/faultline@latest",
      "or point setup{ cmd = {'/path/to/faultline', 'serve'} } at the binary",
    })
  end
  if vim.fn.executable("go") == 1 then
    report.ok("go toolchain: " .. vim.fn.exepath("go"))
  else
    report.error("go is not on PATH: the server needs it to build and run tests")
  end

  local clients = faultline.clients()
  if #clients == 0 then
    report.info("no faultline server running (open a Go file inside a module)")
  end
  for _, client in ipairs(clients) do
    local status = faultline.status()
    report.ok(string.format("client %d serving %s%s", client.id, client.config.root_dir or "?", status ~= "" and (" — " .. status) or ""))
  end
end

return M
