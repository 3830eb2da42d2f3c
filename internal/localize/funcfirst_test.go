package localize

import (
	"reflect"
	"slices"
	"testing"
)

// FunctionFirst puts each function's lines together in the ranking's
// order, the functions ranked by best line, own spectrum or both; lines at
// the kept top stay; functions that tie keep their lines' ties.
func TestFunctionFirst(t *testing.T) {
	fn := map[int]string{1: "A", 2: "B", 3: "A", 4: "C", 5: "B", 6: "D", 7: "E"}
	byName := func(file string, line int) Function { return Function{File: file, Name: fn[line]} }
	// Own spectra (the most executed line's counts; 1 failing test, 10
	// passing): A 1/9, B 1/2, C 1/7, D and E 0/4 (A's lines summed, 2/12,
	// would pass C). Ochiai over them ranks B, C, A, then D and E tied; by
	// best line A, B, C, then D and E tied.
	r := &Ranking{Formula: "ochiai", Failed: 1, Passed: 10, Lines: []RankedLine{
		{File: "a.go", Line: 1, Rank: 1, Tie: [2]int{1, 1}, EF: 1, EP: 3, Score: 0.9, Evidence: map[string]float64{"x": 0.3}},
		{File: "a.go", Line: 2, Rank: 2, Tie: [2]int{2, 2}, EF: 1, EP: 2},
		{File: "a.go", Line: 3, Rank: 3, Tie: [2]int{3, 3}, EF: 1, EP: 9, Evidence: map[string]float64{"x": 0.3}},
		{File: "a.go", Line: 4, Rank: 4, Tie: [2]int{4, 4}, EF: 1, EP: 7, Evidence: map[string]float64{"x": 1}},
		{File: "a.go", Line: 5, Rank: 5, Tie: [2]int{5, 5}, EF: 0, EP: 1, Evidence: map[string]float64{"x": 0.5}},
		{File: "a.go", Line: 6, Rank: 6, Tie: [2]int{6, 7}, EF: 0, EP: 4},
		{File: "a.go", Line: 7, Rank: 7, Tie: [2]int{6, 7}, EF: 0, EP: 4},
	}}
	for _, tc := range []struct {
		opts  FunctionFirstOptions
		lines []int
	}{
		{FunctionFirstOptions{By: FunctionsByBestLine}, []int{1, 3, 2, 5, 4, 6, 7}},
		// Lines 1 and 2 stay; below them A's and B's other lines first.
		{FunctionFirstOptions{By: FunctionsByBestLine, Keep: 2}, []int{1, 2, 3, 5, 4, 6, 7}},
		{FunctionFirstOptions{By: FunctionsByOwnSpectrum}, []int{2, 5, 4, 1, 3, 6, 7}},
		// Rank shares summed: A 1 + 0.6, B 0.8 + 1, C 0.6 + 0.8.
		{FunctionFirstOptions{By: FunctionsMixed}, []int{2, 5, 1, 3, 4, 6, 7}},
		// Learned, over each column's largest value among a function's
		// lines: C 1, B 0.5, A 0.3 (summed, A's 0.6 would pass B).
		{FunctionFirstOptions{By: FunctionsLearned, Weights: map[string]float64{"x": 1}}, []int{4, 2, 5, 1, 3, 6, 7}},
		// A tie group that starts within the kept positions stays whole.
		{FunctionFirstOptions{By: FunctionsByOwnSpectrum, Keep: 6}, []int{1, 2, 3, 4, 5, 6, 7}},
	} {
		got, err := FunctionFirst(r, byName, tc.opts)
		if err != nil {
			t.Fatalf("%+v: %v", tc.opts, err)
		}
		var lines []int
		for p, l := range got.Lines {
			lines = append(lines, l.Line)
			want := [2]int{p + 1, p + 1}
			if l.Line == 6 || l.Line == 7 {
				want = [2]int{6, 7} // D and E tie as functions and as lines
			}
			if l.Rank != p+1 || l.Tie != want {
				t.Errorf("%+v: line %d at %d has rank %d, tie %v; want %d, %v", tc.opts, l.Line, p+1, l.Rank, l.Tie, p+1, want)
			}
		}
		if !reflect.DeepEqual(lines, tc.lines) {
			t.Errorf("%+v: lines %v, want %v", tc.opts, lines, tc.lines)
		}
		if got.Lines[slices.Index(lines, 1)].Score != 0.9 || got.Formula != "ochiai" {
			t.Errorf("%+v: a line's score or the ranking's formula was lost", tc.opts)
		}
	}
	if r.Lines[0].Line != 1 || r.Lines[2].Rank != 3 {
		t.Errorf("the input ranking changed: %+v", r.Lines)
	}
	noSource := func(string, int) Function { panic("the source was read though every line is kept") }
	if got, err := FunctionFirst(r, noSource, FunctionFirstOptions{By: FunctionsByBestLine, Keep: 7}); err != nil || !reflect.DeepEqual(got.Lines, r.Lines) {
		t.Errorf("every line kept: %+v, %v; want the ranking unchanged", got, err)
	}
	if _, err := FunctionFirst(r, byName, FunctionFirstOptions{By: "worst"}); err == nil {
		t.Error("an unknown function order gave no error")
	}
}

// A model with Functions ranks by the learned order, then function by
// function, and wants the functions; without, it is the learned order.
func TestModelRankByFunction(t *testing.T) {
	fn := map[int]string{1: "A", 2: "B", 3: "A"}
	byName := func(file string, line int) Function { return Function{File: file, Name: fn[line]} }
	formula := &Ranking{Formula: "ochiai", Failed: 1, Passed: 1, Lines: []RankedLine{
		{File: "a.go", Line: 1, Score: 1, Rank: 1, Tie: [2]int{1, 1}},
		{File: "a.go", Line: 2, Score: 0.8, Rank: 2, Tie: [2]int{2, 2}},
		{File: "a.go", Line: 3, Score: 0.5, Rank: 3, Tie: [2]int{3, 3}},
	}}
	ev := &Evidence{Columns: map[string][]float64{"spectrum.ochiai": {1, 0.8, 0.5}}}
	m := &Model{Name: "test", Window: 20, Weights: map[string]float64{"spectrum.ochiai": 1}}
	for _, tc := range []struct {
		functions *FunctionFirstOptions
		want      []int
	}{
		{nil, []int{1, 2, 3}},
		{&FunctionFirstOptions{By: FunctionsByBestLine}, []int{1, 3, 2}},
		{&FunctionFirstOptions{By: FunctionsByBestLine, Keep: 2}, []int{1, 2, 3}},
	} {
		m.Functions = tc.functions
		r, err := m.Rank(formula, ev, ModuleSource{Functions: byName})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, l := range r.Lines {
			got = append(got, l.Line)
		}
		if !reflect.DeepEqual(got, tc.want) || r.Order != OrderLearned {
			t.Errorf("functions %+v: lines %v, order %s; want %v, learned", tc.functions, got, r.Order, tc.want)
		}
	}
	m.Functions = &FunctionFirstOptions{By: FunctionsByBestLine}
	if _, err := m.Rank(formula, ev, ModuleSource{}); err == nil {
		t.Error("a model ordering by function ranked without functions")
	}
}
