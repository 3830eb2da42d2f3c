package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// explainCommand explains the failing tests from the git history: which
// changes since a commit where the test passed make it fail, and how.
type explainCommand struct {
	resultFlags
	base      string
	maxTests  int
	budget    time.Duration
	maxReruns int
	strategy  string
	memory    int64
	verbose   bool
}

func (*explainCommand) Name() string  { return "explain" }
func (*explainCommand) Usage() string { return "[flags] [packages]" }
func (*explainCommand) ShortHelp() string {
	return "explain failing tests from the git history: the changes since a passing commit that make them fail"
}

func (c *explainCommand) SetFlags(fs *flag.FlagSet) {
	c.resultFlags.register(fs, "print the explanations as one JSON object")
	fs.StringVar(&c.base, "base", "", "compare with this revision (default: bisect the first-parent history for the latest commit where the test passes)")
	fs.IntVar(&c.maxTests, "max-explained", localize.DefaultMaxExplained, "explain at most this many failing tests")
	fs.DurationVar(&c.budget, "budget", 10*time.Minute, "time for reverting and rerunning, per failing test")
	fs.IntVar(&c.maxReruns, "max-reruns", 200, "reruns of the test with changes reverted, per failing test")
	fs.StringVar(&c.strategy, "strategy", "after", "after (causes of the failure, then delta debugging over their changes) or ddmin (delta debugging over every change)")
	fs.Int64Var(&c.memory, "memory", localize.DefaultMemory>>20, "memory in MB the explaining process may hold before it is stopped")
	fs.BoolVar(&c.verbose, "v", false, "print what the explanation is doing on standard error")
	if f := fs.Lookup("run"); f != nil {
		f.Usage = "explain only the failing tests matching the regular expression, as go test -run matches them (the packages' other tests run all the same)"
	}
}

func (c *explainCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, `For each failing leaf test (-run picks them), finds the changes since a
commit where the test passed that make it fail: the root changes (reverting
them makes the test pass), the auxiliary changes a revert needs to compile,
and the cause, the chain of executed statements from a change to the
failed check. Changes are the diff between the base and the working tree,
uncommitted edits included; reverts are built aside, and neither the files
nor the git state are touched.`)
}

// otherTestsTime bounds collecting the tests -run does not pick, whose
// spectra only sharpen an explanation (regress.Options.Passing).
const otherTestsTime = 30 * time.Second

func (c *explainCommand) Run(ctx context.Context, args ...string) error {
	if c.strategy != "after" && c.strategy != "ddmin" {
		return usagef("-strategy is after or ddmin, not %q", c.strategy)
	}
	ws, err := c.cf.openWorkspace()
	if err != nil {
		return err
	}
	svc, err := localize.New(ws)
	if err != nil {
		return err
	}
	if err := svc.CheckHistory(ctx); err != nil {
		return err
	}
	// The package's passing tests are collected too, whatever -run picks
	// to explain: their spectra tell apart changes that reverts cannot.
	run := c.cf.run
	every := c.cf
	every.run = ""
	var match func(string) bool
	whole := ctx
	if run != "" {
		if match, err = testNameMatcher(run); err != nil {
			return usagef("-run: %v", err)
		}
		var cancel context.CancelFunc
		whole, cancel = context.WithTimeout(ctx, otherTestsTime)
		defer cancel()
	}
	m, err := every.collectIn(whole, ws, args)
	if err != nil && ctx.Err() == nil && whole.Err() != nil {
		// Tests that hang or crawl: explaining needs only those -run
		// picks, and their changes are then told apart without the others.
		fmt.Fprintf(os.Stderr, "faultline: the packages' other tests ran longer than %s: explaining from the tests -run picks alone\n", otherTestsTime)
		m, err = c.cf.collectIn(ctx, ws, args)
	}
	if err != nil {
		return err
	}
	progress := newProgressLine()
	opts := localize.ExplainOptions{Base: c.base, MaxExplained: c.maxTests, Budget: c.budget, MaxReruns: c.maxReruns, RunTimeout: c.cf.timeout,
		Strategy: c.strategy, Memory: c.memory << 20, Match: match, Trace: os.Getenv("FAULTLINE_DEBUG") != "",
		Progress: func(msg string) {
			if c.verbose {
				fmt.Fprintln(os.Stderr, msg)
			} else {
				progress.message(msg)
			}
		}}
	var each func(localize.Explanation)
	if !c.asJSON {
		each = func(ex localize.Explanation) {
			progress.done()
			writeExplanationText(os.Stdout, ex)
		}
	}
	exs, err := svc.Explain(ctx, m, opts, each)
	progress.done()
	if err != nil {
		return err
	}
	if c.asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(exs); err != nil {
			return fmt.Errorf("writing JSON: %w", err)
		}
		return buildFailure(os.Stderr, m)
	}
	switch {
	case exs.Failing == 0:
		fmt.Println(noFailureMessage(m))
	case len(exs.Tests) == 0 && run != "":
		fmt.Printf("no failing test matches -run %q (failing: %s)\n", run, count(exs.Failing, "test"))
	}
	for _, n := range exs.Notes {
		fmt.Fprintf(os.Stderr, "faultline: %s\n", n)
	}
	return buildFailure(os.Stderr, m)
}

