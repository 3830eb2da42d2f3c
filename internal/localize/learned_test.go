package localize

import (
	"math"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/analysis"
)

// formulaOf is an Ochiai ranking of a.go's lines 1, 2, ... with these
// scores, one failing and three passing tests.
func formulaOf(scores ...float64) *Ranking {
	formula := &Ranking{Formula: "ochiai", Order: OrderFormula, Failed: 1, Passed: 3}
	for i, s := range scores {
		formula.Lines = append(formula.Lines, RankedLine{File: "a.go", Line: i + 1, Score: s})
	}
	return formula
}

// lineNumbers is the ranking's lines of a.go, in rank order.
func lineNumbers(r *Ranking) []int {
	var out []int
	for _, l := range r.Lines {
		out = append(out, l.Line)
	}
	return out
}

// TestLearnedReordersWithinTheWindow: the model may only reorder the lines
// the formula ranks within its window; a line below it stays below however
// much evidence it has.
func TestLearnedReordersWithinTheWindow(t *testing.T) {
	// a.go:1..6 with falling formula scores; 3 and 4 tie.
	formula := formulaOf(0.9, 0.8, 0.7, 0.7, 0.5, 0.4)
	// The model favours line 4 a little and line 6 most.
	ev := &Evidence{Columns: map[string][]float64{"angelic.fix": {0, 0, 0, 0.5, 0, 1}}}
	m := &Model{Name: "test", Weights: map[string]float64{"angelic.fix": 1}}

	for _, tc := range []struct {
		window int
		want   []int
	}{
		{0, []int{6, 4, 1, 2, 3, 5}},
		// The tie group of lines 3 and 4 starts at position 3: both are in.
		{3, []int{4, 1, 2, 3, 5, 6}},
		{2, []int{1, 2, 3, 4, 5, 6}},
	} {
		m.Window = tc.window
		r, err := Learned(formula, ev, m)
		if err != nil {
			t.Fatal(err)
		}
		if got := lineNumbers(r); !slices.Equal(got, tc.want) {
			t.Errorf("window %d: order %v, want %v", tc.window, got, tc.want)
		}
		for _, l := range r.Lines {
			if l.Line == 6 && tc.window > 0 && len(l.Because) > 0 {
				t.Errorf("window %d: line 6 is outside it but gives reasons %v", tc.window, l.Because)
			}
		}
	}
}

