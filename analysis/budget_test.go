//go:build cgo

package analysis

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// The wall-clock cap (three times the budget) bounds the analysis
// whatever phase the time goes to: here the failing run itself outlasts it.
func TestBudgetHoldsDuringARun(t *testing.T) {
	dir := extract(t, "slow.txtar")
	mod := open(t, dir)
	target := testbuild.Target{Package: "example.com/slow", Test: "TestAdd"}
	// Build first, so that only the analysis is timed.
	if _, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{Budget: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{Budget: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; !slices.Contains(r.Notes, "time budget exhausted") || r.Total > 4*time.Second || r.Ended != EndedBudget {
		t.Errorf("analysis took %s, ended %q with notes %v; want the cap of 3s to hold", r.Total, r.Ended, r.Notes)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Analyze took %s", elapsed)
	}
}
