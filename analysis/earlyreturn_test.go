//go:build cgo

package analysis

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis/formula"
	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// TestEarlyReturnBindsResults checks the corrections of a failing run's
// formula when the fault lies past an error check: a change that only
// makes a callee's error non-nil sends its caller down an early return of
// that error, which the formula encodes, so no site of the callee is a
// correction; the faulty return is. With the early return's results free,
// every site of the scanner was one, and each cost forced runs before the
// faulty line's turn came.
func TestEarlyReturnBindsResults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "earlyreturn.txtar")
	faulty := false
	for _, s := range firstCorrections(t, dir, "example.com/tally", "TestSum") {
		faulty = faulty || s.Pos.Line == 38 && s.Text == "total + 1"
		if s.Pos.Line < 24 {
			t.Errorf("correction inside fields, whose only effect on Sum is its error: %s:%d %s", s.File, s.Pos.Line, s.Text)
		}
	}
	if !faulty {
		t.Error("the faulty return is not a correction")
	}
}

// firstCorrections enumerates every single-location correction of the
// formula of a test's failing run, before any forced run refines it.
func firstCorrections(t *testing.T, dir, pkgPath, test string) []*instrument.Site {
	t.Helper()
	ctx := context.Background()
	prog, bin := instrumentedBinary(t, dir, pkgPath)
	bin.Timeout = time.Minute
	first, err := bin.Run(ctx, test, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.Passed {
		t.Fatalf("%s passes", test)
	}
	z, err := z3.NewContext(z3.Config{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc := formula.NewEncoder(z, enum, prog)
	if err := enc.Replay(first.Trace, nil, true, instrument.PanicAt(prog, first)); err != nil {
		t.Fatal(err)
	}
	if enc.Failing == 0 {
		t.Fatal("no failing check encoded")
	}
	var got []*instrument.Site
	for c, err := range enum.Enumerate(ctx, mcs.Bounds{MaxSize: 1, Budget: time.Minute}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range c.Tags {
			got = append(got, prog.Sites[id])
		}
	}
	return got
}