// writeExplanationText prints one explanation for a person: the base, the
// changes with their old and new text, and the cause from the change to
// the failed check.
func writeExplanationText(w io.Writer, ex localize.Explanation) {
	fmt.Fprintf(w, "%s (%s)\n", ex.Test, ex.Package)
	if ex.Base != "" {
		how := ex.BaseFound
		if ex.BaseFound == "bisected" {
			how = fmt.Sprintf("bisected: %s run, %d from the cache", count(ex.Bisected, "commit"), ex.BisectedCached)
		}
		fmt.Fprintf(w, "  base %s %q (%s)\n", shortHash(ex.Base), ex.BaseSubject, how)
		if ex.FirstBad != "" {
			fmt.Fprintf(w, "  first failing commit %s\n", shortHash(ex.FirstBad))
		}
	}
	if ex.Message != "" {
		fmt.Fprintf(w, "  %s\n", ex.Message)
	}
	if line := noRootLine(ex); line != "" {
		fmt.Fprintf(w, "  %s\n", line)
	}
	for i, c := range ex.Changes {
		fmt.Fprintf(w, "  [%d] %s change %s\n", i+1, c.Role, c.Where())
		writeDiffLines(w, "-", c.Old)
		writeDiffLines(w, "+", c.New)
	}
	if len(ex.Cause) > 0 {
		fmt.Fprintln(w, "  cause, from the change to the failed check:")
		for _, s := range ex.Cause {
			ref := ""
			if s.Change >= 0 {
				ref = fmt.Sprintf(" [%d]", s.Change+1)
			}
			text := strings.TrimSpace(s.Text)
			if text != "" {
				text = "  " + text
			}
			fmt.Fprintf(w, "    %s:%d%s%s  (%s)\n", s.File, s.Line, ref, text, s.Why)
		}
	}
	for _, n := range ex.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if ex.Total > 0 {
		fmt.Fprintf(w, "  %s since the base, %s, %s, %.1fs\n", count(ex.Total, "change"), count(ex.Reruns, "rerun"), count(ex.Builds, "build"), ex.Seconds)
	}
	if ex.Cached {
		fmt.Fprintln(w, "  (explained before for the same content: from the cache)")
	}
	for _, p := range ex.Phases {
		fmt.Fprintf(w, "  phase %-20s %6.1fs  x%d\n", p.Name, p.Seconds, p.Count)
	}
	fmt.Fprintln(w)
}

// noRootLine says why the causes gave no root change and where the
// changes shown come from instead; "" when the causes gave them.
func noRootLine(ex localize.Explanation) string {
	if ex.NoRoot == "" {
		return ""
	}
	line := "no root change among the causes: " + ex.NoRoot.Text()
	switch ex.Found {
	case "executed":
		line += "; fell back to delta debugging (ddmin) over the changes the failing run executes: the smallest set whose revert passes"
	case "all":
		line += "; fell back to delta debugging (ddmin) over every change: the smallest set whose revert passes"
	case "partial":
		line += "; fell back to delta debugging (ddmin), whose budget ran out: the smallest set tried whose revert passes"
	}
	return line
}

func writeDiffLines(w io.Writer, mark, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(w, "      %s %s\n", mark, l)
	}
}

// count is "1 change", "2 changes".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
