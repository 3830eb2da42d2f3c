//go:build cgo

package analysis

import (
	"context"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// A boundary fault whose check compares structs: predicate switching
// flips the condition, and value replacement moves its literal operand
// (10 to 9) and negates the condition at every instance, all on the
// faulty line.
func TestPredicateSwitchingFallback(t *testing.T) {
	dir := extract(t, "label.txtar")
	res, err := Analyze(context.Background(), open(t, dir), []testbuild.Target{{Package: "example.com/label", Test: "TestSize"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Switched != 1 || len(r.Candidates) != 3 {
		t.Fatalf("got %d candidates (%d switched), want the condition switched and negated and its literal replaced; notes %v", len(r.Candidates), r.Switched, r.Notes)
	}
	for _, c := range r.Candidates {
		l := c.Locations[0]
		switch c.Found {
		case FoundBySwitching:
			if !c.Verified || l.File != "label.go" || l.Line != 5 || l.Expr != "n > 10" || l.Original != "false" || l.Angelic != "true" {
				t.Errorf("switched candidate %+v", c)
			}
		case FoundByReplacement:
			literal := l.Expr == "10" && l.Angelic == "9"
			negated := l.Expr == "n > 10" && l.Angelic == "n <= 10"
			if !c.Verified || l.File != "label.go" || l.Line != 5 || !literal && !negated {
				t.Errorf("replaced candidate %+v", c)
			}
		default:
			t.Errorf("candidate found by %v: %+v", c.Found, c)
		}
	}
}
