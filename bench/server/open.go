package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// openTimes is one session opening a module with a seeded fault.
type openTimes struct {
	bin         string
	diagnostics time.Duration // open → first non-empty diagnostics
	tests       time.Duration // open → the end of the server's test run
	angelic     time.Duration // open → the end of the angelic analysis
	summary     string        // the analysis's closing message
	serverHWM   int           // KiB
	workersHWM  int           // KiB, sampled
}

// runOpen measures, for each seeded fault, a new `faultline serve` session
// of each binary opening the module with the fault in, into an empty store
// with default settings (the angelic analysis on): open → first
// diagnostics, → the end of the test run, → the end of the analysis, and
// the peak resident memory of the server and of its workers. Plain
// `go test -count=1 -cover ./...` on the same tree is timed before each
// round. A first session and a first plain run, not timed, warm the build
// cache for both.
func runOpen(bins []string, faultsPath string, rounds int, keep bool) error {
	faults, err := readFaults(faultsPath)
	if err != nil {
		return fmt.Errorf("faults: %w", err)
	}
	dir, err := os.MkdirTemp("", "faultline-bench-open-*")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	fmt.Printf("Open → first diagnostics, one new `faultline serve` session each, empty store, default settings (angelic on), %d CPUs.\n\n", runtime.NumCPU())
	fmt.Println("| module | fault | round | server | plain `go test -count=1 -cover ./...` | open → first diagnostics | → tests done | → last angelic finding | server peak RSS | workers peak RSS | load |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for i, f := range faults {
		root, err := materialize(f.module, filepath.Join(dir, fmt.Sprintf("fault%d", i)))
		if err != nil {
			return err
		}
		path := filepath.Join(root, filepath.FromSlash(f.file))
		orig, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if f.offset+len(f.old) > len(orig) || string(orig[f.offset:f.offset+len(f.old)]) != f.old {
			return fmt.Errorf("%s %s@%d: %q is not there", f.module, f.file, f.offset, f.old)
		}
		mutated := append(append(append([]byte{}, orig[:f.offset]...), f.new...), orig[f.offset+len(f.old):]...)
		if err := os.WriteFile(path, mutated, 0o644); err != nil {
			return err
		}
		what := fmt.Sprintf("%s:%d %s→%s", f.file, strings.Count(string(orig[:f.offset]), "\n")+1, f.old, f.new)

		if _, err := plainTests(root); err != nil {
			return err
		}
		if _, err := openSession(bins[0], root, filepath.Join(dir, "warm")); err != nil {
			return fmt.Errorf("%s: warming up: %w", f.module, err)
		}
		for round := 1; round <= rounds; round++ {
			plain, err := plainTests(root)
			if err != nil {
				return err
			}
			for j, bin := range bins {
				t, err := openSession(bin, root, filepath.Join(dir, fmt.Sprintf("session%d-%d-%d", i, round, j)))
				if err != nil {
					return fmt.Errorf("%s with %s: %w", f.module, bin, err)
				}
				fmt.Printf("| %s | %s | %d | %s | %s | %s | %s | %s (%s) | %d MB | %d MB | %s |\n", f.module, strings.ReplaceAll(what, "|", "\\|"), round, bin,
					plain.Round(10*time.Millisecond), t.diagnostics.Round(10*time.Millisecond), t.tests.Round(10*time.Millisecond),
					t.angelic.Round(10*time.Millisecond), t.summary, t.serverHWM>>10, t.workersHWM>>10, loadAverage())
			}
		}
	}
	return nil
}

// plainTests times `go test -count=1 -cover ./...` in root; failing tests
// are expected.
func plainTests(root string) (time.Duration, error) {
	cmd := exec.Command("go", "test", "-count=1", "-cover", "./...")
	cmd.Dir = root
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(t0)
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return 0, fmt.Errorf("go test in %s: %v: %s", root, err, out)
	}
	return d, nil
}

// openSession starts a server with its own cache under state, opens root
// and waits for its first diagnostics and the end of its analysis.
func openSession(bin, root, state string) (openTimes, error) {
	t0 := time.Now()
	c, err := startServer(bin, state)
	if err != nil {
		return openTimes{}, err
	}
	defer c.stop()
	if _, err := c.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + root,
		"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true},
			"experimental": trustingClient["experimental"]},
	}); err != nil {
		return openTimes{}, err
	}
	c.notify("initialized", map[string]any{})
	found, _, err := waitFindings(c, t0, root)
	if err != nil {
		return openTimes{}, err
	}
	ran, err := c.waitEvent(t0, testsRan(root), time.Minute)
	if err != nil {
		return openTimes{}, fmt.Errorf("end of the test run: %w", err)
	}
	t := openTimes{bin: bin, diagnostics: found.diagnostics, tests: ran.at.Sub(t0), angelic: found.angelic, summary: found.summary, workersHWM: c.childPeak()}
	if _, t.serverHWM, err = memory(c.cmd.Process.Pid); err != nil {
		return openTimes{}, err
	}
	if _, err := c.call("shutdown", nil); err != nil {
		return openTimes{}, err
	}
	c.notify("exit", nil)
	return t, nil
}
