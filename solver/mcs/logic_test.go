//go:build cgo

package mcs

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestAutoLogicFallsBackOutsideFiniteDomain: floats and arrays are not
// finite-domain constraints; the automatic choice must notice and give
// the same answers on the general solver.
func TestAutoLogicFallsBackOutsideFiniteDomain(t *testing.T) {
	for _, alg := range []Algorithm{HittingSet, Levels} {
		t.Run(alg.String(), func(t *testing.T) {
			ctx := newContext(t)
			e, err := New[string](ctx, Options{Algorithm: alg})
			if err != nil {
				t.Fatal(err)
			}
			if e.Logic() != FiniteDomainLogic {
				t.Fatalf("starts with %q", e.Logic())
			}
			x := ctx.FloatConst("x", ctx.Float64Sort())
			a := ctx.ArrayConst("a", ctx.BVSort(8), ctx.BVSort(8))
			i := ctx.BVConst("i", 8)
			if err := e.AddHard(x.Mul(ctx.Float64Val(2)).IEEEEq(ctx.Float64Val(6)), a.Select(i).Eq(ctx.BVUint(4, 8))); err != nil {
				t.Fatal(err)
			}
			_, _ = e.AddSoft("x is 1", x.IEEEEq(ctx.Float64Val(1)))
			_, _ = e.AddSoft("x is 3", x.IEEEEq(ctx.Float64Val(3)))
			_, _ = e.AddSoft("a[i] is 5", a.Select(i).Eq(ctx.BVUint(5, 8)))
			var got []string
			for c, err := range e.Enumerate(context.Background(), Bounds{}) {
				if err != nil {
					t.Fatal(err)
				}
				if v, _ := c.Model.Float64(x); v != 3 {
					t.Errorf("x = %v in the model of %v", v, c.Tags)
				}
				got = append(got, c.Tags...)
				if len(c.Tags) != 2 {
					t.Errorf("MCS %v, want both conflicting soft constraints", c.Tags)
				}
			}
			slices.Sort(got)
			if want := []string{"a[i] is 5", "x is 1"}; !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			if e.Logic() != GeneralLogic {
				t.Errorf("still on %q", e.Logic())
			}
		})
	}
	ctx := newContext(t)
	e, _ := New[string](ctx, Options{Logic: FiniteDomainLogic})
	x := ctx.FloatConst("x", ctx.Float64Sort())
	_, _ = e.AddSoft("x", x.IsNaN())
	var last error
	for _, err := range e.Enumerate(context.Background(), Bounds{}) {
		last = err
	}
	if !errors.Is(last, errOutsideLogic) {
		t.Errorf("forced finite-domain logic with floats: %v", last)
	}
}
