package main

import (
	"math"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/spectra/rank"
)

// minmaxReport is the minmax program's spectra (Landsberg et al., FASE 2018)
// as faultline would print them: C1..C5 on lines 1..5 of minmax.go, three
// failing and seven passing tests; the fault is C4 on line 4. Scores, ranks
// and ties are deliberately wrong: the harness must recompute them.
const minmaxReport = `{"formula":"ochiai","failed":3,"passed":7,"lines":[
 {"file":"minmax.go","line":1,"score":9,"rank":1,"tie":[1,5],"ef":3,"ep":7,"nf":0,"np":0},
 {"file":"minmax.go","line":2,"score":9,"rank":2,"tie":[1,5],"ef":0,"ep":3,"nf":3,"np":4},
 {"file":"minmax.go","line":3,"score":9,"rank":3,"tie":[1,5],"ef":1,"ep":2,"nf":2,"np":5},
 {"file":"minmax.go","line":4,"score":9,"rank":4,"tie":[1,5],"ef":3,"ep":1,"nf":0,"np":6},
 {"file":"minmax.go","line":5,"score":9,"rank":5,"tie":[1,5],"ef":1,"ep":3,"nf":2,"np":4}]}`

func formulas(t *testing.T, names ...string) []rank.Formula {
	t.Helper()
	fs, err := ResolveFormulas(names)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestScoreRecomputesEveryFormula(t *testing.T) {
	rep, err := ParseRankReport([]byte(minmaxReport))
	if err != nil {
		t.Fatal(err)
	}
	s := Score(rep, Fault{File: "minmax.go", Lines: []int{4}}, formulas(t, "ochiai", "russell-rao", "naish1", "wong1"))
	if s.Lines != 5 || !s.FaultExecutedByFailing || s.FaultlineRank != 4 {
		t.Errorf("scored %+v", s)
	}
	want := map[string]FormulaScore{
		// C4 alone on top.
		"ochiai": {Found: true, Pos: [3]float64{1, 1, 1}, Exam: [3]float64{0.2, 0.2, 0.2}},
		"naish1": {Found: true, Pos: [3]float64{1, 1, 1}, Exam: [3]float64{0.2, 0.2, 0.2}},
		// Russell–Rao and Wong1 tie C1 with C4 (0.3 and 3): positions 1 to 2.
		"russell-rao": {Found: true, Pos: [3]float64{1, 1.5, 2}, Exam: [3]float64{0.2, 0.3, 0.4}},
		"wong1":       {Found: true, Pos: [3]float64{1, 1.5, 2}, Exam: [3]float64{0.2, 0.3, 0.4}},
	}
	for name, w := range want {
		got := s.ByFormula[name]
		for m := range 3 {
			if got.Found != w.Found || math.Abs(got.Pos[m]-w.Pos[m]) > 1e-12 || math.Abs(got.Exam[m]-w.Exam[m]) > 1e-12 {
				t.Errorf("%s: got %+v, want %+v", name, got, w)
				break
			}
		}
	}
}

func TestScoreOfAFaultNoFailingTestExecutes(t *testing.T) {
	rep, err := ParseRankReport([]byte(minmaxReport))
	if err != nil {
		t.Fatal(err)
	}
	// Line 2 (C2) is executed only by passing tests; line 9 is not ranked.
	s := Score(rep, Fault{File: "minmax.go", Lines: []int{2}}, formulas(t, "ochiai"))
	if s.FaultExecutedByFailing || !s.ByFormula["ochiai"].Found || s.ByFormula["ochiai"].Pos[0] != 5 {
		t.Errorf("C2: %+v", s)
	}
	s = Score(rep, Fault{File: "minmax.go", Lines: []int{9}}, formulas(t, "ochiai"))
	if fs := s.ByFormula["ochiai"]; fs.Found || fs.Exam != [3]float64{1, 1, 1} || s.FaultlineRank != 0 {
		t.Errorf("absent fault: %+v", s)
	}
}

func TestParseRankReportRejectsBadInput(t *testing.T) {
	for name, data := range map[string]string{
		"not json":         `faultline: no tests`,
		"missing file":     `{"failed":1,"passed":1,"lines":[{"line":3,"ef":1,"ep":1}]}`,
		"negative count":   `{"failed":1,"passed":1,"lines":[{"file":"a.go","line":3,"ef":2,"nf":-1,"ep":1}]}`,
		"counts disagree":  `{"failed":2,"passed":1,"lines":[{"file":"a.go","line":3,"ef":1,"ep":1}]}`,
		"line not counted": `{"failed":1,"passed":0,"lines":[{"file":"a.go","line":0,"ef":1}]}`,
	} {
		if _, err := ParseRankReport([]byte(data)); err == nil {
			t.Errorf("%s: accepted %s", name, data)
		}
	}
}

func TestSummarize(t *testing.T) {
	scored := []Scored{
		{ByFormula: map[string]FormulaScore{
			"a": {Found: true, Pos: [3]float64{1, 2, 3}, Exam: [3]float64{0.1, 0.2, 0.3}},
			"b": {Found: true, Pos: [3]float64{4, 5, 6}, Exam: [3]float64{0.4, 0.5, 0.6}},
		}},
		{ByFormula: map[string]FormulaScore{
			"a": {Exam: [3]float64{1, 1, 1}},
			"b": {Found: true, Pos: [3]float64{10, 10, 10}, Exam: [3]float64{0.5, 0.5, 0.5}},
		}},
	}
	sums := Summarize(scored, []string{"b", "a"})
	if len(sums) != 2 || sums[0].Formula != "b" {
		t.Fatalf("order %+v, want b (average EXAM 0.5) before a (0.6)", sums)
	}
	a := sums[1]
	if a.Faults != 2 || a.NotFound != 1 || a.Top[0] != [2]int{1, 0} || a.Top[1] != [2]int{1, 1} {
		t.Errorf("a: %+v", a)
	}
	if math.Abs(a.Exam[1]-0.6) > 1e-12 || math.Abs(a.Exam[0]-0.55) > 1e-12 {
		t.Errorf("a EXAM %v", a.Exam)
	}
	if b := sums[0]; b.Top[3] != [2]int{2, 2} || b.Top[2] != [2]int{1, 0} {
		t.Errorf("b: %+v", b)
	}
}

func TestResolveFormulas(t *testing.T) {
	all := formulas(t)
	names := make(map[string]bool)
	for _, f := range all {
		names[f.Name()] = true
	}
	for _, n := range rank.Names() {
		if !names[n] {
			t.Errorf("default formula list lacks %s", n)
		}
	}
	if !names["opt-ochiai"] || names["opt-op2"] {
		t.Errorf("opt- wrappers: %v", names)
	}
	if _, err := ResolveFormulas([]string{"no-such-formula"}); err == nil || !strings.Contains(err.Error(), "no-such-formula") {
		t.Errorf("unknown formula: %v", err)
	}
}

func TestRankReportExplainsAnEmptyRanking(t *testing.T) {
	rep, err := ParseRankReport([]byte(`{"formula":"ochiai","failed":0,"passed":0,"lines":[],
		"buildErrors":{"m/b":"vet failed","m/a":"syntax error"},"message":"no tests ran"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := whyEmpty(rep), "no tests ran; m/a: syntax error; m/b: vet failed"; got != want {
		t.Errorf("Why = %q, want %q", got, want)
	}
	if got := whyEmpty(&RankReport{}); got != "faultline saw no failing test" {
		t.Errorf("Why of a bare report = %q", got)
	}
}

// The fixes on the faulty line say how they were found; a fix elsewhere
// does not count, one whose expression spans the faulty line does.
func TestScoreSaysHowFaultFixesWereFound(t *testing.T) {
	report := strings.TrimSuffix(minmaxReport, "}") + `,"angelic":{"analyzed":1,"fixes":[
 {"file":"minmax.go","line":4,"endLine":4,"found":"replacement"},
 {"file":"minmax.go","line":3,"endLine":4},
 {"file":"minmax.go","line":2,"endLine":2,"found":"switch"}]}}`
	rep, err := ParseRankReport([]byte(report))
	if err != nil {
		t.Fatal(err)
	}
	s := Score(rep, Fault{File: "minmax.go", Lines: []int{4}}, formulas(t, "ochiai"))
	if strings.Join(s.FaultFoundBy, ",") != "formula,value replacement" {
		t.Errorf("found by %v, want formula and value replacement", s.FaultFoundBy)
	}
}
