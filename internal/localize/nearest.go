package localize

import (
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// maxNearestFailing bounds the failing tests whose nearest passing test is
// looked for: each costs one pass over its package's passing tests.
const maxNearestFailing = 10

// nearestColumns puts spectrum.nearest: for each failing test, the passing
// test of its package whose executed blocks are most like its own
// (Jaccard), and the share of the failing tests whose nearest passing test
// does not run the line while they do (Renieris and Reiss, "Fault
// localization with nearest neighbor queries", ASE 2003). A table-driven
// test's failing case and its nearest passing case differ where their
// inputs lead them apart, which is where coverage alone ties them.
func nearestColumns(m *spectra.Matrix, lines []RankedLine, put func(string, int, float64)) {
	if m == nil || len(lines) == 0 {
		return
	}
	blocksOf := map[rank.Location][]int{}
	for _, l := range m.Lines() {
		blocksOf[rank.Location{File: l.File, Line: l.Line}] = l.Blocks
	}
	var failing []int
	for i, t := range m.Tests {
		if t.Verdict.Failing() && len(failing) < maxNearestFailing {
			failing = append(failing, i)
		}
	}
	if len(failing) == 0 {
		return
	}
	diff := make([]float64, len(lines))
	in := make([]int, len(m.Blocks)) // stamp: the failing test runs the block
	missed := make([]bool, len(m.Blocks))
	for k, fi := range failing {
		f := m.Tests[fi]
		for b := range f.Hits.All() {
			in[b] = k + 1
		}
		nearest, best := -1, -1.0
		for pi, p := range m.Tests {
			if p.Verdict.Failing() || !p.Verdict.Counted() || p.Package != f.Package {
				continue
			}
			inter := 0
			for b := range p.Hits.All() {
				if in[b] == k+1 {
					inter++
				}
			}
			union := f.Hits.Len() + p.Hits.Len() - inter
			if union == 0 {
				continue
			}
			if sim := float64(inter) / float64(union); sim > best {
				nearest, best = pi, sim
			}
		}
		if nearest < 0 {
			continue
		}
		for b := range f.Hits.All() {
			missed[b] = true
		}
		for b := range m.Tests[nearest].Hits.All() {
			missed[b] = false
		}
		for i, l := range lines {
			for _, b := range blocksOf[rank.Location{File: l.File, Line: l.Line}] {
				if missed[b] {
					diff[i]++
					break
				}
			}
		}
		clear(missed)
	}
	for i, d := range diff {
		if d > 0 {
			put("nearest", i, d/float64(len(failing)))
		}
	}
}
