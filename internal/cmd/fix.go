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

// runFix prints the angelic fix candidates of the failing leaf tests, as
// the localization service selects and analyses them.
func runFix(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fix", flag.ContinueOnError)
	var cf collectFlags
	cf.register(fs)
	var af angelicFlags
	af.register(fs)
	asJSON := fs.Bool("json", false, "print the candidates as one JSON object")
	maxSize := fs.Int("max-size", 2, "largest candidate, in locations")
	maxRuns := fs.Int("max-runs", 150, "test processes per failing test (refinement, verification, replacement)")
	unverified := fs.Bool("unverified", false, "also print candidates whose forced run did not pass")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: faultline fix [flags] [packages]\n\nFor each failing leaf test, prints minimal sets of expressions whose other\nvalues (shown) make the test pass; each is verified by running the test\nwith the values forced.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := localize.AnalysisAvailable(); err != nil {
		return err
	}
	ws, m, err := cf.collect(ctx, fs.Args())
	if err != nil {
		return err
	}
	svc, err := localize.New(ws)
	if err != nil {
		return err
	}
	opts := af.options()
	opts.Angelic, opts.MaxSize, opts.MaxRuns, opts.KeepUnverified = true, *maxSize, *maxRuns, *unverified
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
	if *asJSON {
		if err := writeFixJSON(os.Stdout, results); err != nil {
			return err
		}
		return buildFailure(os.Stderr, m)
	}
	if failingTests(m) == 0 {
		fmt.Println(noFailureMessage(m))
	} else {
		writeFixText(os.Stdout, results, localize.FileLines(m.Root))
	}
	return buildFailure(os.Stderr, m)
}

func writeFixJSON(w io.Writer, results []localize.TestResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(localize.NewAnalysisReport(results)); err != nil {
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
