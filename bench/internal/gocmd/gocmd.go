// Package gocmd runs the commands the benchmarks drive (go test, git,
// faultline) with a hard deadline on the whole process group, and reads go
// test's JSON events into one verdict per test.
package gocmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Result is what a finished child process left behind.
type Result struct {
	Stdout, Stderr []byte
	TimedOut       bool
	Elapsed        time.Duration
}

// Run runs name args in dir with extra environment variables, killing the
// whole process group (go test and its test binary) after timeout. A
// non-zero exit is returned as an *exec.ExitError alongside the output.
func Run(ctx context.Context, dir string, env []string, timeout time.Duration, name string, args ...string) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Elapsed: time.Since(start)}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
		return res, fmt.Errorf("%s %s: killed after %v", name, strings.Join(args, " "), timeout)
	}
	return res, err
}

// Tail returns the last n bytes of b as text, for error messages.
func Tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// GoEnv is the environment every go command of a benchmark runs with: no
// workspace file above a temporary module, no toolchain switch.
func GoEnv() []string {
	return []string{"GOWORK=off", "GOTOOLCHAIN=local"}
}
