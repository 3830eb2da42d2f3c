package localize

import (
	"testing"

	"faultline/spectra"
)

// With a head, the model reorders only the formula's first places and the
// lines hosting a verified fix; the others follow in the formula's order
// whatever their evidence.
func TestLearnedHead(t *testing.T) {
	formula := &spectra.Ranking{Formula: "ochiai", Order: spectra.OrderFormula}
	for n := 1; n <= 5; n++ {
		formula.Lines = append(formula.Lines, spectra.RankedLine{File: "f.go", Line: n, Score: 1 - float64(n)/10, Rank: n, Tie: [2]int{n, n}})
	}
	// The model likes "x": lines 2 (in the head), 4 (outside, no fix) and
	// 5 (outside, hosting a fix).
	ev := &Evidence{Columns: map[string][]float64{
		"x":           {0, 1, 0, 2, 1},
		"angelic.fix": {0, 0, 0, 0, 0.5},
	}}
	m := &Model{Name: "test", Head: 2, Weights: map[string]float64{"x": 1}}
	r, err := Learned(formula, ev, m)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, l := range r.Lines {
		got = append(got, l.Line)
	}
	want := []int{2, 5, 1, 3, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("head 2: order %v, want %v", got, want)
		}
	}
	if len(r.Lines[4].Because) != 0 {
		t.Errorf("a line outside the head, with no formula rank column, has reasons %+v", r.Lines[4].Because)
	}
	ev.Columns["spectrum.ochiai.rank"] = []float64{1, 0.8, 0.6, 0.4, 0.2}
	if r, err = Learned(formula, ev, m); err != nil {
		t.Fatal(err)
	}
	if b := r.Lines[4].Because; len(b) != 1 || b[0].Evidence != "spectrum.ochiai.rank" {
		t.Errorf("a line outside the head: reasons %+v, want the formula's rank", b)
	}
	m.Head = 0
	if r, err = Learned(formula, ev, m); err != nil || r.Lines[0].Line != 4 {
		t.Errorf("no head: first line %d (%v), want 4", r.Lines[0].Line, err)
	}
}
