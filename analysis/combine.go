//go:build cgo

package analysis

import (
	"sort"

	"faultline/spectra"
)

// Line is one source line, relative to the module root.
type Line struct {
	File string
	Line int
}

// FixCounts counts, for each line, the failing tests for which it hosts a
// verified single-location candidate: a line that alone fixes every failing
// test is the strongest evidence there is.
func FixCounts(results []TestResult) map[Line]int {
	fixes := map[Line]int{}
	for _, r := range results {
		seen := map[Line]bool{}
		for _, c := range r.Candidates {
			if !c.Verified || len(c.Locations) != 1 {
				continue
			}
			l := c.Locations[0]
			for n := l.Line; n <= l.EndLine; n++ {
				k := Line{l.File, n}
				if !seen[k] {
					seen[k] = true
					fixes[k]++
				}
			}
		}
	}
	return fixes
}

// Combine returns r with lines hosting a verified single-location fix for
// more failing tests first and the formula's order kept otherwise, each
// line's Fixes set and ranks and ties recomputed: two lines tie when they
// host fixes for as many tests and tied under the formula.
func Combine(r *spectra.Ranking, results []TestResult) *spectra.Ranking {
	fixes := FixCounts(results)
	out := *r
	out.Order = spectra.OrderCombined
	out.Lines = append([]spectra.RankedLine(nil), r.Lines...)
	for i := range out.Lines {
		out.Lines[i].Fixes = fixes[Line{out.Lines[i].File, out.Lines[i].Line}]
	}
	sort.SliceStable(out.Lines, func(i, j int) bool { return out.Lines[i].Fixes > out.Lines[j].Fixes })
	for start := 0; start < len(out.Lines); {
		end := start + 1
		for end < len(out.Lines) && out.Lines[end].Fixes == out.Lines[start].Fixes && out.Lines[end].Tie == out.Lines[start].Tie {
			end++
		}
		for i := start; i < end; i++ {
			out.Lines[i].Rank = i + 1
			out.Lines[i].Tie = [2]int{start + 1, end}
		}
		start = end
	}
	return &out
}
