//go:build cgo

package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestNilOfASliceType analyses a function that returns nil as a byte
// slice on the failing run: the encoder must take that nil as an empty
// slice, not as an error's nil (a term of another sort, which failed the
// test's analysis when its site was part of a candidate), report no bug,
// and still find the faulty bound.
func TestNilOfASliceType(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "nilslice.txtar")
	reports := countBugs(t)
	res, err := Analyze(context.Background(), open(t, dir), []testbuild.Target{{Package: "example.com/words", Test: "TestLen"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("got %d results, want 1", len(res))
	}
	for _, n := range res[0].Notes {
		if strings.HasPrefix(n, "not analysed") {
			t.Errorf("%s", n)
		}
	}
	found := false
	for _, c := range res[0].Candidates {
		found = found || c.Verified && len(c.Locations) == 1 && c.Locations[0].Line == 5
	}
	if !found {
		t.Errorf("no verified fix on line 5: %+v", res[0].Candidates)
	}
	if len(*reports) > 0 {
		t.Errorf("bugs reported: %+v", *reports)
	}
}
