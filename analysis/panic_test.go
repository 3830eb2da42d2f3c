package analysis

import (
	"context"
	"testing"
)

// TestPanicsAsFailures analyses tests that fail by an index out of range
// and by an integer division by zero: the faulty line must be in a
// verified candidate found by the formula, not by predicate switching.
func TestPanicsAsFailures(t *testing.T) {
	dir := extract(t, "panic.txtar")
	faulty := map[string]int{"TestMedianSingle": 6, "TestPagesOnePerPage": 12}
	var targets []Target
	for name := range faulty {
		targets = append(targets, Target{Package: "example.com/panics", Test: name})
	}
	res, err := Analyze(context.Background(), dir, targets, Options{MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(faulty) {
		t.Fatalf("got %d results, want %d", len(res), len(faulty))
	}
	for _, r := range res {
		if r.Switched != 0 {
			t.Errorf("%s: %d candidates by predicate switching; notes %v", r.Test, r.Switched, r.Notes)
		}
		checkFaultFound(t, r, "panics.go", faulty[r.Test])
	}
}
