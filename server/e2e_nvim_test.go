package server

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nvimClient is run by headless Neovim: it starts the faultline binary with
// Neovim's built-in LSP client (0.7 API: start_client, buf_attach_client),
// opens the faulty file and waits for a faultline diagnostic on the faulty
// line.
const nvimClient = `
local function env(name)
  local v = os.getenv(name)
  assert(v, name .. " is not set")
  return v
end
local function finish(code, msg)
  io.stdout:write((code == 0 and "PASS: " or "FAIL: ") .. msg .. "\n")
  io.stdout:flush()
  vim.cmd("cquit " .. code)
end
local ok, err = pcall(function()
  local root, file, line = env("FL_ROOT"), env("FL_FILE"), tonumber(env("FL_LINE"))
  local exited
  local id = vim.lsp.start_client({
    name = "faultline",
    cmd = { env("FL_BIN"), "serve" },
    on_exit = function(code, signal) exited = { code = code, signal = signal } end,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "e2e" } },
    handlers = {
      -- The server asks before it runs the module's tests: say yes.
      ["window/showMessageRequest"] = function(_, params)
        for _, action in ipairs(params.actions) do
          if action.title == "Run this time" then return action end
        end
        return vim.NIL
      end,
    },
  })
  if not id then finish(1, "vim.lsp.start_client failed") end
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, id)
  local found = vim.wait(tonumber(env("FL_TIMEOUT_MS")), function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source == "faultline" and d.lnum == line - 1 then return true end
    end
    return false
  end, 200)
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(seen, (d.lnum + 1) .. ": " .. d.message:gsub("\n", " "))
  end
  -- shutdown and exit, and wait for the server to end: quitting Neovim
  -- does not wait for it, and a server still writing its store would
  -- outlive the test.
  vim.lsp.stop_client(id)
  if not vim.wait(10000, function() return exited ~= nil end, 50) then
    finish(1, "the server did not exit within 10 s of shutdown and exit")
  end
  if exited.code ~= 0 then
    finish(1, "the server exited with code " .. exited.code .. " and signal " .. exited.signal)
  end
  if found then
    finish(0, "diagnostic on line " .. line .. "\n" .. table.concat(seen, "\n"))
  else
    finish(1, "no faultline diagnostic on line " .. line .. "; diagnostics:\n" .. table.concat(seen, "\n"))
  end
end)
if not ok then finish(2, tostring(err)) end
`

// TestNeovimEndToEnd runs the built faultline binary under headless Neovim's
// LSP client on an example module (examples/<name>, with fault.json naming
// the faulty file and line) and checks that a diagnostic lands on the
// faulty line. FAULTLINE_E2E_EXAMPLES selects examples (default calc).
func TestNeovimEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tests of an example module under Neovim; skipped with -short")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim not found on PATH: install Neovim (apt-get install -y neovim) to run the editor end-to-end test")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	bin := filepath.Join(work, "faultline")
	build := exec.Command("go", "build", "-o", bin, "./cmd/faultline")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building faultline: %v\n%s", err, out)
	}
	// XDG_CACHE_HOME moves below, and with it the default build cache: keep
	// the build cache where it is, so the server's builds stay warm.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	script := filepath.Join(work, "client.lua")
	if err := os.WriteFile(script, []byte(nvimClient), 0o644); err != nil {
		t.Fatal(err)
	}
	examples := strings.Fields(os.Getenv("FAULTLINE_E2E_EXAMPLES"))
	if len(examples) == 0 {
		examples = []string{"calc"}
	}
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			var fault struct {
				File string `json:"file"`
				Line int    `json:"line"`
			}
			raw, err := os.ReadFile(filepath.Join(repo, "examples", name, "fault.json"))
			if err != nil {
				t.Fatalf("example %s: %v", name, err)
			}
			if err := json.Unmarshal(raw, &fault); err != nil || fault.File == "" || fault.Line <= 0 {
				t.Fatalf("examples/%s/fault.json: want file and line, got %s (%v)", name, raw, err)
			}
			// A copy keeps edits and state out of the repository.
			mod := filepath.Join(work, name)
			if err := os.CopyFS(mod, os.DirFS(filepath.Join(repo, "examples", name))); err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(work, "state-"+name)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
			cmd.Dir = mod
			cmd.Env = append(os.Environ(),
				"XDG_CONFIG_HOME="+filepath.Join(state, "config"), "XDG_DATA_HOME="+filepath.Join(state, "data"),
				"XDG_STATE_HOME="+filepath.Join(state, "state"), "XDG_CACHE_HOME="+filepath.Join(state, "cache"),
				"GOCACHE="+strings.TrimSpace(string(gocache)),
				"FL_BIN="+bin, "FL_ROOT="+mod, "FL_FILE="+filepath.Join(mod, filepath.FromSlash(fault.File)),
				"FL_LINE="+strconv.Itoa(fault.Line), "FL_TIMEOUT_MS=480000")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err = cmd.Run()
			t.Logf("neovim output:\n%s", out.String())
			if err != nil || !strings.Contains(out.String(), "PASS:") {
				t.Fatalf("no diagnostic on %s:%d (%v)", fault.File, fault.Line, err)
			}
		})
	}
}
