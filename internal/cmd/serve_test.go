//go:build linux

package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/fakeeditor"
)

// lspProcess is `faultline serve` as an editor runs it: a child process
// spoken to over its standard input and output pipes.
type lspProcess struct {
	*fakeeditor.Editor
	t *testing.T
}

func startServe(t *testing.T, dir string, args ...string) *lspProcess {
	t.Helper()
	cmd := exec.Command(faultlineBin, append([]string{"serve"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FAULTLINE_CACHE="+t.TempDir())
	cmd.Stderr = os.Stderr
	editor, err := fakeeditor.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	// A question is left unanswered, so no test trusts a module by a
	// click; trustingClient trusts it by capability instead.
	editor.SetHandler("window/showMessageRequest", fakeeditor.Dismiss)
	t.Cleanup(func() {
		cmd.Process.Kill()
	})
	return &lspProcess{Editor: editor, t: t}
}

func (p *lspProcess) notify(method string, params any) {
	p.t.Helper()
	if err := p.Notify(method, params); err != nil {
		p.t.Fatal(err)
	}
}

// call sends a request and waits up to a minute for its answer.
func (p *lspProcess) call(method string, params any) json.RawMessage {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var result json.RawMessage
	if err := p.Call(ctx, method, params, &result); err != nil {
		p.t.Fatal(err)
	}
	return result
}

// lastNotification returns the parameters of the last notification of a
// method about a document (nil if none came).
func (p *lspProcess) lastNotification(method, uri string) json.RawMessage {
	log := p.Log()
	for i := len(log) - 1; i >= 0; i-- {
		var about struct{ URI string }
		if log[i].Kind == fakeeditor.Notification && log[i].Method == method && json.Unmarshal(log[i].Params, &about) == nil && about.URI == uri {
			return log[i].Params
		}
	}
	return nil
}

// trustingClient are the capabilities of a client that trusts the workspace
// itself, as VS Code does once its user trusts it.
var trustingClient = map[string]any{"experimental": map[string]any{"faultline": map[string]any{"trustedWorkspace": true}}}

func (p *lspProcess) initialize(root string, options, capabilities map[string]any) {
	p.t.Helper()
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	p.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + root, "capabilities": capabilities,
		"initializationOptions": options,
	})
	p.notify("initialized", map[string]any{})
}

// exitCode waits for the process to end, at most limit after the call,
// and returns its exit status.
func (p *lspProcess) exitCode(limit time.Duration) (int, time.Duration) {
	p.t.Helper()
	start := time.Now()
	select {
	case <-p.Stopped():
		err := p.ServerErr()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), time.Since(start)
		}
		if err != nil {
			p.t.Fatalf("waiting for the server: %v", err)
		}
		return 0, time.Since(start)
	case <-time.After(limit):
		p.t.Fatalf("the server still runs %s after exit", limit)
		return -1, 0
	}
}

// The LSP asks for exit status 0 after shutdown and exit, 1 after exit
// alone; the process must end at once, not when the client kills it.
func TestServeExitsWhenTold(t *testing.T) {
	dir := copyModule(t, "../../examples/money")
	for _, tc := range []struct {
		name     string
		shutdown bool
		want     int
	}{{"shutdown and exit", true, 0}, {"exit alone", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			p := startServe(t, dir)
			p.initialize(dir, map[string]any{"autoRun": false}, nil)
			if tc.shutdown {
				p.call("shutdown", nil)
			}
			p.notify("exit", nil)
			code, took := p.exitCode(time.Second)
			if code != tc.want {
				t.Errorf("exit status %d, want %d", code, tc.want)
			}
			t.Logf("exited %s after exit", took)
		})
	}
	t.Run("end of input", func(t *testing.T) {
		p := startServe(t, dir)
		p.initialize(dir, map[string]any{"autoRun": false}, nil)
		p.Close()
		code, took := p.exitCode(time.Second)
		t.Logf("exited with status %d %s after the end of input", code, took)
	})
}

// slowModule is a module whose one test logs its process id to pids and
// then, from its second run on, sleeps: the first run (the collection)
// fails fast, so that a later run is an analysis of the failing test.
func slowModule(t *testing.T, sleepFirst bool) (dir, pids string) {
	dir = t.TempDir()
	pids = filepath.Join(dir, "pids")
	files := map[string]string{
		"go.mod": "module example.com/slow\n\ngo 1.22\n",
		"slow.go": `package slow

func Double(x int) int {
	y := x + x
	return y + 1
}
`,
		"slow_test.go": fmt.Sprintf(`package slow

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestDouble(t *testing.T) {
	f, err := os.OpenFile(%[1]q, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, os.Getpid())
	info, _ := f.Stat()
	f.Close()
	if %[2]v || info.Size() > int64(len(fmt.Sprintln(os.Getpid()))) {
		time.Sleep(time.Minute)
	}
	if got := Double(2); got != 4 {
		t.Errorf("Double(2) = %%d, want 4", got)
	}
}
`, pids, sleepFirst),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, pids
}

// waitForPIDs waits until the test has logged n process ids and returns them.
func waitForPIDs(t *testing.T, pids string, n int, limit time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(pids)
		var out []int
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
		if len(out) >= n {
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the test did not start %d times within %s", n, limit)
	return nil
}

// alive reports whether a process runs (a zombie has ended).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// A test run or an analysis in flight neither delays the exit nor outlives
// the server.
func TestServeExitsDuringWork(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sleepFirst bool
		options    map[string]any
		runs       int // the run to wait for
	}{
		{"test run", true, nil, 1},
		{"analysis", false, map[string]any{"angelic": true}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, pids := slowModule(t, tc.sleepFirst)
			p := startServe(t, dir, "-debounce", "10ms")
			p.initialize(dir, tc.options, trustingClient)
			running := waitForPIDs(t, pids, tc.runs, 3*time.Minute)
			pid := running[tc.runs-1]
			if !alive(pid) {
				t.Fatalf("test process %d is not running", pid)
			}
			p.call("shutdown", nil)
			p.notify("exit", nil)
			code, took := p.exitCode(time.Second)
			if code != 0 {
				t.Errorf("exit status %d, want 0", code)
			}
			t.Logf("exited %s after exit", took)
			deadline := time.Now().Add(time.Second)
			for alive(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("test process %d outlived the server", pid)
			}
		})
	}
}
