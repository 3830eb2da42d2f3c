//go:build cgo

package analysis

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis/formula"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestSteeringAroundTheCheck: of the verified fixes of a panicking index,
// one that forces a loop condition so the index is never reached is
// marked as steering around the failing check; one that makes the loop's
// bound right is not, though the index is not reached either. The same
// holds of candidates of value replacement, told by a run of their own.
func TestSteeringAroundTheCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "steer.txtar")
	res, err := Analyze(context.Background(), open(t, dir), []testbuild.Target{{Package: "example.com/spread", Test: "TestHalves"}}, Options{MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	steered, fixed := false, false
	for _, c := range res[0].Candidates {
		if !c.Verified || len(c.Locations) != 1 {
			continue
		}
		l := c.Locations[0]
		t.Logf("%s:%d %s -> %s (found by %q) avoids %v", l.File, l.Line, l.Expr, l.Angelic, c.Found, c.Avoids)
		switch {
		case l.Line == 11 && l.Expr == "i < units-given":
			steered = true
			if !c.Avoids {
				t.Errorf("the loop condition forced %s is not marked as steering around the index", l.Angelic)
			}
		case l.Line == 9:
			fixed = true
			if c.Avoids {
				t.Errorf("the fix of given (%s) is marked as steering around the index", l.Angelic)
			}
		}
	}
	if !steered || !fixed {
		t.Fatalf("want verified candidates on the loop condition and on given: %+v", res[0].Candidates)
	}

	// Value replacement's trials record no trace: its candidates are run
	// once more to tell, those that force only conditions.
	prog, bin := instrumentedBinary(t, dir, "example.com/spread")
	bin.Timeout = time.Minute
	first, err := bin.Run(context.Background(), "TestHalves", nil)
	if err != nil {
		t.Fatal(err)
	}
	replaced := &TestResult{}
	conditions := 0
	for _, c := range res[0].Candidates {
		c.Found, c.Avoids = FoundByReplacement, false
		replaced.Candidates = append(replaced.Candidates, c)
		if c.Locations[0].Expr == "i < units-given" {
			conditions++
		}
	}
	runs := bin.Runs
	if err := formula.MarkAvoiding(context.Background(), bin, testbuild.Target{Package: "example.com/spread", Test: "TestHalves"}, formula.CheckReachOf(prog, first), Options{MaxRuns: 100}, replaced); err != nil {
		t.Fatal(err)
	}
	for _, c := range replaced.Candidates {
		if c.Avoids != (c.Locations[0].Expr == "i < units-given") {
			t.Errorf("%s -> %s: marked %v", c.Locations[0].Expr, c.Locations[0].Angelic, c.Avoids)
		}
	}
	if n := bin.Runs - runs; n != conditions {
		t.Errorf("%d runs to tell, want one per candidate forcing only conditions (%d)", n, conditions)
	}
}
