//go:build unix

package spectra

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostageBound is far more than the detached module's tests take and far
// less than its child's 300 s: a collection that waits for the child
// fails it.
const hostageBound = 60 * time.Second

// killDetached kills the children the detached module's tests left,
// listed in the file pids.
func killDetached(t *testing.T, pids string) {
	data, _ := os.ReadFile(pids)
	for _, f := range strings.Fields(string(data)) {
		var pid int
		if _, err := fmt.Sscan(f, &pid); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// collectWithin runs a collection and fails the test when it has not
// ended within hostageBound.
func collectWithin(t *testing.T, ctx context.Context, ws *Workspace, co CollectOptions) (*Matrix, error) {
	t.Helper()
	type result struct {
		m   *Matrix
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := ws.Collect(ctx, co)
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-time.After(hostageBound):
		t.Fatalf("the collection has not ended after %s", hostageBound)
		return nil, nil
	}
}

// A test's detached child holds its output open; the collection ends with
// the test process and records the tests' verdicts.
func TestCollectEndsWithTheTestProcess(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("DETACHED_PIDS", pids)
	ws, _ := workspace(t, "detached.txtar")
	t.Cleanup(func() { killDetached(t, pids) })
	m, err := collectWithin(t, context.Background(), ws, CollectOptions{Run: "^(TestDetached|TestAdd)$", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, test := range m.Tests {
		got[test.Name] = test.Verdict
	}
	if got["TestDetached"] != Pass || got["TestAdd"] != Fail {
		t.Errorf("verdicts %v, want TestDetached pass, TestAdd fail", got)
	}
	if _, err := os.Stat(pids); err != nil {
		t.Errorf("the test left no detached child: %v", err)
	}
}

// Cancelling a collection whose test hangs, with a detached child holding
// the pipes, ends it.
func TestCollectCancelledPastADetachedChild(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("DETACHED_PIDS", pids)
	t.Setenv("DETACHED_HANG", "1")
	ws, _ := workspace(t, "detached.txtar")
	t.Cleanup(func() { killDetached(t, pids) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the child is running: TestHang then runs or is next.
		for ctx.Err() == nil {
			if _, err := os.Stat(pids); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := collectWithin(t, ctx, ws, CollectOptions{Run: "^(TestDetached|TestHang)$", Timeout: 10 * time.Minute, Parallel: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("collection ended with %v, want it cancelled", err)
	}
}
