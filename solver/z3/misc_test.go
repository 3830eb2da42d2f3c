//go:build cgo

package z3

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

func sameFloat64(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

func floatOperand(rng *rand.Rand) float64 {
	edges := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0.1, 1e300, math.MaxFloat32 * 2}
	if rng.IntN(3) == 0 {
		return edges[rng.IntN(len(edges))]
	}
	return math.Float64frombits(rng.Uint64())
}

func TestFloatMatchesGo(t *testing.T) {
	ctx := newTestContext(t)
	rng := rand.New(rand.NewPCG(7, 7))
	f64 := ctx.Float64Sort()
	x, y := ctx.FloatConst("x", f64), ctx.FloatConst("y", f64)
	i := ctx.BVConst("i", 64)
	arith := []struct {
		name string
		term Float
		want func(a, b float64) float64
	}{
		{"+", x.Add(y), func(a, b float64) float64 { return a + b }},
		{"-", x.Sub(y), func(a, b float64) float64 { return a - b }},
		{"*", x.Mul(y), func(a, b float64) float64 { return a * b }},
		{"/", x.Div(y), func(a, b float64) float64 { return a / b }},
		{"neg", x.Neg(), func(a, _ float64) float64 { return -a }},
		{"abs", x.Abs(), func(a, _ float64) float64 { return math.Abs(a) }},
	}
	cmp := []struct {
		name string
		term Bool
		want func(a, b float64) bool
	}{
		{"<", x.LT(y), func(a, b float64) bool { return a < b }},
		{"<=", x.LE(y), func(a, b float64) bool { return a <= b }},
		{"==", x.IEEEEq(y), func(a, b float64) bool { return a == b }},
		{"isNaN", x.IsNaN(), func(a, _ float64) bool { return math.IsNaN(a) }},
		{"isInf", x.IsInf(), func(a, _ float64) bool { return math.IsInf(a, 0) }},
	}
	toF32 := x.Convert(ctx.Float32Sort())
	toI64 := x.ToBV(64, true)
	fromI64 := ctx.FloatFromBV(i, true, f64)
	fromU64 := ctx.FloatFromBV(i, false, f64)
	s, err := ctx.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	for range 60 {
		a, b := floatOperand(rng), floatOperand(rng)
		n := int64(rng.Uint64() >> rng.UintN(64))
		_ = s.Push()
		if err := s.Assert(x.Eq(ctx.Float64Val(a)), y.Eq(ctx.Float64Val(b)), i.Eq(ctx.BVInt(n, 64))); err != nil {
			t.Fatal(err)
		}
		m := satModel(t, s)
		for _, c := range arith {
			got, err := m.Float64(c.term)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.want(a, b); !sameFloat64(got, want) {
				t.Errorf("%v %s %v: z3 %v, Go %v", a, c.name, b, got, want)
			}
		}
		for _, c := range cmp {
			got, err := m.Bool(c.term)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.want(a, b); got != want {
				t.Errorf("%v %s %v: z3 %v, Go %v", a, c.name, b, got, want)
			}
		}
		if got, _ := m.Float32(toF32); !sameFloat64(float64(got), float64(float32(a))) {
			t.Errorf("float32(%v): z3 %v, Go %v", a, got, float32(a))
		}
		if math.Abs(a) < 1<<62 { // Go leaves out-of-range conversions implementation-defined
			if got, _ := m.Int64(toI64); got != int64(a) {
				t.Errorf("int64(%v): z3 %v, Go %v", a, got, int64(a))
			}
		}
		if got, _ := m.Float64(fromI64); got != float64(n) {
			t.Errorf("float64(int64 %d): z3 %v, Go %v", n, got, float64(n))
		}
		if got, _ := m.Float64(fromU64); got != float64(uint64(n)) {
			t.Errorf("float64(uint64 %d): z3 %v, Go %v", uint64(n), got, float64(uint64(n)))
		}
		_ = s.Pop(1)
	}
}

