package rank

import "fmt"

// Run is one test's contribution to a spectrum matrix.
type Run struct {
	Failing bool
	Hits    []int32 // indices of the elements the test executed, strictly increasing
}

// CountMatrix computes the spectrum of each of nElems elements from the
// runs. It rejects hits that are out of range, unsorted or repeated, since
// any of those would silently corrupt the counts.
func CountMatrix(nElems int, runs []Run) ([]Counts, error) {
	if nElems < 0 {
		return nil, fmt.Errorf("count matrix: negative element count %d", nElems)
	}
	// Two dense int32 tallies stay in cache far better than one []Counts.
	ef := make([]int32, nElems)
	ep := make([]int32, nElems)
	failed, passed := 0, 0
	for r, run := range runs {
		tally := ep
		if run.Failing {
			tally, failed = ef, failed+1
		} else {
			passed++
		}
		prev := int32(-1)
		for _, h := range run.Hits {
			if h <= prev || int(h) >= nElems {
				return nil, fmt.Errorf("count matrix: run %d: hit %d after %d is unsorted, repeated or outside [0, %d)", r, h, prev, nElems)
			}
			tally[h]++
			prev = h
		}
	}
	counts := make([]Counts, nElems)
	for i := range counts {
		f, p := int(ef[i]), int(ep[i])
		counts[i] = Counts{EF: f, EP: p, NF: failed - f, NP: passed - p}
	}
	return counts, nil
}
