package localize

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/analysis"
)

// evidenceLines are five executed lines of f.go, 10 to 14.
func evidenceLines() []RankedLine {
	var lines []RankedLine
	for n := 10; n <= 14; n++ {
		lines = append(lines, RankedLine{File: "f.go", Line: n, EF: 1, EP: n - 10, NP: 14 - n})
	}
	return lines
}

func at(n int) analysis.Location { return analysis.Location{File: "f.go", Line: n, EndLine: n} }

// fill runs one source over the lines and returns its columns.
func fill(t *testing.T, src func(*evidenceInput, func(string, int, float64)) error, in *evidenceInput) map[string][]float64 {
	t.Helper()
	cols := map[string][]float64{}
	if err := src(in, func(column string, i int, v float64) {
		if cols[column] == nil {
			cols[column] = make([]float64, len(in.lines))
		}
		cols[column][i] = v
	}); err != nil {
		t.Fatal(err)
	}
	return cols
}

// Each search that finds a verified fix has its own column; a result
// cached before searches were told apart counts as the solver's.
func TestAngelicEvidenceSearches(t *testing.T) {
	lines := evidenceLines()
	results := []analysis.TestResult{
		{Test: "TestA", Candidates: []analysis.Candidate{
			{Verified: true, Found: analysis.FoundBySolver, Locations: []analysis.Location{at(10)}},
			{Verified: true, Found: analysis.FoundByReplacement, Locations: []analysis.Location{at(11)}},
			{Verified: false, Locations: []analysis.Location{at(14)}},
		}},
		{Test: "TestB", Candidates: []analysis.Candidate{
			{Verified: true, Found: analysis.FoundBySwitching, Locations: []analysis.Location{at(12)}},
			{Verified: true, Locations: []analysis.Location{at(10)}}, // no Found: the solver's
			{Verified: true, Found: analysis.FoundBySolver, Locations: []analysis.Location{at(12), at(13)}},
		}},
	}
	cols := fill(t, angelicEvidence, &evidenceInput{lines: lines, results: results})
	want := map[string][]float64{
		"fix":        {1, 0.5, 0.5, 0, 0},
		"solver":     {1, 0, 0, 0, 0},
		"replace":    {0, 0.5, 0, 0, 0},
		"switch":     {0, 0, 0.5, 0, 0},
		"multi":      {0, 0, 0.5, 0.5, 0},
		"unverified": {0, 0, 0, 0, 0.5},
		"exclusive":  {1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0},
		"fixAll":     {1, 0, 0, 0, 0},
		"mcs":        {1, 1, 1, 0.5, 0},
	}
	for name, w := range want {
		if got := cols[name]; !equalFloats(got, w) {
			t.Errorf("angelic.%s = %v, want %v", name, got, w)
		}
	}
	if _, ok := cols["extreme"]; ok {
		t.Errorf("an extreme column with no extreme value: %v", cols["extreme"])
	}

	bad := []analysis.TestResult{{Test: "TestC", Candidates: []analysis.Candidate{{Verified: true, Found: "guess", Locations: []analysis.Location{at(10)}}}}}
	if err := angelicEvidence(&evidenceInput{lines: lines, results: bad}, func(string, int, float64) {}); err == nil {
		t.Error("a fix found by an unknown search gave no error")
	}
}

// A line is a slice member when some test's slice holds it, at the
// nearest distance any slice gives it; lines of no slice get nothing.
func TestSliceEvidence(t *testing.T) {
	lines := evidenceLines()
	results := []analysis.TestResult{
		{Test: "TestA", Slice: []analysis.SliceLine{{File: "f.go", Line: 12, Distance: 0}, {File: "f.go", Line: 10, Distance: 3}}},
		{Test: "TestB", Slice: []analysis.SliceLine{{File: "f.go", Line: 10, Distance: 1}, {File: "other.go", Line: 11, Distance: 1}}},
		{Test: "TestC"},
	}
	cols := fill(t, sliceEvidence, &evidenceInput{lines: lines, results: results})
	want := map[string][]float64{
		"member":   {1, 0, 1, 0, 0},
		"distance": {0.5, 0, 1, 0, 0},
	}
	if !maps.EqualFunc(cols, want, equalFloats) {
		t.Errorf("slice columns = %v, want %v", cols, want)
	}
}

