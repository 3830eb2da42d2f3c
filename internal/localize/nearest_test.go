package localize

import (
	"reflect"
	"testing"

	"github.com/faultline-go/faultline/spectra"
)

// The nearest passing test of each failing test is the one of its package
// whose blocks are most like its own; the lines it misses count.
func TestNearestColumns(t *testing.T) {
	m := &spectra.Matrix{
		Blocks: []spectra.Block{
			{File: "a.go", Lines: []int{1}}, {File: "a.go", Lines: []int{2}},
			{File: "a.go", Lines: []int{3}}, {File: "a.go", Lines: []int{4, 5}},
		},
		Tests: []spectra.TestRun{
			// F1's nearest is P1 (3 of 4 blocks shared): it misses block 3.
			{Package: "p", Name: "T/f1", Verdict: spectra.Fail, Hits: spectra.NewHits(0, 1, 2, 3)},
			{Package: "p", Name: "T/p1", Verdict: spectra.Pass, Hits: spectra.NewHits(0, 1, 2)},
			{Package: "p", Name: "T/p2", Verdict: spectra.Pass, Hits: spectra.NewHits(0)},
			// F2's nearest is P3 of its own package, not q's P1-alike test.
			{Package: "q", Name: "U/f2", Verdict: spectra.Fail, Hits: spectra.NewHits(1, 2)},
			{Package: "q", Name: "U/p3", Verdict: spectra.Pass, Hits: spectra.NewHits(2)},
			{Package: "p", Name: "T/p4", Verdict: spectra.Pass, Hits: spectra.NewHits(1, 2)},
			{Package: "q", Name: "U/s", Verdict: spectra.Skip, Hits: spectra.NewHits(1, 2)}, // not counted
		},
	}
	lines := []RankedLine{{File: "a.go", Line: 1}, {File: "a.go", Line: 2}, {File: "a.go", Line: 3}, {File: "a.go", Line: 4}, {File: "a.go", Line: 5}}
	got := map[string]map[int]float64{}
	nearestColumns(m, lines, func(column string, i int, v float64) {
		if got[column] == nil {
			got[column] = map[int]float64{}
		}
		got[column][i] = v
	})
	want := map[string]map[int]float64{"nearest": {1: 0.5, 3: 0.5, 4: 0.5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	nearestColumns(&spectra.Matrix{Blocks: m.Blocks, Tests: m.Tests[1:3]}, lines, func(string, int, float64) {
		t.Error("a column without a failing test")
	})
}