// TestLearnedLiftsIntoTheWindow: a line with a positive value in a Lift
// column joins the window wherever the formula ranks it, and is reordered
// there; the other lines below the window stay below.
func TestLearnedLiftsIntoTheWindow(t *testing.T) {
	formula := formulaOf(0.9, 0.8, 0.7, 0.6, 0.5, 0.4)
	ev := &Evidence{Columns: map[string][]float64{
		"mutation.fix": {0, 0, 0, 0, 0, 1},
		"angelic.fix":  {0, 0, 0, 0, 1, 0},
	}}
	m := &Model{Name: "test", Window: 2, Weights: map[string]float64{"mutation.fix": 2, "angelic.fix": 3}, Lift: []string{"mutation.fix"}}
	r, err := Learned(formula, ev, m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lineNumbers(r), []int{6, 1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v (line 6 lifted and first, line 5 not lifted)", got, want)
	}
}

// TestOrderScoresFall: the learned and the combined orders each give every
// line the score they sort by, falling as the rank grows; the learned one
// gives none past its window.
func TestOrderScoresFall(t *testing.T) {
	formula := &Ranking{Formula: "ochiai", Order: OrderFormula, Failed: 1, Passed: 3}
	for i, s := range []float64{0.9, 0.8, 0.7, 0.7, 0.5, 0.4} {
		formula.Lines = append(formula.Lines, RankedLine{File: "a.go", Line: i + 1, Score: s, Tie: [2]int{i + 1, i + 1}})
	}
	formula.Lines[2].Tie, formula.Lines[3].Tie = [2]int{3, 4}, [2]int{3, 4}
	ev := &Evidence{Columns: map[string][]float64{"angelic.fix": {0, 0, 0, 0.5, 0, 1}}}
	learned, err := Learned(formula, ev, &Model{Name: "test", Window: 4, Weights: map[string]float64{"angelic.fix": 1}})
	if err != nil {
		t.Fatal(err)
	}
	fix := analysis.Candidate{Verified: true, Locations: []analysis.Location{{File: "a.go", Line: 6, EndLine: 6}}}
	combined := Combine(formula, []analysis.TestResult{{Test: "T", Candidates: []analysis.Candidate{fix}}})
	for _, r := range []*Ranking{learned, combined} {
		prev := math.Inf(1)
		for i, l := range r.Lines {
			beyond := r == learned && l.Line > 4
			if (l.OrderScore == nil) != beyond {
				t.Fatalf("%s order, line %d: OrderScore %v", r.Order, l.Line, l.OrderScore)
			}
			if beyond {
				continue
			}
			// Equal order scores tie unless the formula tells them apart.
			if *l.OrderScore > prev || i > 0 && *l.OrderScore == prev && l.Score == r.Lines[i-1].Score && l.Tie != r.Lines[i-1].Tie {
				t.Errorf("%s order, line %d at rank %d: score %g after %g", r.Order, l.Line, l.Rank, *l.OrderScore, prev)
			}
			prev = *l.OrderScore
		}
	}
}

// TestLearnedTailOrdersBelowTheWindow: a model's tail weights order the
// lines below its window among themselves, the formula breaking their ties,
// and never lift one into the window; without a tail the formula's order
// stays there.
func TestLearnedTailOrdersBelowTheWindow(t *testing.T) {
	formula := formulaOf(0.9, 0.8, 0.7, 0.7, 0.5, 0.4)
	ev := &Evidence{Columns: map[string][]float64{
		"angelic.fix":        {0, 0, 0, 0.5, 0, 1},
		"spectrum.tarantula": {0, 1, 0.2, 0.2, 0.1, 0.9},
	}}
	for _, tc := range []struct {
		tail map[string]float64
		want []int
	}{
		{nil, []int{2, 1, 3, 4, 5, 6}},
		{map[string]float64{"angelic.fix": 1}, []int{2, 1, 6, 4, 3, 5}},
		// 3 and 4 tie on Tarantula and on the formula: code order.
		{map[string]float64{"spectrum.tarantula": 1}, []int{2, 1, 6, 3, 4, 5}},
	} {
		m := &Model{Name: "test", Window: 2, Weights: map[string]float64{"spectrum.tarantula": 1}, Tail: tc.tail}
		r, err := Learned(formula, ev, m)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, l := range r.Lines {
			got = append(got, l.Line)
			if l.Rank > 2 && (l.OrderScore != nil || len(l.Because) > 0) {
				t.Errorf("tail %v: line %d below the window has order score %v, reasons %v", tc.tail, l.Line, l.OrderScore, l.Because)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("tail %v: order %v, want %v", tc.tail, got, tc.want)
		}
	}
}

// A margin lets the model pass a line the formula ranks higher only by a
// whole step of its score; a bonus for the formula's top keeps those lines
// first unless another line outscores them by more.
func TestLearnedMarginAndFormulaTop(t *testing.T) {
	formula := &Ranking{Formula: "ochiai", Order: OrderFormula, Failed: 1, Passed: 3}
	for i, s := range []float64{0.9, 0.8, 0.7, 0.6} {
		formula.Lines = append(formula.Lines, RankedLine{File: "a.go", Line: i + 1, Score: s})
	}
	// Line 2 scores a little above line 1, line 4 well above both.
	ev := &Evidence{Columns: map[string][]float64{"angelic.fix": {0.1, 0.3, 0, 2.5}}}
	for _, tc := range []struct {
		name string
		m    Model
		want []int
	}{
		{"plain", Model{}, []int{4, 2, 1, 3}},
		// Steps of 1: lines 1, 2 and 3 share step 0, line 4 is in step 2.
		{"margin 1", Model{Margin: 1}, []int{4, 1, 2, 3}},
		// Line 1 gets 1 more: above line 2, still below line 4.
		{"top 1, bonus 1", Model{FormulaTop: &FormulaTop{Top: 1, Bonus: 1}}, []int{4, 1, 2, 3}},
		{"top 1, bonus 3", Model{FormulaTop: &FormulaTop{Top: 1, Bonus: 3}}, []int{1, 4, 2, 3}},
	} {
		m := tc.m
		m.Name, m.Weights = "test", map[string]float64{"angelic.fix": 1}
		r, err := Learned(formula, ev, &m)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, l := range r.Lines {
			got = append(got, l.Line)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: order %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLearnedNormalizes: a normalizing model weighs each column but
// Ochiai's score by its share of the column's largest value, so a column
// of large numbers does not drown a column of small ones; the reasons give
// the values as measured.
func TestLearnedNormalizes(t *testing.T) {
	formula := &Ranking{Formula: "ochiai", Order: OrderFormula, Failed: 1, Passed: 3}
	for i := range 2 {
		formula.Lines = append(formula.Lines, RankedLine{File: "a.go", Line: i + 1, Score: 0.3})
	}
	ev := &Evidence{Columns: map[string][]float64{
		"spectrum.ochiai": {0.3, 0.3},
		"a":               {100, 50},
		"b":               {0, 1},
	}}
	m := &Model{Name: "test", Weights: map[string]float64{"spectrum.ochiai": 1, "a": 1, "b": 10}}
	for _, tc := range []struct {
		normalize bool
		first     int
		score     float64 // line 2's
	}{
		{false, 1, 0.3 + 50 + 10},
		{true, 2, 0.3 + 0.5 + 10},
	} {
		m.Normalize = tc.normalize
		r, err := Learned(formula, ev, m)
		if err != nil {
			t.Fatal(err)
		}
		if r.Lines[0].Line != tc.first {
			t.Errorf("normalize %v: line %d first, want %d", tc.normalize, r.Lines[0].Line, tc.first)
		}
		for _, l := range r.Lines {
			if l.Line != 2 {
				continue
			}
			if math.Abs(*l.OrderScore-tc.score) > 1e-9 {
				t.Errorf("normalize %v: line 2 scores %v, want %v", tc.normalize, *l.OrderScore, tc.score)
			}
			for _, why := range l.Because {
				if why.Evidence == "a" && why.Value != 50 {
					t.Errorf("normalize %v: line 2's reason a has value %v, want 50 as measured", tc.normalize, why.Value)
				}
			}
		}
	}
}
