//go:build linux

package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// hostageBound is far more than the hostage module's tests need to start
// or to end once asked, and far less than its processes' 300 s and hour.
const hostageBound = 90 * time.Second

// hostage starts faultline with args on the hostage module, in a temporary
// directory of the test's own, and waits until its TestHang runs. It
// returns the command and the pids the module's tests recorded, by kind.
func hostage(t *testing.T, args ...string) (*exec.Cmd, string, map[string][]int) {
	t.Helper()
	dir := txtartest.Extract(t, "testdata/hostage.txtar")
	tmp := t.TempDir()
	pids := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(faultlineBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "FAULTLINE_CACHE="+t.TempDir(), "HOSTAGE_PIDS="+pids)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		for _, list := range recordedPids(pids) {
			for _, pid := range list {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	deadline := time.Now().Add(hostageBound)
	for len(recordedPids(pids)["hang"]) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("TestHang has not started after %s\n%s", hostageBound, stderr.Bytes())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmd, tmp, recordedPids(pids)
}

// recordedPids reads the hostage module's pid file.
func recordedPids(path string) map[string][]int {
	data, _ := os.ReadFile(path)
	pids := map[string][]int{}
	for _, line := range strings.Split(string(data), "\n") {
		what, n, ok := strings.Cut(line, " ")
		if pid, err := strconv.Atoi(n); ok && err == nil {
			pids[what] = append(pids[what], pid)
		}
	}
	return pids
}

// running reports whether a process is alive: not gone and not a zombie.
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesized command name.
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] != 'Z' && data[i+2] != 'X'
}

// waitGone waits until none of pids runs, failing the test after
// hostageBound.
func waitGone(t *testing.T, what string, pids []int) {
	t.Helper()
	deadline := time.Now().Add(hostageBound)
	for _, pid := range pids {
		for running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("%s process %d still runs %s after faultline was killed", what, pid, hostageBound)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// faultline killed with SIGKILL takes its test processes with it, and the
// next faultline removes the temporary directories it left and stops what
// is left of their process groups.
func TestKilledRankLeavesNoTestProcess(t *testing.T) {
	cmd, tmp, pids := hostage(t, "rank", "-angelic=false", "./...")
	left, _ := filepath.Glob(filepath.Join(tmp, "faultline-*"))
	if len(left) == 0 {
		t.Fatalf("faultline runs tests without a temporary directory in %s", tmp)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, "the hanging test", pids["hang"])

	next := exec.Command(faultlineBin, "rank", "-h")
	next.Env = append(os.Environ(), "TMPDIR="+tmp)
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("faultline rank -h: %v\n%s", err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "faultline-*")); len(left) != 0 {
		t.Errorf("the next faultline left the killed one's directories: %v", left)
	}
	// The hanging test's own child outlived it; the next faultline stopped it.
	waitGone(t, "the hanging test's child", pids["groupchild"])
}

// faultline test -v ends promptly on SIGTERM, past a hanging test and a
// detached child holding its pipes, and stops its test processes.
func TestTestCommandHonoursSIGTERM(t *testing.T) {
	cmd, tmp, pids := hostage(t, "test", "-v", "./...")
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(hostageBound):
		t.Fatalf("faultline test -v still runs %s after SIGTERM", hostageBound)
	}
	waitGone(t, "the hanging test", pids["hang"])
	if left, _ := filepath.Glob(filepath.Join(tmp, "faultline-*")); len(left) != 0 {
		t.Errorf("faultline test left its directories: %v", left)
	}
}
