//go:build unix

package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/faultline-go/faultline/internal/localize"
)

// hangingModule's only test leaves a detached child holding its output and
// record pipes and then hangs; it writes the pids of both, the test
// process's first, to the file $HOSTAGE_PIDS names.
const hangingModule = `
-- go.mod --
module example.com/hanging

go 1.22
-- h/h.go --
package h

// Twice doubles.
func Twice(x int) int { return 2 * x }
-- h/h_test.go --
package h

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestTwiceHangs(t *testing.T) {
	child := exec.Command("sleep", "300")
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("HOSTAGE_PIDS"), []byte(fmt.Sprintln(os.Getpid(), child.Process.Pid)), 0o644)
	time.Sleep(time.Hour)
	if Twice(2) != 4 {
		t.Fatal("Twice(2) != 4")
	}
}
`

// promptly bounds shutdown and exit here: far more than they take, far
// less than the test's hour or its child's 300 s.
const promptly = 20 * time.Second

// The server answers shutdown and stops after exit promptly while a test
// hangs with a detached child holding its pipes, and the test is stopped.
func TestShutdownPastAHangingTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	dir, cache := t.TempDir(), lingeringDir(t)
	writeArchive(t, dir, hangingModule)
	pidFile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("HOSTAGE_PIDS", pidFile)
	var pids []int
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	open := func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }
	c := startServer(t, Options{Open: open})
	c.initialize(dir, `{"timeout":"10m"}`, protocol.ClientCapabilities{})
	for deadline := time.Now().Add(waitLimit); len(pids) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			notes := describe(c.notes())
			t.Fatalf("the test has not started after %s; the server said:\n%s", waitLimit, notes)
		}
		data, _ := os.ReadFile(pidFile)
		var test, child int
		if _, err := fmt.Sscan(string(data), &test, &child); err == nil {
			pids = []int{test, child}
		}
	}

	shutdownPromptly(t, c)
	// The test process dies with its run; the detached child is not the
	// server's to stop.
	for deadline := time.Now().Add(promptly); syscall.Kill(pids[0], 0) == nil && !zombie(pids[0]); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the test process %d still runs %s after exit", pids[0], promptly)
		}
	}
}

// lingeringDir is a temporary directory that the run cancelled at
// shutdown may still be writing to after the test ends (the server stops
// waiting for it, by design): its removal is retried until the run is gone.
func lingeringDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "server-hostage-cache")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for deadline := time.Now().Add(waitLimit); ; time.Sleep(100 * time.Millisecond) {
			err := os.RemoveAll(dir)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("removing %s: %v", dir, err)
				return
			}
		}
	})
	return dir
}

// zombie reports whether a process has ended and awaits its parent.
func zombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}

// Shutdown and exit do not wait for a run that does not end when
// cancelled.
func TestShutdownPastAStuckRun(t *testing.T) {
	dir, fake := newFakeModule(t)
	fake.hold = make(chan struct{})
	t.Cleanup(func() { close(fake.hold) })
	c := startServer(t, Options{Open: fake.open})
	c.initialize(dir, "", protocol.ClientCapabilities{})
	fake.waitCollecting()
	shutdownPromptly(t, c)
}

// shutdownPromptly sends shutdown and exit, failing the test unless the
// server answers the one and stops after the other within promptly.
func shutdownPromptly(t *testing.T, c *testClient) {
	t.Helper()
	answered := make(chan error, 1)
	go func() { answered <- c.call(protocol.MethodShutdown, nil, nil) }()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(promptly):
		t.Fatalf("shutdown not answered after %s", promptly)
	}
	c.notify(protocol.MethodExit, nil)
	select {
	case <-c.Stopped():
		if err := c.ServerErr(); err != nil {
			t.Errorf("Serve after shutdown and exit: %v", err)
		}
	case <-time.After(promptly):
		t.Fatalf("server still serving %s after exit", promptly)
	}
}