func TestArraysIntsReals(t *testing.T) {
	ctx := newTestContext(t)
	bv32 := ctx.BVSort(32)
	a := ctx.ArrayConst("a", bv32, bv32)
	i, j := ctx.BVConst("i", 32), ctx.BVConst("j", 32)
	b := a.Store(i.Expr, ctx.BVInt(7, 32)).Store(j.Expr, ctx.BVInt(9, 32))
	zero := ctx.ConstArray(bv32, ctx.BVInt(0, 32))
	n, q := ctx.IntConst("n"), ctx.RealConst("q")
	s, err := ctx.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	err = s.Assert(
		b.Select(i).AsBV().Eq(ctx.BVInt(9, 32)), // forces i == j
		a.Select(ctx.BVInt(3, 32)).AsBV().Eq(ctx.BVInt(-1, 32)),
		n.Mul(ctx.IntVal(3)).Eq(ctx.IntVal(-21)),
		q.Mul(ctx.RealVal(3, 1)).Eq(ctx.RealVal(1, 1)),
		ctx.IntVal(-7).Div(ctx.IntVal(2)).Eq(ctx.IntVal(-4)), // Euclidean, unlike Go's -3
	)
	if err != nil {
		t.Fatal(err)
	}
	m := satModel(t, s)
	iv, _ := m.Uint64(i)
	jv, _ := m.Uint64(j)
	if iv != jv {
		t.Errorf("i=%d j=%d, want equal", iv, jv)
	}
	if v, _ := m.Int64(a.Select(ctx.BVInt(3, 32)).AsBV()); v != -1 {
		t.Errorf("a[3] = %d", v)
	}
	if v, _ := m.Uint64(zero.Select(i).AsBV()); v != 0 {
		t.Errorf("const array = %d", v)
	}
	if v, _ := m.Big(n); v.Int64() != -7 {
		t.Errorf("n = %s", v)
	}
	if v, _ := m.Rat(q); v.Cmp(big.NewRat(1, 3)) != 0 {
		t.Errorf("q = %s", v)
	}
	if r, _ := s.CheckAssumptions(i.Eq(ctx.BVInt(1, 32)).Not(), j.Eq(ctx.BVInt(1, 32))); r != Sat {
		// i == j is forced, so assuming i != 1 and j == 1 is unsat.
		if r != Unsat {
			t.Fatalf("got %v", r)
		}
	} else {
		t.Error("assumptions contradicting i == j were sat")
	}
}

func TestUnsatCoreAndOptimize(t *testing.T) {
	ctx := newTestContext(t)
	p, q, r := ctx.BoolConst("p"), ctx.BoolConst("q"), ctx.BoolConst("r")
	s, _ := ctx.NewSolver()
	if err := s.Assert(p.Implies(q.Not())); err != nil {
		t.Fatal(err)
	}
	res, err := s.CheckAssumptions(p, q, r)
	if err != nil || res != Unsat {
		t.Fatal(res, err)
	}
	core, err := s.UnsatCore()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint32]bool{}
	for _, c := range core {
		ids[c.ID()] = true
	}
	if len(core) != 2 || !ids[p.ID()] || !ids[q.ID()] {
		t.Errorf("core = %v, want [p q]", core)
	}

	o, err := ctx.NewOptimize()
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Assert(ctx.AtMost([]Bool{p, q, r}, 1)); err != nil {
		t.Fatal(err)
	}
	for _, b := range []Bool{p, q, r} {
		if err := o.AssertSoft(b, 1, "g"); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.AssertSoft(r, 5, "g"); err != nil {
		t.Fatal(err)
	}
	if res, err := o.Check(); err != nil || res != Sat {
		t.Fatal(res, err)
	}
	m, _ := o.Model()
	if v, _ := m.Bool(r); !v {
		t.Error("optimum should satisfy the heavy soft constraint r")
	}
}

func TestErrorsAreGoErrors(t *testing.T) {
	ctx := newTestContext(t)
	x8, x16 := ctx.BVConst("x", 8), ctx.BVConst("y", 16)
	sum := x8.Add(x16)
	var zerr *Error
	if !errors.As(sum.Err(), &zerr) {
		t.Fatalf("mixed widths: err = %v, want *Error", sum.Err())
	}
	if derived := sum.Mul(x8); derived.Err() == nil {
		t.Error("error not propagated to derived term")
	}
	if err := ctx.BoolConst("b").Eq(x8).Err(); err == nil {
		t.Error("Bool == BV accepted")
	}
	arr := ctx.ArrayConst("a", ctx.IntSort(), ctx.IntSort())
	if err := arr.Select(x8).Err(); err == nil {
		t.Error("array indexed with the wrong sort")
	}
	if err := x8.Extract(9, 0).Err(); err == nil {
		t.Error("Extract beyond the width accepted")
	}
	if err := (BV{ctx.BoolConst("c").Expr}).ZeroExt(2).Err(); err == nil { // bypasses AsBV: Z3 itself must refuse
		t.Error("ZeroExt of a Bool accepted")
	}
	if err := ctx.BVSort(0).Err(); err == nil {
		t.Error("zero-width sort accepted")
	}
	if err := x8.Expr.AsBool().Err(); err == nil {
		t.Error("AsBool of a BV accepted")
	}
	s, _ := ctx.NewSolver()
	if err := s.Assert(sum.Eq(x8)); err == nil {
		t.Error("Assert of an ill-sorted term succeeded")
	}
	if err := s.Pop(3); err == nil {
		t.Error("Pop without scopes succeeded")
	}
	if err := s.SetParams(map[string]any{"no_such_parameter": true}); err == nil {
		t.Error("unknown solver parameter accepted")
	}
	if _, err := NewContext(Config{Params: map[string]string{"bogus": "1"}}); err == nil {
		t.Error("unknown context parameter accepted")
	}
	// The context still works after errors.
	if err := s.Assert(x8.Eq(ctx.BVInt(1, 8))); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Check(); err != nil || r != Sat {
		t.Fatal(r, err)
	}
	ctx.Close()
	if err := ctx.BVConst("z", 8).Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := s.Check(); !errors.Is(err, ErrClosed) {
		t.Errorf("Check after Close: %v", err)
	}
}

