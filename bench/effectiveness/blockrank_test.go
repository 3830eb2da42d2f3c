package main

import (
	"math"
	"testing"
)

// blockRankReport ranks four lines by BlockRank: lines 1 and 2 share a
// block (4.5), line 3 scores 1, line 4 belongs to no block. Ochiai ties
// lines 2 and 3 above line 1.
const blockRankReport = `{"formula":"blockrank","order":"formula","failed":2,"passed":2,"lines":[
 {"file":"a.go","line":1,"score":4.5,"ef":1,"ep":2,"nf":1,"np":0,"blockrank":{"function":"F","block":2}},
 {"file":"a.go","line":2,"score":4.5,"ef":2,"ep":1,"nf":0,"np":1,"blockrank":{"function":"F","block":2}},
 {"file":"a.go","line":3,"score":1,"ef":2,"ep":1,"nf":0,"np":1,"blockrank":{"function":"F","block":3}},
 {"file":"a.go","line":4,"score":0,"ef":2,"ep":2,"nf":0,"np":0}]}`

// calibratedReport puts line 3 first.
const calibratedReport = `{"formula":"blockrank","order":"formula","failed":2,"passed":2,"lines":[
 {"file":"a.go","line":3,"score":9,"ef":2,"ep":1,"nf":0,"np":1,"blockrank":{"function":"F","block":3}},
 {"file":"a.go","line":1,"score":4.5,"ef":1,"ep":2,"nf":1,"np":0,"blockrank":{"function":"F","block":2}},
 {"file":"a.go","line":2,"score":4.5,"ef":2,"ep":1,"nf":0,"np":1,"blockrank":{"function":"F","block":2}},
 {"file":"a.go","line":4,"score":0,"ef":2,"ep":2,"nf":0,"np":0}]}`

func TestScoreBlockRank(t *testing.T) {
	rep, err := ParseRankReport([]byte(blockRankReport))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := ParseRankReport([]byte(calibratedReport))
	if err != nil {
		t.Fatal(err)
	}
	s := Score(rep, Fault{File: "a.go", Lines: []int{3}}, formulas(t, "ochiai"))
	ScoreBlockRank(&s, rep, cal, Fault{File: "a.go", Lines: []int{3}})
	want := map[string][3]float64{
		"blockrank":            {3, 3, 3}, // below the tied block of lines 1 and 2
		"blockrank-calibrated": {1, 1, 1},
		"ochiai>blockrank":     {2, 2, 2}, // Ochiai ties 2 and 3; BlockRank puts 2 first
		"blockrank>ochiai":     {3, 3, 3},
		"op2>blockrank":        {2, 2, 2},
	}
	for name, pos := range want {
		if got := s.ByFormula[name]; !got.Found || got.Pos != pos {
			t.Errorf("%s: %+v, want positions %v", name, got, pos)
		}
	}
	if _, ok := s.ByFormula["blockrank"+combinedSuffix]; ok {
		t.Error("an order beneath angelic fixes without a combined ranking")
	}
	// The line of no block comes last under BlockRank, whatever Ochiai says.
	s4 := Score(rep, Fault{File: "a.go", Lines: []int{4}}, nil)
	ScoreBlockRank(&s4, rep, nil, Fault{File: "a.go", Lines: []int{4}})
	if got := s4.ByFormula["blockrank"]; got.Pos[0] != 4 {
		t.Errorf("a line of no block at %v", got.Pos)
	}
}

func TestSummarizePaperMeasures(t *testing.T) {
	scored := []Scored{
		{ByFormula: map[string]FormulaScore{"f": {Found: true, Exam: [3]float64{0.01, 0.02, 0.04}}}},
		{ByFormula: map[string]FormulaScore{"f": {Found: true, Exam: [3]float64{0.1, 0.12, 0.16}}}},
		{ByFormula: map[string]FormulaScore{"f": {Exam: [3]float64{1, 1, 1}}}},
	}
	s := Summarize(scored, []string{"f"})[0]
	if s.Within != [4]int{1, 1, 1, 2} {
		t.Errorf("within %v", s.Within)
	}
	mean := (0.04 + 0.16 + 1) / 3
	std := math.Sqrt((0.04*0.04+0.16*0.16+1)/3 - mean*mean)
	if math.Abs(s.EffortMean-mean) > 1e-12 || math.Abs(s.EffortStd-std) > 1e-12 {
		t.Errorf("effort %v ± %v, want %v ± %v", s.EffortMean, s.EffortStd, mean, std)
	}
}
