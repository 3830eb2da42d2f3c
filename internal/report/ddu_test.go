package report

import (
	"math"
	"testing"

	"github.com/faultline-go/faultline/spectra"
)

func TestMeasure(t *testing.T) {
	m := &spectra.Matrix{
		Blocks: make([]spectra.Block, 4),
		Tests: []spectra.TestRun{
			{Name: "A", Verdict: spectra.Pass, Hits: spectra.NewHits(0, 1)},
			{Name: "B", Verdict: spectra.Fail, Hits: spectra.NewHits(0, 1)},
			{Name: "C", Verdict: spectra.Pass, Hits: spectra.NewHits(2)},
			{Name: "skipped", Verdict: spectra.Skip, Hits: spectra.NewHits(3)},
		},
	}
	d := Measure(m)
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near("density", d.Density, 5.0/12)
	near("normalized density", d.NormalizedDensity, 1-math.Abs(1-10.0/12))
	near("diversity", d.Diversity, 1-2.0/6)
	near("uniqueness", d.Uniqueness, 3.0/4)
	near("DDU", d.DDU, (1-math.Abs(1-10.0/12))*(1-2.0/6)*0.75)
	if d.Tests != 3 || d.Components != 4 || d.Unexecuted != 1 {
		t.Errorf("%d tests, %d components, %d unexecuted", d.Tests, d.Components, d.Unexecuted)
	}
	if len(d.SameCoverage) != 1 || len(d.SameCoverage[0]) != 2 || len(d.Ambiguous) != 1 || d.Ambiguous[0][0] != 0 || d.Ambiguous[0][1] != 1 {
		t.Errorf("groups %v %v", d.SameCoverage, d.Ambiguous)
	}
}

// A suite whose tests each execute half the components, all different,
// each component told apart: DDU 1.
func TestMeasureIdeal(t *testing.T) {
	m := &spectra.Matrix{
		Blocks: make([]spectra.Block, 2),
		Tests: []spectra.TestRun{
			{Verdict: spectra.Pass, Hits: spectra.NewHits(0)},
			{Verdict: spectra.Fail, Hits: spectra.NewHits(1)},
		},
	}
	if d := Measure(m); d.DDU != 1 {
		t.Errorf("DDU %v, want 1: %+v", d.DDU, d)
	}
	if d := Measure(&spectra.Matrix{}); d.DDU != 0 || d.Tests != 0 {
		t.Errorf("empty matrix: %+v", d)
	}
}
