package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"faultline/analysis"
	"faultline/internal/localize"
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
	Test    string `json:"test"`
	Package string `json:"package"`
	analysis.Location
}

// combine analyses up to maxTests failing tests (cached per test) and
// reorders the ranking by their verified fixes. When the analysis cannot
// run, the formula's ranking stands and the summary says why.
func (a *angelicFlags) combine(ctx context.Context, ws *spectra.Workspace, m *spectra.Matrix, r *spectra.Ranking) (*spectra.Ranking, *angelicSummary) {
	summary := &angelicSummary{Fixes: []angelicFix{}, Tests: []angelicRun{}}
	var tests []analysis.Target
	for _, t := range m.Tests {
		if t.Verdict.Failing() {
			summary.Failing++
			if len(tests) < a.maxTests {
				tests = append(tests, analysis.Target{Package: t.Package, Test: t.Name})
			}
		}
	}
	if len(tests) < summary.Failing {
		summary.Notes = append(summary.Notes, fmt.Sprintf("analysed the first %d of %d failing tests (-max-analyzed)", len(tests), summary.Failing))
	}
	cache, err := analysis.OpenResultCache(filepath.Join(ws.Module().CacheDir(), "angelic"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultline: %v; analysing without a cache\n", err)
		cache = nil
	}
	progress := newProgressLine()
	progress.message(fmt.Sprintf("angelic analysis of %d failing tests", len(tests)))
	out, err := analysis.AnalyzeCached(ctx, cache, ws.Module(), tests, analysis.Options{Budget: a.budget})
	progress.done()
	if err != nil {
		summary.Notes = append(summary.Notes, fmt.Sprintf("angelic analysis failed, ranking by %s alone: %v", r.Formula, err))
		fmt.Fprintf(os.Stderr, "faultline: angelic analysis failed, ranking by %s alone: %v\n", r.Formula, err)
		return r, summary
	}
	summary.Analyzed = len(out.Results)
	summary.Cached = out.Hits
	for i, res := range out.Results {
		summary.Tests = append(summary.Tests, angelicRun{Test: res.Test, Package: res.Package,
			Seconds: res.Total.Seconds(), SolveSeconds: res.Solve.Seconds(), Runs: res.Runs, Cached: out.Cached[i]})
		for _, c := range res.Candidates {
			if c.Verified && len(c.Locations) == 1 {
				summary.Fixes = append(summary.Fixes, angelicFix{Test: res.Test, Package: res.Package, Location: c.Locations[0]})
			}
		}
	}
	return localize.Combine(r, out.Results), summary
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
