//go:build cgo

package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// Instrumented code must compile wherever the original does, whatever the
// code names its identifiers and however it relies on untyped constants.
func TestShadowingAndTypedContexts(t *testing.T) {
	dir := extract(t, "shadow.txtar")
	res, err := Analyze(context.Background(), open(t, dir), []testbuild.Target{{Package: "example.com/shadow", Test: "TestTwice"}}, Options{MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	for _, n := range r.Notes {
		if strings.Contains(n, "build") {
			t.Fatalf("note %q", n)
		}
	}
	for _, c := range r.Candidates {
		if l := c.Locations[0]; c.Verified && l.File == "shadow.go" && l.Line == 56 {
			return
		}
	}
	t.Errorf("no verified candidate on shadow.go:56: %+v; notes %v", r.Candidates, r.Notes)
}
