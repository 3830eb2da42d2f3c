package analysis

import "sort"

// Line is one source line, relative to the module root.
type Line struct {
	File string
	Line int
}

// CombinedOrder reorders lines ranked by a spectrum formula (best first)
// with the fix candidates: lines hosting a verified single-location
// candidate for every analysed failing test come first, then lines hosting
// one for more failing tests before fewer; the spectrum order is kept
// within each group and for lines without such a candidate.
func CombinedOrder(spectrum []Line, results []TestResult) []Line {
	fixes := map[Line]int{} // line -> failing tests it fixes alone
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
	out := append([]Line(nil), spectrum...)
	sort.SliceStable(out, func(i, j int) bool { return fixes[out[i]] > fixes[out[j]] })
	return out
}
