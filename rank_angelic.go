package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"faultline/solver/z3"
	"faultline/spectra"
)

// angelicFlags choose whether and how far faultline rank combines the
// spectrum ranking with the angelic analysis of the failing tests.
type angelicFlags struct {
	enabled  bool
	budget   time.Duration
	maxTests int
}

func (a *angelicFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.enabled, "angelic", true, "order lines by verified angelic fixes first, then by the formula (false: the formula alone)")
	fs.DurationVar(&a.budget, "budget", 10*time.Second, "angelic analysis time per failing test")
	fs.IntVar(&a.maxTests, "max-analyzed", 10, "analyse at most this many failing tests (results are cached per test)")
}

// angelicSummary is what the analysis contributed to a combined ranking.
type angelicSummary struct {
	Failing  int          `json:"failing"`  // failing tests in the ranking
	Analyzed int          `json:"analyzed"` // failing tests analysed
	Cached   int          `json:"cached"`   // of which taken from the cache
	Fixes    []angelicFix `json:"fixes"`    // verified single-location fixes
	Tests    []angelicRun `json:"tests"`    // what each analysed test cost
	Notes    []string     `json:"notes,omitempty"`
}

// angelicRun is the cost of one failing test's analysis, as measured when
// it ran (a cached result keeps the figures of the run that made it).
type angelicRun struct {
	Test         string  `json:"test"`
	Package      string  `json:"package"`
	Seconds      float64 `json:"seconds"`      // the whole analysis
	SolveSeconds float64 `json:"solveSeconds"` // of which in the solver
	Runs         int     `json:"runs"`         // test runs, refinement and verification
	Cached       bool    `json:"cached"`
}

// angelicFix is one verified single-location fix of one failing test.
type angelicFix struct {
	Test string `json:"test"`
	angelicLocation
}

// combine analyses up to maxTests failing tests (cached per test) and
// reorders the ranking by their verified fixes. When the analysis cannot
// run, the formula's ranking stands and the summary says why; when this
// faultline cannot run it at all, one line on standard error says so.
func (a *angelicFlags) combine(ctx context.Context, ws *spectra.Workspace, m *spectra.Matrix, r *spectra.Ranking) (*spectra.Ranking, *angelicSummary) {
	combined, summary, err := a.analyze(ctx, ws, m, r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultline: ranking by %s alone: %v\n", r.Formula, err)
		return r, nil
	}
	return combined, summary
}

// angelicUnavailable says why this faultline cannot run the angelic
// analysis (no cgo, no usable libz3), or returns nil.
func angelicUnavailable() error {
	if err := z3.Available(); err != nil {
		return fmt.Errorf("the angelic analysis needs Z3: %w", err)
	}
	return nil
}

// writeText prints the fixes behind a combined ranking.
func (s *angelicSummary) writeText(w io.Writer) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\nangelic analysis: %d of %d failing tests analysed (%d from the cache), %d verified single-location fixes\n",
		s.Analyzed, s.Failing, s.Cached, len(s.Fixes))
	for i, f := range s.Fixes {
		if i == 5 {
			fmt.Fprintf(w, "  ... and %d more (faultline fix lists them all)\n", len(s.Fixes)-5)
			break
		}
		fmt.Fprintf(w, "  %s:%d:%d  %s  %s -> %s  makes %s pass\n", f.File, f.Line, f.Col, f.Expr, f.Original, f.Angelic, f.Test)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}
