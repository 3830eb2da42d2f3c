//go:build cgo

package z3

import (
	"errors"
	"math/big"
	"testing"
)

// factoringSolver asserts a factoring of a 128-bit semiprime, which no
// bounded check finishes.
func factoringSolver(t *testing.T, ctx *Context, logic string) *Solver {
	t.Helper()
	p, _ := new(big.Int).SetString("18446744073709551557", 10)
	q, _ := new(big.Int).SetString("18446744073709551533", 10)
	n := new(big.Int).Mul(p, q)
	limit := new(big.Int).Lsh(big.NewInt(1), 64)
	a, b := ctx.BVConst("a", 128), ctx.BVConst("b", 128)
	one := ctx.BVUint(1, 128)
	s, err := ctx.NewSolverForLogic(logic)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Assert(a.Mul(b).Eq(ctx.BVBig(n, 128)), one.ULT(a), one.ULT(b),
		a.ULT(ctx.BVBig(limit, 128)), b.ULT(ctx.BVBig(limit, 128))); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWorkBoundGivesUnknownAtTheSameCount checks that a work bound stops a
// check with ReasonWorkSpent, and that two contexts running the same checks
// do the same work: the bound is a count, not a time.
func TestWorkBoundGivesUnknownAtTheSameCount(t *testing.T) {
	for _, logic := range []string{"", "QF_FD"} {
		var counts []uint64
		for range 2 {
			ctx, err := NewContext(Config{Work: 200_000})
			if err != nil {
				t.Fatal(err)
			}
			s := factoringSolver(t, ctx, logic)
			r, err := s.Check()
			if err != nil {
				t.Fatal(err)
			}
			if r != Unknown || s.ReasonUnknown() != ReasonWorkSpent {
				t.Fatalf("logic %q: got %v (%q), want Unknown for the work bound", logic, r, s.ReasonUnknown())
			}
			done, err := ctx.Work()
			if err != nil {
				t.Fatal(err)
			}
			if !ctx.WorkSpent() {
				t.Errorf("logic %q: %d units done, bound not reported spent", logic, done)
			}
			// A spent bound refuses the next check at once.
			if r, _ := s.Check(); r != Unknown || s.ReasonUnknown() != ReasonWorkSpent {
				t.Errorf("logic %q: check after the bound: %v (%q)", logic, r, s.ReasonUnknown())
			}
			counts = append(counts, done)
			ctx.Close()
		}
		if counts[0] != counts[1] || counts[0] < 200_000 {
			t.Errorf("logic %q: work done %v, want the same count of at least the bound", logic, counts)
		}
	}
}

// TestCheckWorkBoundsOneCheck checks a solver's and an optimizer's own
// bound per check, within an unbounded context.
func TestCheckWorkBoundsOneCheck(t *testing.T) {
	ctx := newTestContext(t)
	s := factoringSolver(t, ctx, "")
	s.SetCheckWork(50_000)
	before, _ := ctx.Work()
	if r, err := s.Check(); err != nil || r != Unknown || s.ReasonUnknown() != ReasonWorkSpent {
		t.Fatalf("got %v, %v (%q)", r, err, s.ReasonUnknown())
	}
	after, _ := ctx.Work()
	if after-before < 50_000 || ctx.WorkSpent() {
		t.Errorf("work %d → %d; context bound spent %v", before, after, ctx.WorkSpent())
	}
	o, err := ctx.NewOptimize()
	if err != nil {
		t.Fatal(err)
	}
	a, b := ctx.BVConst("x", 128), ctx.BVConst("y", 128)
	if err := o.Assert(a.Mul(b).Eq(ctx.BVUint(1<<62+1, 128)), ctx.BVUint(1, 128).ULT(a), ctx.BVUint(1, 128).ULT(b)); err != nil {
		t.Fatal(err)
	}
	o.SetCheckWork(50_000)
	if r, err := o.Check(); err != nil || r != Unknown || o.ReasonUnknown() != ReasonWorkSpent {
		t.Fatalf("optimize: got %v, %v (%q)", r, err, o.ReasonUnknown())
	}
}

// TestHoldKeepsObjectsUntilClose checks that a holding context releases
// nothing Go drops: Z3 would reuse the ids of released terms.
func TestHoldKeepsObjectsUntilClose(t *testing.T) {
	for _, hold := range []bool{false, true} {
		ctx, err := NewContext(Config{Hold: hold})
		if err != nil {
			t.Fatal(err)
		}
		before := ctx.liveRefs()
		for i := range 100 {
			_ = ctx.BVConst("x", 32).Add(ctx.BVUint(uint64(i), 32))
		}
		made := ctx.liveRefs()
		after := waitReleased(t, ctx, before)
		if hold && after != made || !hold && after > before {
			t.Errorf("hold %v: %d references before, %d made, %d after collecting", hold, before, made, after)
		}
		ctx.Close()
	}
}

// TestCloseReleasesEveryReference checks that Close gives back every
// reference the binding still holds before it deletes the context, in
// either mode and with terms, solvers and models still reachable: Z3
// deletes a context that still holds references into a deep term in time
// that grows with the square of its depth (BenchmarkCloseDeepTerm).
func TestCloseReleasesEveryReference(t *testing.T) {
	for _, hold := range []bool{false, true} {
		ctx, err := NewContext(Config{Hold: hold})
		if err != nil {
			t.Fatal(err)
		}
		x := ctx.BVConst("x", 32)
		sum := x
		for i := range 3 * heldChunk { // more than one chunk
			sum = sum.Add(ctx.BVUint(uint64(i), 32))
		}
		s, err := ctx.NewSolver()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Assert(sum.Eq(ctx.BVUint(7, 32))); err != nil {
			t.Fatal(err)
		}
		m := satModel(t, s)
		if ctx.liveRefs() == 0 {
			t.Fatalf("hold %v: no references held before Close", hold)
		}
		ctx.Close()
		if live := ctx.rel.live.Load(); live != 0 {
			t.Errorf("hold %v: %d references still held after Close", hold, live)
		}
		if _, err := m.Eval(x, true); !errors.Is(err, ErrClosed) {
			t.Errorf("hold %v: a model of a closed context evaluated with %v, want ErrClosed", hold, err)
		}
	}
}
