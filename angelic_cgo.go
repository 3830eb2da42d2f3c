//go:build cgo

// The angelic analysis calls Z3 through cgo. This file and angelic_nocgo.go
// (with fix.go, which needs the analysis throughout) are the command's seam
// between builds with and without cgo: the entry points of the analysis
// here, the reason it is missing there.

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"faultline/analysis"
	"faultline/server"
	"faultline/server/angelic"
	"faultline/spectra"
)

// angelicLocation is where a verified fix forces a value.
type angelicLocation = analysis.Location

// analyze analyses up to maxTests failing tests (cached per test) and
// reorders the ranking by their verified fixes. When the analysis fails,
// the formula's ranking stands and the summary says why; the error is
// angelicUnavailable's.
func (a *angelicFlags) analyze(ctx context.Context, ws *spectra.Workspace, m *spectra.Matrix, r *spectra.Ranking) (*spectra.Ranking, *angelicSummary, error) {
	if err := angelicUnavailable(); err != nil {
		return nil, nil, err
	}
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
		return r, summary, nil
	}
	summary.Analyzed = len(out.Results)
	summary.Cached = out.Hits
	for i, res := range out.Results {
		summary.Tests = append(summary.Tests, angelicRun{Test: res.Test, Package: res.Package,
			Seconds: res.Total.Seconds(), SolveSeconds: res.Solve.Seconds(), Runs: res.Runs, Cached: out.Cached[i]})
		for _, c := range res.Candidates {
			if c.Verified && len(c.Locations) == 1 {
				summary.Fixes = append(summary.Fixes, angelicFix{Test: res.Test, angelicLocation: c.Locations[0]})
			}
		}
	}
	return analysis.Combine(r, out.Results), summary, nil
}

// newAngelicProvider is the language server's angelic analysis, or
// angelicUnavailable's error.
func newAngelicProvider(budget time.Duration, maxTests int) (server.Provider, error) {
	if err := angelicUnavailable(); err != nil {
		return nil, err
	}
	return angelic.New(analysis.Options{Budget: budget}, maxTests), nil
}
