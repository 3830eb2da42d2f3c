//go:build cgo

package analysis

import (
	"context"
	"slices"
	"strings"
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

// A failing test whose recorded run hangs ends its analysis at that run's
// timeout, with a note, not at the wall-clock cap.
func TestHangingRunEndsTheAnalysis(t *testing.T) {
	dir := extract(t, "hang.txtar")
	mod := open(t, dir)
	target := testbuild.Target{Package: "example.com/hang", Test: "TestWait"}
	res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{Budget: 10 * time.Second, RunTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	hangs := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "did not end within 1s") })
	if !hangs || r.Runs != 1 || r.Ended == EndedBudget {
		t.Errorf("ended %q after %d runs in %s with notes %v; want one run and the note", r.Ended, r.Runs, r.Total, r.Notes)
	}
}

// Past Options.StartBy no test's analysis starts: a test already running
// ends on its own bounds, the ones after it get a note and EndedBudget,
// which no cache keeps.
func TestStartByBoundsTheAnalysesTogether(t *testing.T) {
	dir := extract(t, "slow.txtar")
	mod := open(t, dir)
	first := testbuild.Target{Package: "example.com/slow", Test: "TestAdd"}
	second := testbuild.Target{Package: "example.com/slow", Test: "TestAdd"}
	// Build first, so that the first analysis starts well before StartBy;
	// the failing run outlasts its cap of 6s, so the second would start
	// after it.
	if _, err := Analyze(context.Background(), mod, []testbuild.Target{first}, Options{Budget: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	opts := Options{Budget: 2 * time.Second, StartBy: time.Now().Add(4 * time.Second)}
	res, err := Analyze(context.Background(), mod, []testbuild.Target{first, second}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || slices.Contains(res[0].Notes, notStartedNote) || !slices.Contains(res[1].Notes, notStartedNote) || res[1].Ended != EndedBudget {
		t.Fatalf("results %+v; want the first analysed and the second not started", res)
	}
	if res[1].Ended.Cacheable() {
		t.Errorf("a test not started is cacheable")
	}
	// Started past it, nothing is built or run.
	start := time.Now()
	res, err = Analyze(context.Background(), mod, []testbuild.Target{first}, Options{StartBy: start.Add(-time.Second)})
	if err != nil || len(res) != 1 || !slices.Contains(res[0].Notes, notStartedNote) || time.Since(start) > time.Second {
		t.Errorf("results %+v, error %v in %s; want the note at once", res, err, time.Since(start))
	}
}
