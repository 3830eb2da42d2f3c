package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// testCommand is a drop-in for go test that records spectra in the store,
// so that the language server sees test runs made in a terminal.
type testCommand struct {
	cf      collectFlags
	verbose bool
	short   bool
	tags    string
	race    bool
}

func (*testCommand) Name() string      { return "test" }
func (*testCommand) Usage() string     { return "[flags] [packages]" }
func (*testCommand) ShortHelp() string { return "run tests like go test and record their spectra" }

func (c *testCommand) SetFlags(fs *flag.FlagSet) {
	c.cf = collectFlags{namesStopped: true, verdictsOnly: true}
	c.cf.register(fs)
	fs.IntVar(&c.cf.parallel, "p", 0, "packages built and run at once, as go test -p (0: one per CPU)")
	fs.BoolVar(&c.verbose, "v", false, "print every test, as go test -v")
	fs.BoolVar(&c.short, "short", false, "tell long-running tests to shorten their run time, as go test -short")
	fs.StringVar(&c.tags, "tags", "", "comma-separated build tags, as go test -tags")
	fs.BoolVar(&c.race, "race", false, "enable the race detector, as go test -race")
	fs.Int("count", 1, "accepted for compatibility; tests always run uncached by inputs")
	fs.Bool("cover", false, "accepted for compatibility; spectra are always recorded")
}

func (c *testCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, `Runs tests like go test and records their spectra for faultline rank and the
language server. Packages whose inputs did not change are not run again.`)
}

func (c *testCommand) Run(ctx context.Context, args ...string) error {
	if c.short {
		c.cf.testFlags = append(c.cf.testFlags, "-test.short")
	}
	if c.tags != "" {
		c.cf.buildFlags = append(c.cf.buildFlags, "-tags="+c.tags)
	}
	if c.race {
		c.cf.buildFlags = append(c.cf.buildFlags, "-race")
	}
	c.cf.passingOutput = c.verbose
	_, m, err := c.cf.collect(ctx, args)
	if err != nil {
		return err
	}
	if writeTestReport(os.Stdout, m, c.verbose) {
		return exitError(1)
	}
	return nil
}

// writeTestReport prints results the way go test does: failing tests with
// their output, one line per package, and a closing count. It reports
// whether anything failed.
func writeTestReport(w io.Writer, m *localize.Matrix, verbose bool) bool {
	byPkg := map[string][]localize.TestRun{}
	for _, t := range m.Tests {
		byPkg[t.Package] = append(byPkg[t.Package], t)
	}
	var pkgs []string
	for pkg := range byPkg {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	counts := map[localize.Verdict]int{}
	anyFailed := false
	for _, pkg := range pkgs {
		if msg, ok := m.BuildErrors[pkg]; ok {
			fmt.Fprintf(w, "# %s\n%s\nFAIL\t%s [build failed]\n", pkg, msg, pkg)
			anyFailed = true
			continue
		}
		var elapsed time.Duration
		failed := false
		for _, t := range byPkg[pkg] {
			counts[t.Verdict]++
			elapsed += t.Elapsed
			label := map[localize.Verdict]string{localize.VerdictPass: "PASS", localize.VerdictSkip: "SKIP"}[t.Verdict]
			// A test the memory bound stopped did not pass: the package
			// is not ok, though the test counts as neither failing nor
			// passing in the spectra.
			if t.Verdict.Failing() || t.Verdict == localize.VerdictMemory {
				failed = true
				label = "FAIL"
			}
			if label != "FAIL" && !verbose {
				continue
			}
			suffix := ""
			if t.Verdict == localize.VerdictTimeout || t.Verdict == localize.VerdictPanic || t.Verdict == localize.VerdictMemory {
				suffix = " [" + string(t.Verdict) + "]"
			}
			fmt.Fprintf(w, "--- %s: %s (%.2fs)%s\n", label, t.Name, t.Elapsed.Seconds(), suffix)
			if out := strings.TrimRight(t.Output, "\n"); out != "" && (label == "FAIL" || verbose) {
				fmt.Fprintln(w, out)
			}
		}
		// A result reused from the store is marked as go test marks one
		// from its cache.
		took := fmt.Sprintf("%.3fs", elapsed.Seconds())
		if m.Cached[pkg] {
			took = "(cached)"
		}
		if failed {
			anyFailed = true
			fmt.Fprintf(w, "FAIL\t%s\t%s\n", pkg, took)
		} else {
			fmt.Fprintf(w, "ok  \t%s\t%s\n", pkg, took)
		}
	}
	failing := counts[localize.VerdictFail] + counts[localize.VerdictPanic] + counts[localize.VerdictTimeout]
	summary := fmt.Sprintf("%d passed, %d failed", counts[localize.VerdictPass], failing)
	if counts[localize.VerdictSkip] > 0 {
		summary += fmt.Sprintf(", %d skipped", counts[localize.VerdictSkip])
	}
	if counts[localize.VerdictMemory] > 0 {
		summary += fmt.Sprintf(", %d stopped by the memory bound (-test-memory raises it)", counts[localize.VerdictMemory])
	}
	fmt.Fprintln(w, summary)
	return anyFailed
}
