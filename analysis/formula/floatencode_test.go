//go:build cgo

package formula

import (
	"go/token"
	"go/types"
	"math"
	"testing"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// TestFloatEncoding checks the encoder's float terms against Go on closed
// operands: arithmetic, comparisons with NaN and signed zeros, conversions
// float <-> int and float64 -> float32, and the fixed value of an
// out-of-range float-to-int conversion.
func TestFloatEncoding(t *testing.T) {
	z, err := z3.NewContext(z3.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	e := &encoder{z: z}
	s, err := z.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Check(); err != nil || r != z3.Sat {
		t.Fatalf("empty formula: %v %v", r, err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	f64, f32 := types.Typ[types.Float64], types.Typ[types.Float32]
	i64, i32, u8 := types.Typ[types.Int64], types.Typ[types.Int32], types.Typ[types.Uint8]
	bitsOf := func(x float64) int64 { return int64(math.Float64bits(x)) }
	values := []float64{0, math.Copysign(0, -1), 1.5, -2.75, 1e300, math.Inf(1), math.NaN(), 0.1, 255.9, -0.5}
	for _, x := range values {
		for _, y := range values {
			l, r := e.lit(f64, instrument.Value{N: bitsOf(x)}), e.lit(f64, instrument.Value{N: bitsOf(y)})
			arith := map[token.Token]float64{token.ADD: x + y, token.SUB: x - y, token.MUL: x * y, token.QUO: x / y}
			for op, want := range arith {
				got, err := m.Float64(e.binary(op, l, r, f64, f64).t.AsFloat())
				if err != nil {
					t.Fatal(err)
				}
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("%v %s %v: formula %v, Go %v", x, op, y, got, want)
				}
			}
			cmp := map[token.Token]bool{token.EQL: x == y, token.NEQ: x != y, token.LSS: x < y,
				token.LEQ: x <= y, token.GTR: x > y, token.GEQ: x >= y}
			for op, want := range cmp {
				got, err := m.Bool(e.binary(op, l, r, f64, f64).t.AsBool())
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%v %s %v: formula %v, Go %v", x, op, y, got, want)
				}
			}
		}
		narrowed, err := m.Float32(e.convert(e.lit(f64, instrument.Value{N: bitsOf(x)}), f64, f32).t.AsFloat())
		if err != nil {
			t.Fatal(err)
		}
		if want := float32(x); math.Float32bits(narrowed) != math.Float32bits(want) && !math.IsNaN(float64(want)) {
			t.Errorf("float32(%v): formula %v, Go %v", x, narrowed, want)
		}
	}
	toInt := []struct {
		x    float64
		to   types.Type
		want int64
	}{
		{2.9, i64, 2}, {-2.9, i64, -2}, {-0.5, u8, 0}, {255.9, u8, 255}, {-2147483648.9, i32, -2147483648},
		{-9223372036854775808, i64, math.MinInt64},
		// Out of range: the integer with only the sign bit set.
		{256, u8, 128}, {-1, u8, 128}, {2147483648, i32, math.MinInt32}, {1e300, i64, math.MinInt64},
		{math.NaN(), i64, math.MinInt64}, {math.Inf(-1), i32, math.MinInt32},
	}
	for _, c := range toInt {
		v := e.convert(e.lit(f64, instrument.Value{N: bitsOf(c.x)}), f64, c.to).t.AsBV()
		n, signed := instrument.Bits(c.to)
		var got int64
		if signed {
			got, err = m.Int64(v)
		} else {
			var u uint64
			u, err = m.Uint64(v)
			got = int64(u)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s(%v) (%d bits): formula %d, want %d", c.to, c.x, n, got, c.want)
		}
	}
	for _, n := range []int64{0, -7, 1<<53 + 1, math.MaxInt64} {
		got, err := m.Float64(e.convert(e.lit(i64, instrument.Value{N: n}), i64, f64).t.AsFloat())
		if err != nil {
			t.Fatal(err)
		}
		if got != float64(n) {
			t.Errorf("float64(%d): formula %v, Go %v", n, got, float64(n))
		}
	}
}
