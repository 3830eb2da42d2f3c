package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/faultline-go/faultline/internal/localize"
)

// fixCommand prints the angelic fix candidates of the failing leaf tests,
// as the localization service selects and analyses them.
type fixCommand struct {
	resultFlags
	af         angelicFlags
	maxSize    int
	maxRuns    int
	unverified bool
}

func (*fixCommand) Name() string  { return "fix" }
func (*fixCommand) Usage() string { return "[flags] [packages]" }
func (*fixCommand) ShortHelp() string {
	return "find and verify angelic fix candidates for the failing tests"
}

func (c *fixCommand) SetFlags(fs *flag.FlagSet) {
	c.resultFlags.register(fs, "print the candidates as one JSON object")
	c.af.register(fs)
	fs.IntVar(&c.maxSize, "max-size", 2, "largest candidate, in locations")
	fs.IntVar(&c.maxRuns, "max-runs", 150, "test processes per failing test (refinement, verification, replacement)")
	fs.BoolVar(&c.unverified, "unverified", false, "also print candidates whose forced run did not pass")
}

func (c *fixCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, `For each failing leaf test, prints minimal sets of expressions whose other
values (shown) make the test pass; each is verified by running the test
with the values forced.`)
}

func (c *fixCommand) Run(ctx context.Context, args ...string) error {
	if err := localize.AnalysisAvailable(); err != nil {
		return err
	}
	ws, m, err := c.cf.collect(ctx, args)
	if err != nil {
		return err
	}
	svc, err := localize.New(ws)
	if err != nil {
		return err
	}
	opts := c.af.options()
	opts.Angelic, opts.MaxSize, opts.MaxRuns, opts.KeepUnverified = true, c.maxSize, c.maxRuns, c.unverified
	progress := newProgressLine()
	loc, err := svc.Localize(ctx, m, opts, progress.angelic)
	progress.done()
	if err != nil {
		return err
	}
	var results []localize.TestResult
	if a := loc.Angelic; a != nil {
		results = a.Results
		writeServiceNotes(os.Stderr, a.Notes)
	}
	if c.asJSON {
		if err := writeFixJSON(os.Stdout, results, loc.Mutation); err != nil {
			return err
		}
		return buildFailure(os.Stderr, m)
	}
	if failingTests(m) == 0 {
		fmt.Println(noFailureMessage(m))
	} else {
		writeFixText(os.Stdout, results, localize.FileLines(m.Root))
		writeMutationText(os.Stdout, loc.Mutation)
	}
	return buildFailure(os.Stderr, m)
}

// fixOutput is the JSON form of faultline fix -json: the analyses, and the
// verified operator fixes when -mutants asked for them.
type fixOutput struct {
	localize.AnalysisReport
	OperatorFixes []localize.OperatorFix `json:"operatorFixes,omitempty"`
}

func writeFixJSON(w io.Writer, results []localize.TestResult, mut *localize.Mutation) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	out := fixOutput{AnalysisReport: localize.NewAnalysisReport(results)}
	if mut != nil {
		out.OperatorFixes = mut.Fixes
	}
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// writeFixText prints each test's candidates, each as edits of its source
// lines (src reads the module's files), then the analysis's notes once each.
func writeFixText(w io.Writer, results []localize.TestResult, src localize.SourceLines) {
	for _, r := range results {
		fmt.Fprintf(w, "%s (%s)\n", r.Test, r.Package)
		if len(r.Candidates) == 0 {
			fmt.Fprintln(w, "  no candidate")
		}
		for i, c := range r.Candidates {
			status := "verified"
			switch {
			case !c.Verified:
				status = "not verified"
			case c.Avoids:
				status = "verified, but it steers the run around the failing check: not a fix"
			}
			if how := localize.FoundWords(c.Found); how != "" {
				status += ", found by " + how
			}
			fmt.Fprintf(w, "  candidate %d (%s):\n", i+1, status)
			for _, e := range localize.Edits(c.Locations, src) {
				fmt.Fprintf(w, "    %s\n", e)
			}
		}
	}
	writeNotes(w, groupNotes(results, "fix"))
}
