package analysis

import (
	"reflect"
	"testing"
)

func TestCombinedOrder(t *testing.T) {
	spectrum := []Line{{"a.go", 1}, {"a.go", 2}, {"a.go", 3}, {"b.go", 4}}
	fix := func(file string, line int, verified bool) Candidate {
		return Candidate{Verified: verified, Locations: []Location{{File: file, Line: line, EndLine: line}}}
	}
	results := []TestResult{
		{Test: "T1", Candidates: []Candidate{fix("b.go", 4, true), fix("a.go", 3, true), fix("a.go", 2, false)}},
		{Test: "T2", Candidates: []Candidate{fix("a.go", 3, true), {Verified: true, Locations: []Location{
			{File: "a.go", Line: 1, EndLine: 1}, {File: "a.go", Line: 2, EndLine: 2}}}}},
	}
	got := CombinedOrder(spectrum, results)
	want := []Line{{"a.go", 3}, {"b.go", 4}, {"a.go", 1}, {"a.go", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
