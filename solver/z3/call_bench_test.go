//go:build cgo

package z3

import "testing"

// These measure what one call into Z3 costs through the binding, for
// comparing ways of reaching the library (bench/README.md, solver
// section): a call that does almost nothing in Z3, a term construction
// (three calls and a Go allocation), and a small incremental check.

func BenchmarkCallASTID(b *testing.B) {
	ctx := newTestContext(b)
	x := ctx.BVConst("x", 32)
	var sum uint32
	for b.Loop() {
		sum += x.ID()
	}
	_ = sum
}

func BenchmarkCallBVAdd(b *testing.B) {
	ctx := newTestContext(b)
	x, y := ctx.BVConst("x", 32), ctx.BVConst("y", 32)
	for b.Loop() {
		if x.Add(y).Err() != nil {
			b.Fatal("BVAdd failed")
		}
	}
}

func BenchmarkCallCheck(b *testing.B) {
	ctx := newTestContext(b)
	s, err := ctx.NewSolverForLogic("QF_FD")
	if err != nil {
		b.Fatal(err)
	}
	x := ctx.BVConst("x", 8)
	a := ctx.BoolConst("a")
	if err := s.Assert(a.Implies(x.ULT(ctx.BVUint(3, 8)))); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r, err := s.CheckAssumptions(a); r != Sat || err != nil {
			b.Fatal(r, err)
		}
	}
}
