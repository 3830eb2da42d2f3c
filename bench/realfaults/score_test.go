package main

import (
	"reflect"
	"testing"

	"faultline/spectra"
)

func lines(ev ...map[string]float64) []spectra.RankedLine {
	out := make([]spectra.RankedLine, len(ev))
	for i, e := range ev {
		out[i] = spectra.RankedLine{File: "a.go", Line: i + 1, EF: 1, NP: 1, Evidence: e}
	}
	return out
}

func TestFaultPosition(t *testing.T) {
	c := &scoredCase{Report: &spectra.RankReport{Ranking: spectra.Ranking{Lines: lines(nil, nil, nil, nil, nil)}},
		Faulty: map[lineKey]bool{{"a.go", 3}: true, {"a.go", 4}: true}}
	for _, tc := range []struct {
		ties [][2]int
		want float64
	}{
		{[][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, 3},
		// Four lines tied from 2 with two faulty: 2 + (4-2)/3.
		{[][2]int{{1, 1}, {2, 5}, {2, 5}, {2, 5}, {2, 5}}, 2 + 2.0/3},
		// The better of two groups.
		{[][2]int{{1, 2}, {1, 2}, {5, 5}, {3, 4}, {3, 4}}, 3.5},
	} {
		if got := faultPosition(c, tc.ties); got != tc.want {
			t.Errorf("faultPosition(%v) = %v, want %v", tc.ties, got, tc.want)
		}
	}
	c.Faulty = map[lineKey]bool{{"b.go", 1}: true}
	if got := faultPosition(c, [][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}); got != 0 {
		t.Errorf("unranked fault at %v, want 0", got)
	}
}

// A column that marks the faulty line of every training fault gets the
// largest weight, a column that marks a non-faulty line a negative one,
// and training twice gives the same model.
func TestTrainModel(t *testing.T) {
	var cases []*scoredCase
	for k := 0; k < 4; k++ {
		ev := []map[string]float64{{"noise": 0.5, "decoy": 1}, {"noise": 0.2}, {"marker": 1, "noise": float64(k) / 4}, {"noise": 1}}
		cases = append(cases, &scoredCase{
			Report: &spectra.RankReport{Ranking: spectra.Ranking{Lines: lines(ev...)}},
			Faulty: map[lineKey]bool{{"a.go", 3}: true},
		})
	}
	all := func(*scoredCase) bool { return true }
	m := trainModel(cases, all, "test")
	if m.Weights["marker"] <= 0 || m.Weights["decoy"] >= 0 {
		t.Fatalf("weights %v: want marker > 0 > decoy", m.Weights)
	}
	for k, w := range m.Weights {
		if k != "marker" && w >= m.Weights["marker"] {
			t.Errorf("weight of %s %v not below marker's %v", k, w, m.Weights["marker"])
		}
	}
	res, err := evaluate(cases, orders(m))
	if err != nil {
		t.Fatal(err)
	}
	learned := summarize(res, cases, len(orders(m))-1, all)
	if learned.Top[0] != len(cases) {
		t.Errorf("learned order puts %d of %d faults first", learned.Top[0], len(cases))
	}
	if again := trainModel(cases, all, "test"); !reflect.DeepEqual(again, m) {
		t.Errorf("training again gave %v, want %v", again.Weights, m.Weights)
	}
}
