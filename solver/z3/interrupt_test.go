//go:build cgo

package z3

import (
	"math/big"
	"testing"
	"time"
)

// hardFactoring asserts that a and b, both above 1 and below 2^64, multiply
// to a 128-bit semiprime: far out of reach of bit-blasting.
func hardFactoring(t *testing.T, ctx *Context, s *Solver) {
	t.Helper()
	p, _ := new(big.Int).SetString("18446744073709551557", 10) // 2^64-59, prime
	q, _ := new(big.Int).SetString("18446744073709551533", 10) // 2^64-83, prime
	limit := new(big.Int).Lsh(big.NewInt(1), 64)
	a, b := ctx.BVConst("a", 128), ctx.BVConst("b", 128)
	one := ctx.BVUint(1, 128)
	if err := s.Assert(a.Mul(b).Eq(ctx.BVBig(new(big.Int).Mul(p, q), 128)), one.ULT(a), one.ULT(b),
		a.ULT(ctx.BVBig(limit, 128)), b.ULT(ctx.BVBig(limit, 128))); err != nil {
		t.Fatal(err)
	}
}

// Interrupt, called from another goroutine, ends a check that has no
// timeout with Unknown; the context stays usable, and interrupting it once
// closed does nothing.
func TestInterrupt(t *testing.T) {
	for _, logic := range []string{"", "QF_FD"} {
		ctx, err := NewContext(Config{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := ctx.NewSolverForLogic(logic)
		if err != nil {
			t.Fatal(err)
		}
		hardFactoring(t, ctx, s)
		done := make(chan struct{})
		go func() {
			// Until the check returns: an interrupt that comes before the
			// check starts is not remembered.
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					ctx.Interrupt()
				}
			}
		}()
		start := time.Now()
		r, err := s.Check()
		close(done)
		if err != nil || r != Unknown {
			t.Fatalf("logic %q: interrupted check = %v, %v; want unknown", logic, r, err)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("logic %q: the interrupted check took %v", logic, took)
		}
		if why := s.ReasonUnknown(); why != "canceled" && why != "interrupted" {
			t.Errorf("logic %q: reason %q, want canceled or interrupted", logic, why)
		}
		// A check started afterwards runs as usual.
		x := ctx.BVConst("x", 8)
		s2, _ := ctx.NewSolverForLogic(logic)
		_ = s2.Assert(x.Eq(ctx.BVUint(3, 8)))
		if r, err := s2.Check(); err != nil || r != Sat {
			t.Errorf("logic %q: check after the interrupt = %v, %v; want sat", logic, r, err)
		}
		ctx.Close()
		ctx.Interrupt()
	}
}
