package main

import "testing"

// SAT-TAR's order is read from faultline's scores with the confidence
// breaking ties, and the combined order puts the main run's fixes first.
func TestScoreSatTar(t *testing.T) {
	st, err := ParseRankReport([]byte(`{"formula":"sattar","order":"formula","failed":1,"passed":1,"lines":[
 {"file":"a.go","line":1,"score":1.5,"ef":1,"ep":1,"nf":0,"np":0,"sattar":{"tarantula":0.5,"confidence":1,"bonus":1}},
 {"file":"a.go","line":2,"score":1.5,"ef":1,"ep":1,"nf":0,"np":0,"sattar":{"tarantula":0.5,"confidence":1,"bonus":1}},
 {"file":"a.go","line":3,"score":1,"ef":1,"ep":0,"nf":0,"np":1,"sattar":{"tarantula":1,"confidence":1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ParseRankReport([]byte(`{"formula":"ochiai","order":"combined","failed":1,"passed":1,"lines":[
 {"file":"a.go","line":3,"score":1,"ef":1,"ep":0,"nf":0,"np":1,"fixes":1},
 {"file":"a.go","line":1,"score":0.7,"ef":1,"ep":1,"nf":0,"np":0},
 {"file":"a.go","line":2,"score":0.7,"ef":1,"ep":1,"nf":0,"np":0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := Scored{ByFormula: map[string]FormulaScore{}}
	ScoreSatTar(&s, rep, st, Fault{File: "a.go", Lines: []int{3}})
	if got := s.ByFormula[satTarOrder].Pos; got != [3]float64{3, 3, 3} {
		t.Errorf("sattar puts a.go:3 at %v, want 3 in every tie mode", got)
	}
	if got := s.ByFormula[satTarOrder+combinedSuffix].Pos; got != [3]float64{1, 1, 1} {
		t.Errorf("sattar+angelic puts a.go:3 at %v, want 1", got)
	}
}
