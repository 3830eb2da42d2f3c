//go:build cgo

package analysis

import (
	"context"
	"testing"
)

func TestPredicateSwitchingFallback(t *testing.T) {
	dir := extract(t, "label.txtar")
	res, err := Analyze(context.Background(), open(t, dir), []Target{{Package: "example.com/label", Test: "TestSize"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Switched != 1 || len(r.Candidates) != 1 {
		t.Fatalf("got %d candidates (%d switched), want the one condition; notes %v", len(r.Candidates), r.Switched, r.Notes)
	}
	l := r.Candidates[0].Locations[0]
	if !r.Candidates[0].Verified || l.File != "label.go" || l.Line != 5 || l.Expr != "n > 10" || l.Original != "false" || l.Angelic != "true" {
		t.Errorf("candidate %+v", r.Candidates[0])
	}
}
