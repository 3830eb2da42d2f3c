package snapshot

import (
	"testing"

	"github.com/faultline-go/faultline/analysis/mutation"
	"github.com/faultline-go/faultline/internal/localize"
)

// The sentence in the states the server tests over LSP do not reach.
func TestWhySentence(t *testing.T) {
	at := func(line int) localize.Location { return localize.Location{File: "a.go", Line: line, EndLine: line} }
	multi := []localize.TestResult{{Test: "TestA", Candidates: []localize.Candidate{
		{Verified: true, Found: localize.FoundBySolver, Locations: []localize.Location{at(3)}},
		{Verified: true, Found: localize.FoundBySolver, Locations: []localize.Location{at(4), at(5)}},
		{Verified: false, Locations: []localize.Location{at(6)}},
	}}, {Test: "TestB"}}
	line := func(n, rank, fixes int) localize.RankedLine {
		return localize.RankedLine{File: "a.go", Line: n, Score: 0.5, Rank: rank, Tie: [2]int{rank, rank}, EF: 2, EP: 1, NP: 2, Fixes: fixes}
	}
	ranking := func(order string, lines ...localize.RankedLine) *localize.Ranking {
		return &localize.Ranking{Formula: "ochiai", Order: order, Failed: 2, Passed: 3, Lines: lines}
	}
	combined := Choices{Formula: "ochiai", Angelic: true, Order: localize.ShippedModel().Default}
	tests := []struct {
		name string
		snap *Snapshot
		want string
	}{
		{"the analysis not yet reported", &Snapshot{Ranking: ranking(localize.OrderFormula, line(3, 1, 0)), Settings: combined},
			"Rank 1 of 1 by ochiai alone until the angelic analysis reports: ochiai 0.5, executed by all 2 failing and 1 of 3 passing tests."},
		{"no Z3", &Snapshot{Ranking: ranking(localize.OrderFormula, line(3, 1, 0)), Settings: combined, Angelic: &localize.Angelic{Unavailable: "no libz3"}},
			"Rank 1 of 1 by ochiai alone (the angelic analysis is not available): ochiai 0.5, executed by all 2 failing and 1 of 3 passing tests."},
		{"part of a fix over two lines", &Snapshot{Ranking: ranking(localize.OrderCombined, line(3, 1, 1), line(4, 2, 0)), Settings: combined, Results: multi},
			"Rank 2 of 2 under the combined order: it hosts no verified fix and comes after the line that does (it is part of a verified fix over 2 lines, which this order does not count), ochiai 0.5, executed by all 2 failing and 1 of 3 passing tests."},
		{"a fix for one of two tests", &Snapshot{Ranking: ranking(localize.OrderCombined, line(3, 1, 1)), Settings: combined, Results: multi, Focus: "TestA"},
			"Rank 1 of 1 under the combined order, localized to TestA: it hosts a verified fix for 1 of 2 analysed failing tests (found by the solver), ochiai 0.5, executed by all 2 failing and 1 of 3 passing tests."},
	}
	for _, tt := range tests {
		if got := tt.snap.WhySentence(len(tt.snap.Ranking.Lines) - 1); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}

	top, beyond := line(3, 1, 0), line(9, 2, 0)
	top.Score, top.Because, beyond.Score = 0.9, []localize.Reason{{Evidence: "spectrum.ochiai", Value: 0.9, Contribution: 2}}, 0.2
	learned := &Snapshot{Ranking: ranking(localize.OrderLearned, top, beyond)}
	learned.Ranking.Model = "m1"
	if got, want := learned.WhySentence(0), "Rank 1 of 2 under the learned order (model m1): weighed most by ochiai 0.9; executed by all 2 failing and 1 of 3 passing tests."; got != want {
		t.Errorf("learned, with reasons:\n got %s\nwant %s", got, want)
	}
	if got, want := learned.WhySentence(1), "Rank 2 of 2 under the learned order (model m1): no evidence the model weighs lifts it, so the formula places it by ochiai 0.2; executed by all 2 failing and 1 of 3 passing tests."; got != want {
		t.Errorf("learned, without reasons:\n got %s\nwant %s", got, want)
	}
	// Evidence the model did not name: the slice, the mutants and an
	// operator fix.
	sliced := line(3, 1, 0)
	sliced.Evidence = map[string]float64{"slice.member": 1, "slice.distance": 1.0 / 3}
	mutated := &Snapshot{Ranking: ranking(localize.OrderLearned, sliced), Findings: &findingsSlot{Findings: Findings{Operators: []OperatorFix{
		{OperatorFix: localize.OperatorFix{File: "a.go", Line: 3, Change: "* → /"}}}}},
		Mutation: &localize.Mutation{Lines: map[mutation.Loc]mutation.Scores{{File: "a.go", Line: 3}: {Metallaxis: 0.5, MUSE: 0.25, Mutants: 4}}}}
	mutated.Ranking.Model = "m1"
	if got, want := mutated.WhySentence(0), "Rank 1 of 1 under the learned order (model m1): no evidence the model weighs lifts it, so the formula places it by ochiai 0.5; "+
		"a failing check depends on it through 2 dependences, 4 mutants of it ran, scoring Metallaxis-FL 0.5 and MUSE 0.25, "+
		"it hosts a verified operator fix (* → /), executed by all 2 failing and 1 of 3 passing tests."; got != want {
		t.Errorf("learned, with the slice and mutants:\n got %s\nwant %s", got, want)
	}
	// Lines the learned order places without any spectrum: a
	// declaration, and a line no test runs next to one a failing test
	// runs.
	for k, placed := range []struct{ column, want string }{
		{localize.EvidenceDeclarationRead, "Rank 3 of 3 under the learned order (model m1): weighed most by being a package-level declaration that the line ranked 1 reads; its value runs before any test, so no test's coverage counts it."},
		{localize.EvidenceUnexecutedNextTo, "Rank 4 of 4 under the learned order (model m1): weighed most by lying next to the line ranked 1, which a failing test runs; no test runs it, so no test's coverage counts it."},
	} {
		learned.Ranking.Lines = append(learned.Ranking.Lines, localize.RankedLine{File: "a.go", Line: k + 1, Rank: k + 3, Tie: [2]int{k + 3, k + 3}, NF: 2, NP: 3,
			Evidence: map[string]float64{placed.column: 1}, Because: []localize.Reason{{Evidence: placed.column, Value: 1}}})
		if got := learned.WhySentence(k + 2); got != placed.want {
			t.Errorf("learned, a line placed by %s:\n got %s\nwant %s", placed.column, got, placed.want)
		}
	}

	snap := &Snapshot{Ranking: ranking(localize.OrderLearned, line(3, 1, 0)), Results: multi}
	for column, want := range map[string]string{
		"spectrum.op2.rank":               "in the top 5 % under op2",
		"blockrank.rank":                  "first under BlockRank",
		"static.kind.if":                  "being an if statement",
		"angelic.exclusive":               "one of 2 lines hosting a fix",
		"angelic.fix":                     "a verified fix for 1 of 2 analysed failing tests",
		"angelic.mcs":                     "part of a verified fix over 2 lines",
		"spectrum.failShare":              "run by 50 % of the failing tests",
		"sattar.suspect":                  "in the unsat cores of 50 % of the failing tests' checks",
		"slice.member":                    "in a failing check's slice",
		"slice.distance":                  "1 dependence from a failing check",
		"invented.column":                 "invented.column 0.5",
		localize.EvidenceDeclarationRead:  "being a package-level declaration that the line ranked 7 reads",
		localize.EvidenceUnexecutedNextTo: "lying next to the line ranked 7, which a failing test runs",
	} {
		v := 0.5
		switch column {
		case "spectrum.op2.rank":
			v = 0.95
		case "blockrank.rank", "static.kind.if":
			v = 1
		case localize.EvidenceDeclarationRead, localize.EvidenceUnexecutedNextTo:
			v = 7
		}
		if got := snap.ReasonWords(localize.Reason{Evidence: column, Value: v}); got != want {
			t.Errorf("%s = %v: %q, want %q", column, v, got, want)
		}
	}
	if got := (&Snapshot{Ranking: &localize.Ranking{Failed: 2}}).RunWords(localize.RankedLine{EF: 2}); got != "all 2 failing tests (no test passes)" {
		t.Errorf("without passing tests: %q", got)
	}
}
