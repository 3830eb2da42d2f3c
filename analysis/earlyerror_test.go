//go:build cgo

package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestEarlyReturnOfAnErrorValue analyses functions whose early return
// gives an error as a pointer (&RangeError{...}) and as a struct
// (CaseError{...}): the encoder binds those results without modelling
// their types, so the analysis must neither crash nor give up nor report
// a bug, and still finds the faulty return of each.
func TestEarlyReturnOfAnErrorValue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "earlyerror.txtar")
	reports := countBugs(t)
	targets := []testbuild.Target{{Package: "example.com/early", Test: "TestDigit"}, {Package: "example.com/early", Test: "TestLetter"}}
	res, err := Analyze(context.Background(), open(t, dir), targets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(targets) {
		t.Fatalf("got %d results, want %d", len(res), len(targets))
	}
	faulty := map[string]int{"TestDigit": 23, "TestLetter": 31}
	for _, r := range res {
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "not analysed") {
				t.Errorf("%s: %s", r.Test, n)
			}
		}
		found := false
		for _, c := range r.Candidates {
			found = found || c.Verified && len(c.Locations) == 1 && c.Locations[0].Line == faulty[r.Test]
		}
		if !found {
			t.Errorf("%s: no verified fix on line %d: %+v", r.Test, faulty[r.Test], r.Candidates)
		}
	}
	if len(*reports) > 0 {
		t.Errorf("bugs reported: %+v", *reports)
	}
}

// countBugs counts the bug reports made until the test ends.
func countBugs(t *testing.T) *[]bug.Report {
	t.Helper()
	var reports []bug.Report
	t.Cleanup(bug.Default.Handle(func(r bug.Report) { reports = append(reports, r) }))
	return &reports
}