func TestTimeoutGivesUnknown(t *testing.T) {
	ctx, err := NewContext(Config{Timeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	for _, logic := range []string{"", "QF_FD"} {
		// Factoring a 128-bit semiprime by bit-blasting is out of reach in
		// 1ms on any machine (a 64-bit one sometimes fell within it).
		s := factoringSolver(t, ctx, logic)
		r, err := s.CheckAssumptions(ctx.BoolConst("p"))
		if err != nil {
			t.Fatal(err)
		}
		if r != Unknown {
			t.Fatalf("logic %q: got %v within 1ms", logic, r)
		}
		if s.ReasonUnknown() == "" {
			t.Errorf("logic %q: no reason for unknown", logic)
		}
	}
}

// waitReleased collects garbage until the context holds at most want
// references (cleanups run asynchronously after a collection).
func waitReleased(t *testing.T, ctx *Context, want int64) int64 {
	t.Helper()
	var live int64
	for range 400 {
		runtime.GC()
		if live = ctx.liveRefs(); live <= want {
			return live
		}
		time.Sleep(5 * time.Millisecond)
	}
	return live
}

// TestNoLeakAcrossManySolverCalls repeats a typical analysis round (terms,
// solver, assumptions, core, model, evaluation) and checks that the
// binding's references and Z3's memory stay bounded.
func TestNoLeakAcrossManySolverCalls(t *testing.T) {
	ctx := newTestContext(t)
	round := func(k int) {
		x, y := ctx.BVConst("x", 32), ctx.BVConst("y", 32)
		ab := ctx.FreshBool("ab")
		s, err := ctx.NewSolver()
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Assert(ctx.Or(ab, y.Eq(x.Mul(ctx.BVInt(int64(k), 32)))), x.Eq(ctx.BVInt(3, 32)))
		_ = s.Assert(y.Eq(ctx.BVInt(1, 32)))
		if r, err := s.CheckAssumptions(ab.Not()); err != nil || r != Unsat {
			t.Fatalf("round %d: %v %v", k, r, err)
		}
		if _, err := s.UnsatCore(); err != nil {
			t.Fatal(err)
		}
		if r, err := s.Check(); err != nil || r != Sat {
			t.Fatalf("round %d: %v %v", k, r, err)
		}
		m, _ := s.Model()
		if v, _ := m.Uint64(y); v != 1 {
			t.Fatalf("y = %d", v)
		}
	}
	for k := range 60 {
		round(k)
	}
	base := waitReleased(t, ctx, 0)
	mem := EstimatedAllocBytes()
	for k := range 300 {
		round(k)
	}
	if live := waitReleased(t, ctx, base); live > base {
		t.Errorf("binding holds %d references after the loop, %d before", live, base)
	}
	if after := EstimatedAllocBytes(); after > mem+mem/2+1<<20 {
		t.Errorf("Z3 memory grew from %d to %d bytes over 300 rounds", mem, after)
	}
}

func TestContextsCloseWithoutLeak(t *testing.T) {
	round := func() {
		ctx, err := NewContext(Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer ctx.Close()
		s, _ := ctx.NewSolver()
		x := ctx.BVConst("x", 64)
		_ = s.Assert(x.Add(ctx.BVInt(7, 64)).Eq(ctx.BVInt(49, 64)))
		if r, _ := s.Check(); r != Sat {
			t.Fatal(r)
		}
	}
	for range 20 {
		round()
	}
	mem := EstimatedAllocBytes()
	for range 100 {
		round()
	}
	if after := EstimatedAllocBytes(); after > mem+mem/2+1<<20 {
		t.Errorf("Z3 memory grew from %d to %d bytes over 100 contexts", mem, after)
	}
}

func TestMinimalCore(t *testing.T) {
	ctx := newTestContext(t)
	p := make([]Bool, 6)
	for i := range p {
		p[i] = ctx.BoolConst(fmt.Sprintf("p%d", i))
	}
	x := ctx.BVConst("x", 8)
	s, _ := ctx.NewSolver()
	// Two irreducible conflicts: {p0, p1} and {p3, p4, p5}.
	_ = s.Assert(p[0].Implies(x.ULT(ctx.BVUint(10, 8))), p[1].Implies(ctx.BVUint(20, 8).ULT(x)),
		p[3].Implies(x.Eq(ctx.BVUint(1, 8))), ctx.And(p[4], p[5]).Implies(x.Eq(ctx.BVUint(2, 8))))
	if r, _ := s.CheckAssumptions(p...); r != Unsat {
		t.Fatal(r)
	}
	core, err := s.UnsatCore()
	if err != nil {
		t.Fatal(err)
	}
	min, err := s.MinimalCore(core)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := s.CheckAssumptions(min...); r != Unsat {
		t.Fatalf("minimal core %v is satisfiable", min)
	}
	for i := range min {
		rest := append(append([]Bool(nil), min[:i]...), min[i+1:]...)
		if r, _ := s.CheckAssumptions(rest...); r != Sat {
			t.Errorf("core %v without %v is still %v: not minimal", min, min[i], r)
		}
	}
}
