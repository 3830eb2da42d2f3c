package localize

import (
	"slices"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/spectra"
)

// Each selected failing test names the passing tests of its package that
// share the most blocks with it, most first; passing tests of another
// package and those sharing no block are left out.
func TestSelectNamesSimilarPassingTests(t *testing.T) {
	m := &spectra.Matrix{Tests: []spectra.TestRun{
		{Package: "a", Name: "TestFail", Verdict: spectra.Fail, Hits: spectra.NewHits(1, 2, 3, 4)},
		{Package: "a", Name: "TestSome", Verdict: spectra.Pass, Hits: spectra.NewHits(1, 5)},
		{Package: "a", Name: "TestMost", Verdict: spectra.Pass, Hits: spectra.NewHits(2, 3, 4, 6)},
		{Package: "a", Name: "TestNone", Verdict: spectra.Pass, Hits: spectra.NewHits(7)},
		{Package: "a", Name: "TestOtherFail", Verdict: spectra.Fail, Hits: spectra.NewHits(1, 2, 3, 4)},
		{Package: "b", Name: "TestElsewhere", Verdict: spectra.Pass, Hits: spectra.NewHits(1, 2, 3, 4)},
	}}
	selected, failing := Select(m, 1)
	if failing != 2 || len(selected) != 1 {
		t.Fatalf("selected %+v of %d failing", selected, failing)
	}
	passing := passingFor(m, selected)
	if want := []string{"TestMost", "TestSome"}; len(passing) != 1 || !slices.Equal(passing[analysis.PassingKey(selected[0])], want) {
		t.Errorf("passing tests named: %v, want %v for %v", passing, want, selected[0])
	}
}