// SAT-TAR's suspects are evidence only when cores are present; a test
// without a core does not dilute the shares.
func TestSatTarEvidence(t *testing.T) {
	lines := evidenceLines()
	if cols := fill(t, satTarEvidence, &evidenceInput{lines: lines}); len(cols) != 0 {
		t.Errorf("columns without cores: %v", cols)
	}
	cores := []analysis.CoreResult{
		{Test: "TestA", Suspects: []analysis.Suspect{{File: "f.go", Line: 10, EndLine: 11}}},
		{Test: "TestB", Suspects: []analysis.Suspect{{File: "f.go", Line: 11}, {File: "f.go", Line: 12}, {File: "f.go", Line: 13}, {File: "other.go", Line: 1}}},
		{Test: "TestC", Note: "passed"},
	}
	cols := fill(t, satTarEvidence, &evidenceInput{lines: lines, cores: cores})
	want := map[string][]float64{
		"suspect": {0.5, 1, 0.5, 0.5, 0},
		"core":    {0.5, 0.5, 1.0 / 3, 1.0 / 3, 0},
	}
	if !maps.EqualFunc(cols, want, equalFloats) {
		t.Errorf("sattar columns = %v, want %v", cols, want)
	}
}

// Under a rule, each line says which evidence put it where it is.
func TestRuleReasons(t *testing.T) {
	r := &Ranking{Formula: "ochiai", Order: OrderCombined, Lines: []RankedLine{
		{File: "f.go", Line: 11, Fixes: 1, Evidence: map[string]float64{"angelic.fix": 1, "angelic.replace": 1, "spectrum.ochiai.rank": 0.5}},
		{File: "f.go", Line: 10, Evidence: map[string]float64{"spectrum.ochiai.rank": 1}},
	}}
	ruleReasons(r)
	if got := r.Lines[0].Because; len(got) != 2 || got[0].Evidence != "angelic.replace" || got[1].Evidence != "spectrum.ochiai.rank" {
		t.Errorf("combined line with a fix: because %+v", got)
	}
	if got := r.Lines[1].Because; len(got) != 1 || got[0].Evidence != "spectrum.ochiai.rank" || got[0].Value != 1 {
		t.Errorf("combined line without a fix: because %+v", got)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-12 || d < -1e-12 {
			return false
		}
	}
	return true
}

// The shipped model has no weight for the slice's columns, so the slice
// leaves every default ranking as it was until a model is trained on it.
func TestShippedModelIgnoresSlice(t *testing.T) {
	for column := range ShippedModel().Weights {
		if strings.HasPrefix(column, "slice.") {
			t.Errorf("the shipped model weighs %s: default rankings change with the slice", column)
		}
	}
	ev := &Evidence{Columns: map[string][]float64{"slice.member": {1}, "slice.distance": {1}}}
	if score, reasons := ShippedModel().Score(ev, 0); score != 0 || len(reasons) != 0 {
		t.Errorf("a line with only slice evidence scores %v (%v)", score, reasons)
	}
}

// TestMutationRanks: MUSE puts its positive line first and its negative
// one last, Ochiai ordering the unscored line between; Metallaxis-FL ties
// two lines, Ochiai breaking the tie.
func TestMutationRanks(t *testing.T) {
	// Ochiai: line 1 first (run by the failing test only), then 3, then 2.
	lines := []RankedLine{
		{File: "f.go", Line: 1, EF: 1, NP: 3},
		{File: "f.go", Line: 2, EF: 1, EP: 3},
		{File: "f.go", Line: 3, EF: 1, EP: 1, NP: 2},
	}
	cols, err := MutationRanks(lines, []float64{0, 0.5, -0.1}, []float64{0, 0.7, 0.7})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"mutation.muse.reciprocalRank":       {1.0 / 2, 1, 1.0 / 3},
		"mutation.metallaxis.reciprocalRank": {1.0 / 3, 1.0 / 2, 1},
	}
	for name, w := range want {
		if !slices.Equal(cols[name], w) {
			t.Errorf("%s = %v, want %v", name, cols[name], w)
		}
	}
}
