package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.lsp.dev/uri"
)

// openTimes is one session opening a module with a seeded fault.
type openTimes struct {
	bin         string
	diagnostics time.Duration // open → first non-empty diagnostics
	tests       time.Duration // open → the end of the server's test run
	angelic     time.Duration // open → the end of the angelic analysis
	summary     string        // the analysis's closing message
	// After the analysis: a save of the faulty file with a comment line
	// appended (its package rebuilt and its tests run again).
	saveDiagnostics time.Duration // save → first non-empty diagnostics
	saveAngelic     time.Duration // save → the end of the analysis it starts
	hintP99         time.Duration // inlay hints on the whole faulty file
	hoverP99        time.Duration // hover on random lines of it
	serverHWM       int           // KiB
	workersHWM      int           // KiB, sampled
}

// latencyRequests is how many inlay-hint and hover requests each session
// times on the faulty file once the analysis is done.
const latencyRequests = 300

// runOpen measures, for each seeded fault, a new `faultline serve` session
// of each binary opening the module with the fault in, into an empty store
// with default settings (the angelic analysis on): open → first
// diagnostics, → the end of the test run, → the end of the analysis; then
// inlay-hint and hover latency on the faulty file, save → first
// diagnostics and save → the end of the analysis again; and the peak
// resident memory of the server and of its workers over the session. Plain
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
	fmt.Println("| module | fault | round | server | plain `go test -count=1 -cover ./...` | open → first diagnostics | → tests done | → last angelic finding | save → first diagnostics | save → last angelic finding | hint p99 | hover p99 | server peak RSS | workers peak RSS | load |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
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
		_, err = openSession(bins[0], root, path, filepath.Join(dir, "warm"))
		if werr := os.WriteFile(path, mutated, 0o644); err == nil {
			err = werr
		}
		if err != nil {
			return fmt.Errorf("%s: warming up: %w", f.module, err)
		}
		for round := 1; round <= rounds; round++ {
			plain, err := plainTests(root)
			if err != nil {
				return err
			}
			for j, bin := range bins {
				t, err := openSession(bin, root, path, filepath.Join(dir, fmt.Sprintf("session%d-%d-%d", i, round, j)))
				// The save appended a line: the next session opens the
				// fault as this one did.
				if werr := os.WriteFile(path, mutated, 0o644); err == nil {
					err = werr
				}
				if err != nil {
					return fmt.Errorf("%s with %s: %w", f.module, bin, err)
				}
				ms := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
				fmt.Printf("| %s | %s | %d | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %d MB | %d MB | %s |\n", f.module, strings.ReplaceAll(what, "|", "\\|"), round, bin,
					ms(plain), ms(t.diagnostics), ms(t.tests), ms(t.angelic), t.summary, ms(t.saveDiagnostics), ms(t.saveAngelic),
					t.hintP99.Round(10*time.Microsecond), t.hoverP99.Round(10*time.Microsecond), t.serverHWM>>10, t.workersHWM>>10, loadAverage())
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
// and waits for its first diagnostics and the end of its analysis, times
// requests on faulty, then saves faulty with a line appended and waits
// again.
func openSession(bin, root, faulty, state string) (openTimes, error) {
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
	text, err := os.ReadFile(faulty)
	if err != nil {
		return openTimes{}, err
	}
	if err := c.OpenFile(uri.URI("file://"+faulty), string(text)); err != nil {
		return openTimes{}, err
	}
	found, _, err := waitFindings(c, t0, root)
	if err != nil {
		return openTimes{}, err
	}
	ran, err := c.waitEvent(t0, testsRan(root), time.Minute)
	if err != nil {
		return openTimes{}, fmt.Errorf("end of the test run: %w", err)
	}
	t := openTimes{bin: bin, diagnostics: found.diagnostics, tests: ran.at.Sub(t0), angelic: found.angelic, summary: found.summary}
	hints, hovers, err := requestLatencies(c, "file://"+faulty, latencyRequests, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		return openTimes{}, fmt.Errorf("requests: %w", err)
	}
	t.hintP99, t.hoverP99 = percentile(hints, 0.99), percentile(hovers, 0.99)
	edited := string(text) + "\n// saved by bench/server\n"
	t1 := time.Now()
	if err := c.ChangeFile(uri.URI("file://"+faulty), edited); err != nil {
		return openTimes{}, err
	}
	if err := save(c, faulty, []byte(edited)); err != nil {
		return openTimes{}, err
	}
	again, _, err := waitFindings(c, t1, root)
	if err != nil {
		return openTimes{}, fmt.Errorf("after the save: %w", err)
	}
	t.saveDiagnostics, t.saveAngelic = again.diagnostics, again.angelic
	t.workersHWM = c.childPeak()
	if _, t.serverHWM, err = memory(c.cmd.Process.Pid); err != nil {
		return openTimes{}, err
	}
	if _, err := c.call("shutdown", nil); err != nil {
		return openTimes{}, err
	}
	c.notify("exit", nil)
	return t, nil
}
