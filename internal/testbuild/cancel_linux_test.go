package testbuild

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A go command whose context is cancelled is killed with what it started:
// here go run's program, which would otherwise outlive it (as a build's
// compilers would run on past an explanation's deadline).
func TestGoCommandCancelledLeavesNoProcess(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	files := map[string]string{
		"go.mod": "module example.com/sleeper\n\ngo 1.22\n",
		"main.go": `package main

import (
	"os"
	"strconv"
	"time"
)

func main() {
	os.WriteFile(os.Args[1]+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.Rename(os.Args[1]+".tmp", os.Args[1])
	time.Sleep(time.Hour)
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Open(dir, Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.goOutput(ctx, "", "run", ".", pidFile)
		done <- err
	}()
	var pid int
	for pid == 0 {
		select {
		case err := <-done:
			t.Fatalf("go run ended before its program started: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(string(data))
		}
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the cancelled go command did not return: the program it started still holds its output")
	}
	// Killed, the program is gone or a zombie waiting for its reaper.
	for i := 0; i < 500 && alive(pid); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("process %d that go run started is still running after go run was cancelled", pid)
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
