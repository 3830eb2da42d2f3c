package localize

import (
	"slices"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/regress"
	"github.com/faultline-go/faultline/spectra"
)

// TestExecutedLinesCountPassingTests checks that each line the failing
// test executed comes with the number of passing tests that executed it
// too, failing and skipped tests not counted, and that a line of two
// blocks takes the smaller count.
func TestExecutedLinesCountPassingTests(t *testing.T) {
	m := &spectra.Matrix{
		Blocks: []spectra.Block{{File: "a.go", Lines: []int{1, 2}}, {File: "a.go", Lines: []int{2, 3}}, {File: "a.go", Lines: []int{4}}},
		Tests: []spectra.TestRun{
			{Package: "p", Name: "F", Verdict: spectra.Fail, Hits: spectra.NewHits(0, 1)},
			{Package: "p", Name: "G", Verdict: spectra.Fail, Hits: spectra.NewHits(0, 1, 2)},
			{Package: "p", Name: "P1", Verdict: spectra.Pass, Hits: spectra.NewHits(0, 2)},
			{Package: "p", Name: "P2", Verdict: spectra.Pass, Hits: spectra.NewHits(0, 1)},
			{Package: "p", Name: "S", Verdict: spectra.Skip, Hits: spectra.NewHits(1)},
		},
	}
	lines, passing := executedLines(m, testbuild.Target{Package: "p", Test: "F"}, passingRuns(m))
	want := []regress.Line{{File: "a.go", Line: 1}, {File: "a.go", Line: 2}, {File: "a.go", Line: 3}}
	if !slices.Equal(lines, want) || !slices.Equal(passing, []int{2, 1, 1}) {
		t.Errorf("lines %v, passing %v; want %v and [2 1 1]", lines, passing, want)
	}
	if lines, passing := executedLines(m, testbuild.Target{Package: "p", Test: "missing"}, passingRuns(m)); lines != nil || passing != nil {
		t.Errorf("a test not in the matrix: lines %v, passing %v", lines, passing)
	}
}
