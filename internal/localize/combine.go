package localize

import (
	"slices"

	"github.com/faultline-go/faultline/analysis"
)

// line is one source line, relative to the module root.
type line struct {
	file string
	line int
}

// fixCounts counts, for each line, the failing tests for which it hosts a
// verified single-location candidate: a line that alone fixes every failing
// test is the strongest evidence there is.
func fixCounts(results []analysis.TestResult) map[line]int {
	fixes := map[line]int{}
	for _, r := range results {
		seen := map[line]bool{}
		for _, c := range r.Candidates {
			if !c.Verified || len(c.Locations) != 1 {
				continue
			}
			l := c.Locations[0]
			for n := l.Line; n <= l.EndLine; n++ {
				k := line{l.File, n}
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
// line's Fixes and OrderScore set and its rank and tie group recomputed:
// two lines tie when they host fixes for as many tests and tied under the
// formula.
func Combine(r *Ranking, results []analysis.TestResult) *Ranking {
	fixes := fixCounts(results)
	out := *r
	out.Order = OrderCombined
	out.Lines = slices.Clone(r.Lines)
	n := float64(len(out.Lines))
	for i := range out.Lines {
		l := &out.Lines[i]
		l.Fixes = fixes[line{l.File, l.Line}]
		// The key (fixes, then the formula's tie group) as one number: the
		// formula's place, in (0, 1), lines of one tie group sharing it.
		place := float64(l.Tie[0]+l.Tie[1]) / 2
		score := float64(l.Fixes) + 1 - place/(n+1)
		l.OrderScore = &score
	}
	slices.SortStableFunc(out.Lines, func(a, b RankedLine) int { return b.Fixes - a.Fixes })
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

// ruleReasons sets each line's Because for an order made by a rule, not a
// model, from the line's evidence: under the combined order, the searches
// that found the verified fixes a line hosts (angelic.solver, .switch,
// .replace), then, under either rule, the formula's rank. A rule weighs
// nothing, so each reason's contribution is its value.
func ruleReasons(r *Ranking) {
	formula := "spectrum." + r.Formula + ".rank"
	for i := range r.Lines {
		l := &r.Lines[i]
		var why []Reason
		add := func(column string) {
			if v := l.Evidence[column]; v != 0 {
				why = append(why, Reason{Evidence: column, Value: v, Contribution: v})
			}
		}
		if r.Order == OrderCombined && l.Fixes > 0 {
			for _, search := range []string{"solver", "switch", "replace"} {
				add("angelic." + search)
			}
		}
		add(formula)
		l.Because = why
	}
}
