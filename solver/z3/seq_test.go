//go:build cgo

package z3

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The sequence terms give Go's results on closed byte strings: length,
// clipped extraction (Go's s[lo:hi] within bounds), prefixes, suffixes,
// containment, first index, and Model.Bytes reads them back.
func TestSeqMatchesGo(t *testing.T) {
	ctx := newTestContext(t)
	s, err := ctx.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	x := ctx.SeqConst("x", ctx.ByteSeqSort())
	if err := s.Assert(x.Eq(ctx.BytesVal([]byte("a\x00\xffz")))); err != nil {
		t.Fatal(err)
	}
	m := satModel(t, s)
	if got, err := m.Bytes(x); err != nil || string(got) != "a\x00\xffz" {
		t.Errorf("Model.Bytes(x) = %q, %v", got, err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	word := func() string {
		n := rng.IntN(6)
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab\x00\xff"[rng.IntN(4)]
		}
		return string(b)
	}
	num := func(i Int) int64 {
		t.Helper()
		n, err := m.Big(i)
		if err != nil {
			t.Fatal(err)
		}
		return n.Int64()
	}
	truth := func(b Bool) bool {
		t.Helper()
		v, err := m.Bool(b)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for range 300 {
		a, b := word(), word()
		sa, sb := ctx.BytesVal([]byte(a)), ctx.BytesVal([]byte(b))
		if got := num(sa.Len()); got != int64(len(a)) {
			t.Errorf("len(%q) = %d", a, got)
		}
		if got, err := m.Bytes(sa.Concat(sb)); err != nil || string(got) != a+b {
			t.Errorf("%q + %q = %q, %v", a, b, got, err)
		}
		lo, hi := rng.IntN(len(a)+1), 0
		hi = lo + rng.IntN(len(a)-lo+1)
		got, err := m.Bytes(sa.Extract(ctx.IntVal(int64(lo)), ctx.IntVal(int64(hi-lo))))
		if err != nil || string(got) != a[lo:hi] {
			t.Errorf("%q[%d:%d] = %q, %v", a, lo, hi, got, err)
		}
		if got := truth(sa.HasPrefix(sb)); got != strings.HasPrefix(a, b) {
			t.Errorf("HasPrefix(%q, %q) = %v", a, b, got)
		}
		if got := truth(sa.HasSuffix(sb)); got != strings.HasSuffix(a, b) {
			t.Errorf("HasSuffix(%q, %q) = %v", a, b, got)
		}
		if got := truth(sa.Contains(sb)); got != strings.Contains(a, b) {
			t.Errorf("Contains(%q, %q) = %v", a, b, got)
		}
		if got := num(sa.IndexFrom(sb, ctx.IntVal(0))); got != int64(strings.Index(a, b)) {
			t.Errorf("Index(%q, %q) = %d", a, b, got)
		}
		if len(a) > 0 {
			i := rng.IntN(len(a))
			v, err := m.Uint64(sa.Nth(ctx.IntVal(int64(i))).AsBV())
			if err != nil || byte(v) != a[i] {
				t.Errorf("%q[%d] = %d, %v", a, i, v, err)
			}
		}
		if got := truth(sa.Eq(sb)); got != (a == b) {
			t.Errorf("%q == %q: %v", a, b, got)
		}
	}
	for _, v := range []int64{0, 1, 255, -1, 1 << 40} {
		if got := num(ctx.BVInt(v, 64).ToInt(true)); got != v {
			t.Errorf("bv2int(%d) = %d", v, got)
		}
		u, err := m.Int64(ctx.IntVal(v).ToBV(64))
		if err != nil || u != v {
			t.Errorf("int2bv(%d) = %d, %v", v, u, err)
		}
	}
}

// A solver finds a byte string under length and content constraints.
func TestSeqSolve(t *testing.T) {
	ctx := newTestContext(t)
	s, err := ctx.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	x := ctx.SeqConst("x", ctx.ByteSeqSort())
	pre := ctx.BytesVal([]byte("1,000"))
	if err := s.Assert(x.HasPrefix(pre), x.Len().Eq(ctx.IntVal(9)), x.HasSuffix(ctx.BytesVal([]byte("00")))); err != nil {
		t.Fatal(err)
	}
	m := satModel(t, s)
	got, err := m.Bytes(x)
	if err != nil || len(got) != 9 || !strings.HasPrefix(string(got), "1,000") || !strings.HasSuffix(string(got), "00") {
		t.Errorf("model x = %q, %v", got, err)
	}
}
