package localize

import (
	"reflect"
	"testing"

	"github.com/faultline-go/faultline/analysis"
)

func TestCombineRanksAndTies(t *testing.T) {
	mk := func(file string, n int, score float64, tie [2]int) RankedLine {
		return RankedLine{File: file, Line: n, Score: score, Tie: tie}
	}
	r := &Ranking{Formula: "ochiai", Order: OrderFormula, Lines: []RankedLine{
		mk("a.go", 1, 0.9, [2]int{1, 1}),
		mk("a.go", 2, 0.5, [2]int{2, 4}),
		mk("a.go", 3, 0.5, [2]int{2, 4}),
		mk("a.go", 4, 0.5, [2]int{2, 4}),
		mk("b.go", 7, 0.1, [2]int{5, 5}),
	}}
	fix := func(file string, n int) analysis.Candidate {
		return analysis.Candidate{Verified: true, Locations: []analysis.Location{{File: file, Line: n, EndLine: n}}}
	}
	results := []analysis.TestResult{
		{Test: "T1", Candidates: []analysis.Candidate{fix("a.go", 3), fix("a.go", 4), fix("b.go", 7)}},
		{Test: "T2", Candidates: []analysis.Candidate{fix("a.go", 3), fix("a.go", 4)}},
	}
	got := Combine(r, results)
	type row struct {
		line, rank, fixes int
		tie               [2]int
	}
	var rows []row
	for _, l := range got.Lines {
		rows = append(rows, row{l.Line, l.Rank, l.Fixes, l.Tie})
	}
	want := []row{{3, 1, 2, [2]int{1, 2}}, {4, 2, 2, [2]int{1, 2}}, {7, 3, 1, [2]int{3, 3}}, {1, 4, 0, [2]int{4, 4}}, {2, 5, 0, [2]int{5, 5}}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("combined rows:\n got %v\nwant %v", rows, want)
	}
	if got.Order != OrderCombined || r.Order != OrderFormula || r.Lines[0].Line != 1 {
		t.Errorf("Combine must return a new combined ranking and leave its input alone")
	}
}
