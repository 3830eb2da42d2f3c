package rank

import (
	"fmt"
	"runtime"
	"sync"
)

// Run is one test's contribution to a spectrum matrix.
type Run struct {
	Failing bool
	Hits    []int32 // indices of the elements the test executed, strictly increasing
}

// minRunsPerWorker keeps small matrices on one goroutine, where starting
// others costs more than it saves.
const minRunsPerWorker = 256

// CountMatrix computes the spectrum of each of nElems elements from the
// runs. It rejects hits that are out of range, unsorted or repeated, since
// any of those would silently corrupt the counts. Large matrices are
// counted on all available cores.
func CountMatrix(nElems int, runs []Run) ([]Counts, error) {
	if nElems < 0 {
		return nil, fmt.Errorf("count matrix: negative element count %d", nElems)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(runs)/minRunsPerWorker))
	parts := make([]tally, workers)
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := w*len(runs)/workers, (w+1)*len(runs)/workers
		wg.Go(func() { parts[w] = count(nElems, runs[lo:hi], lo) })
	}
	wg.Wait()
	total := parts[0]
	for _, p := range parts {
		if p.err != nil {
			return nil, p.err // parts run in order, so this is the first bad run
		}
	}
	for _, p := range parts[1:] {
		total.failed += p.failed
		total.passed += p.passed
		for i := range total.ef {
			total.ef[i] += p.ef[i]
			total.ep[i] += p.ep[i]
		}
	}
	counts := make([]Counts, nElems)
	for i := range counts {
		f, p := int(total.ef[i]), int(total.ep[i])
		counts[i] = Counts{EF: f, EP: p, NF: total.failed - f, NP: total.passed - p}
	}
	return counts, nil
}

// tally is the executions per element of a share of the runs. Two dense
// int32 arrays stay in cache far better than one []Counts.
type tally struct {
	ef, ep         []int32
	failed, passed int
	err            error
}

// count tallies runs, the first of which is run number offset.
func count(nElems int, runs []Run, offset int) tally {
	t := tally{ef: make([]int32, nElems), ep: make([]int32, nElems)}
	for r, run := range runs {
		into := t.ep
		if run.Failing {
			into = t.ef
			t.failed++
		} else {
			t.passed++
		}
		prev := int32(-1)
		for _, h := range run.Hits {
			if h <= prev || uint(h) >= uint(len(into)) {
				t.err = fmt.Errorf("count matrix: run %d: hit %d after %d is unsorted, repeated or outside [0, %d)", offset+r, h, prev, nElems)
				return t
			}
			into[h]++
			prev = h
		}
	}
	return t
}
