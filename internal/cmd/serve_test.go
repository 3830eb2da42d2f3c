//go:build linux

package cmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/faultline-go/faultline/internal/lspframe"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lspProcess is `faultline serve` as an editor runs it: a child process
// spoken to over its standard input and output pipes.
type lspProcess struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	wait  chan error // the result of cmd.Wait, once

	mu      sync.Mutex
	nextID  int
	replies map[int]chan json.RawMessage
	methods []string          // methods of the notifications and requests received
	params  []json.RawMessage // and their parameters
}

func startServe(t *testing.T, dir string, args ...string) *lspProcess {
	t.Helper()
	cmd := exec.Command(faultlineBin, append([]string{"serve"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FAULTLINE_CACHE="+t.TempDir())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lspProcess{t: t, cmd: cmd, stdin: stdin, wait: make(chan error, 1), replies: map[int]chan json.RawMessage{}}
	go p.read(bufio.NewReader(stdout))
	go func() { p.wait <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
	})
	return p
}

func (p *lspProcess) send(msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := lspframe.Write(p.stdin, body); err != nil {
		p.t.Fatalf("writing to the server: %v", err)
	}
}

func (p *lspProcess) notify(method string, params any) {
	p.send(map[string]any{"method": method, "params": params})
}

// call sends a request and waits up to a minute for its answer.
func (p *lspProcess) call(method string, params any) json.RawMessage {
	p.t.Helper()
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	ch := make(chan json.RawMessage, 1)
	p.replies[id] = ch
	p.mu.Unlock()
	p.send(map[string]any{"id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		return r
	case <-time.After(time.Minute):
		p.t.Fatalf("no answer to %s", method)
		return nil
	}
}

func (p *lspProcess) read(r *bufio.Reader) {
	for {
		body, err := lspframe.Read(r)
		if err != nil {
			return
		}
		var msg struct {
			ID     *int
			Method string
			Params json.RawMessage
			Result json.RawMessage
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		p.mu.Lock()
		switch {
		case msg.Method != "":
			p.methods = append(p.methods, msg.Method)
			p.params = append(p.params, msg.Params)
			if msg.ID != nil { // a request of the server: answer it empty
				go p.send(map[string]any{"id": *msg.ID, "result": nil})
			}
		case msg.ID != nil:
			if ch := p.replies[*msg.ID]; ch != nil {
				ch <- msg.Result
			}
		}
		p.mu.Unlock()
	}
}

// lastNotification returns the parameters of the last notification of a
// method about a document (nil if none came).
func (p *lspProcess) lastNotification(method, uri string) json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.methods) - 1; i >= 0; i-- {
		var about struct{ URI string }
		if p.methods[i] == method && json.Unmarshal(p.params[i], &about) == nil && about.URI == uri {
			return p.params[i]
		}
	}
	return nil
}

func (p *lspProcess) received(method string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.methods {
		if m == method {
			return true
		}
	}
	return false
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
	case err := <-p.wait:
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
		p.stdin.Close()
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
