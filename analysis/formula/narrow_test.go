//go:build cgo

package formula

import (
	"go/types"
	"math"
	"testing"

	"github.com/faultline-go/faultline/analysis/instrument"
)

func TestRingDistance(t *testing.T) {
	for _, c := range []struct {
		a, b uint64
		n    uint
		want uint64
	}{
		{5, 3, 64, 2},
		{3, 5, 64, 2},
		{0, math.MaxUint64, 64, 1},
		{250, 5, 8, 11},
		{100000, 30000, 64, 70000},
	} {
		if got := ringDistance(c.a, c.b, c.n); got != c.want {
			t.Errorf("ringDistance(%d, %d, %d) = %d, want %d", c.a, c.b, c.n, got, c.want)
		}
	}
}

func TestExtreme(t *testing.T) {
	i64 := &instrument.Site{Typ: types.Typ[types.Int64]}
	u8 := &instrument.Site{Typ: types.Typ[types.Uint8]}
	i8 := &instrument.Site{Typ: types.Typ[types.Int8]}
	for _, c := range []struct {
		s    *instrument.Site
		v    int64
		want bool
	}{
		{i64, 100000, false},
		{i64, math.MaxInt64, true},
		{i64, math.MinInt64 + 5, true},
		{i64, 2305843009213693950, false}, // 2^61: far, but not at the end
		{i64, math.MaxInt64 - 1<<50, true},
		{u8, 255, true},
		{u8, 200, false},
		{i8, 127, true},
		{i8, -128, true},
		{i8, 100, false},
	} {
		if got := extreme(c.s, c.v); got != c.want {
			t.Errorf("extreme(%s, %d) = %v, want %v", c.s.Typ, c.v, got, c.want)
		}
	}
}
