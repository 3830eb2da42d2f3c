//go:build cgo

package z3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

type goInt interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

func newTestContext(t testing.TB) *Context {
	t.Helper()
	ctx, err := NewContext(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctx.Close)
	return ctx
}

// satModel checks s, which the test made satisfiable, and returns its
// model.
func satModel(t testing.TB, s *Solver) *Model {
	t.Helper()
	if r, err := s.Check(); err != nil || r != Sat {
		t.Fatalf("check: %v %v", r, err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mask(bits uint) uint64 {
	if bits >= 64 {
		return math.MaxUint64
	}
	return 1<<bits - 1
}

// operand draws edge values half of the time, random bit patterns otherwise.
func operand[T goInt](rng *rand.Rand) T {
	bits := uint(unsafe.Sizeof(T(0)) * 8)
	signed := ^T(0) < 0
	min, max := uint64(0), mask(bits)
	if signed {
		min, max = 1<<(bits-1), mask(bits-1)
	}
	edges := []uint64{0, 1, 2, math.MaxUint64, min, max, min + 1, max - 1, 7, 1 << (bits / 2)}
	if rng.IntN(2) == 0 {
		return T(edges[rng.IntN(len(edges))])
	}
	return T(rng.Uint64() >> rng.UintN(64))
}

type bvCase[T goInt] struct {
	name string
	term BV
	want func(a, b T, c8 uint8, c64 uint64) uint64
}

func conv[T, U goInt](a T) uint64 { return uint64(U(a)) }

// checkIntType compares Z3's evaluation of every operation on one Go
// integer type with Go's own result, for random operands.
func checkIntType[T goInt](t *testing.T, ctx *Context, rng *rand.Rand, trials int) {
	bits := uint(unsafe.Sizeof(T(0)) * 8)
	signed := ^T(0) < 0
	x, y := ctx.BVConst("x", bits), ctx.BVConst("y", bits)
	c8, c64 := ctx.BVConst("c8", 8), ctx.BVConst("c64", 64)
	cases := []bvCase[T]{
		{"+", x.Add(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a + b) }},
		{"-", x.Sub(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a - b) }},
		{"*", x.Mul(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a * b) }},
		{"neg", x.Neg(), func(a, _ T, _ uint8, _ uint64) uint64 { return uint64(-a) }},
		{"^x", x.Not(), func(a, _ T, _ uint8, _ uint64) uint64 { return uint64(^a) }},
		{"&", x.And(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a & b) }},
		{"|", x.Or(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a | b) }},
		{"^", x.Xor(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a ^ b) }},
		{"&^", x.AndNot(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a &^ b) }},
		{"/", x.Div(y, signed), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a / b) }},
		{"%", x.Rem(y, signed), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a % b) }},
		{"<<uint8", x.GoShl(c8), func(a, _ T, s uint8, _ uint64) uint64 { return uint64(a << s) }},
		{">>uint8", x.GoShr(c8, signed), func(a, _ T, s uint8, _ uint64) uint64 { return uint64(a >> s) }},
		{"<<uint64", x.GoShl(c64), func(a, _ T, _ uint8, s uint64) uint64 { return uint64(a << s) }},
		{">>uint64", x.GoShr(c64, signed), func(a, _ T, _ uint8, s uint64) uint64 { return uint64(a >> s) }},
		{"<<same", x.GoShl(y), func(a, b T, _ uint8, _ uint64) uint64 { return uint64(a << (uint64(b) & mask(bits))) }},
		{"int8()", x.Convert(8, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, int8](a) }},
		{"uint8()", x.Convert(8, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, uint8](a) }},
		{"int16()", x.Convert(16, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, int16](a) }},
		{"uint16()", x.Convert(16, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, uint16](a) }},
		{"int32()", x.Convert(32, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, int32](a) }},
		{"uint32()", x.Convert(32, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, uint32](a) }},
		{"int64()", x.Convert(64, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, int64](a) }},
		{"uint64()", x.Convert(64, signed), func(a, _ T, _ uint8, _ uint64) uint64 { return conv[T, uint64](a) }},
	}
	boolCases := []struct {
		name string
		term Bool
		want func(a, b T) bool
	}{
		{"<", x.Less(y, signed), func(a, b T) bool { return a < b }},
		{"<=", x.LessEq(y, signed), func(a, b T) bool { return a <= b }},
		{"==", x.Eq(y), func(a, b T) bool { return a == b }},
		{"!=", x.NotEq(y), func(a, b T) bool { return a != b }},
	}
	s, err := ctx.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	for range trials {
		a, b := operand[T](rng), operand[T](rng)
		if b == 0 { // Go panics; the analysis guards division separately
			b = 1
		}
		s8 := uint8(rng.UintN(bits + 8))
		s64 := uint64(rng.UintN(bits + 8))
		if rng.IntN(4) == 0 {
			s64 = rng.Uint64() // far beyond the width: must not wrap around
		}
		if err := s.Push(); err != nil {
			t.Fatal(err)
		}
		if err := s.Assert(
			x.Eq(ctx.BVUint(uint64(a), bits)), y.Eq(ctx.BVUint(uint64(b), bits)),
			c8.Eq(ctx.BVUint(uint64(s8), 8)), c64.Eq(ctx.BVUint(s64, 64)),
		); err != nil {
			t.Fatal(err)
		}
		m := satModel(t, s)
		for _, c := range cases {
			got, err := m.Uint64(c.term)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			wantBits := c.term.Bits()
			if want := c.want(a, b, s8, s64) & mask(wantBits); got != want {
				t.Errorf("%T: %v %s %v (counts %d, %d): z3 %#x, Go %#x", a, a, c.name, b, s8, s64, got, want)
			}
		}
		for _, c := range boolCases {
			got, err := m.Bool(c.term)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.want(a, b); got != want {
				t.Errorf("%T: %v %s %v: z3 %v, Go %v", a, a, c.name, b, got, want)
			}
		}
		if signed {
			got, err := m.Int64(x)
			if err != nil || got != int64(a) {
				t.Errorf("%T: Int64 of %v = %v, %v", a, a, got, err)
			}
		}
		if err := s.Pop(1); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBVMatchesGoArithmetic(t *testing.T) {
	ctx := newTestContext(t)
	const trials = 40
	run := func(name string, f func(*testing.T, *Context, *rand.Rand, int)) {
		t.Run(name, func(t *testing.T) { f(t, ctx, rand.New(rand.NewPCG(4, uint64(len(name)))), trials) })
	}
	run("int8", checkIntType[int8])
	run("int16", checkIntType[int16])
	run("int32", checkIntType[int32])
	run("int64", checkIntType[int64])
	run("int", checkIntType[int])
	run("uint8", checkIntType[uint8])
	run("uint16", checkIntType[uint16])
	run("uint32", checkIntType[uint32])
	run("uint64", checkIntType[uint64])
	run("uint", checkIntType[uint])
	run("uintptr", checkIntType[uintptr])
}

func TestBVNumerals(t *testing.T) {
	ctx := newTestContext(t)
	s, err := ctx.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	m := satModel(t, s)
	for _, tc := range []struct {
		v    int64
		bits uint
	}{{-1, 8}, {-128, 8}, {127, 8}, {300, 8}, {math.MinInt64, 64}, {-5, 128}} {
		n := ctx.BVInt(tc.v, tc.bits)
		got, err := m.Big(n)
		if err != nil {
			t.Fatal(err)
		}
		want := uint64(tc.v) & mask(tc.bits)
		if tc.bits > 64 {
			if got.Sign() <= 0 || got.BitLen() != int(tc.bits) {
				t.Errorf("BVInt(%d, %d) = %s", tc.v, tc.bits, got)
			}
			continue
		}
		if got.Uint64() != want {
			t.Errorf("BVInt(%d, %d) = %s, want %d", tc.v, tc.bits, got, want)
		}
	}
	if got := fmt.Sprint(ctx.BVUint(5, 4).Bits()); got != "4" {
		t.Errorf("Bits = %s", got)
	}
}
