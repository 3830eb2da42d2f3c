//go:build cgo

package formula

import (
	"bytes"
	"go/token"
	"go/types"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// TestSeqEncoding checks the encoder's string and byte slice terms, and
// the replay's concrete evaluation of them, against Go on random operands
// over an alphabet with bytes above 0x7f (Go compares bytes unsigned):
// concatenation, comparisons, len, indexing, slicing, conversions from
// integers (runes) and to and from []byte, and the modelled library
// functions of strings, bytes and strconv.
func TestSeqEncoding(t *testing.T) {
	z, err := z3.NewContext(z3.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &encoder{z: z, enum: enum}
	str, byts := types.Typ[types.String], types.NewSlice(types.Typ[types.Byte])
	i64, i32, u8, intT := types.Typ[types.Int64], types.Typ[types.Int32], types.Typ[types.Uint8], types.Typ[types.Int]
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte{'a', 'b', '.', '0', 0x00, 0x7f, 0x80, 0xff}
	randString := func() string {
		b := make([]byte, rng.Intn(5))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return string(b)
	}

	// Each check builds a term and the value Go computes; a model of the
	// hard constraints the term added (the definitions seqLess adds)
	// evaluates it.
	type check struct {
		what  string
		term  sv
		t     types.Type
		want  instrument.Value
		hards []z3.Bool
	}
	var checks []check
	defined := 0
	add := func(what string, term sv, t types.Type, want instrument.Value) {
		checks = append(checks, check{what, term, t, want, e.hards[defined:]})
		defined = len(e.hards)
	}
	s := func(x string) sv { return e.lit(str, instrument.Value{S: x}) }
	n := func(t types.Type, x int64) sv { return e.lit(t, instrument.Value{N: instrument.Normalize(t, x)}) }
	for i := 0; i < 30; i++ {
		x, y := randString(), randString()
		q := strconv.Quote
		add(q(x)+"+"+q(y), e.binary(token.ADD, s(x), s(y), str, str), str, instrument.Value{S: x + y})
		for op, want := range map[token.Token]bool{token.EQL: x == y, token.NEQ: x != y, token.LSS: x < y,
			token.LEQ: x <= y, token.GTR: x > y, token.GEQ: x >= y} {
			add(q(x)+op.String()+q(y), e.binary(op, s(x), s(y), str, str), types.Typ[types.Bool], instrument.BoolValue(want))
		}
		add("len "+q(x), e.seqLenValue(s(x), "len", intT), intT, instrument.Value{N: int64(len(x))})
		if len(x) > 0 {
			k := rng.Intn(len(x))
			add(q(x)+"["+strconv.Itoa(k)+"]", e.seqIndex(s(x), n(intT, int64(k)), intT), u8, instrument.Value{N: int64(x[k])})
			lo := rng.Intn(len(x) + 1)
			hi := lo + rng.Intn(len(x)-lo+1)
			l, h := n(intT, int64(lo)), n(intT, int64(hi))
			add(q(x)+"[lo:hi]", e.seqSlice(s(x), &l, &h, intT, intT), str, instrument.Value{S: x[lo:hi]})
			add(q(x)+"[lo:]", e.seqSlice(s(x), &l, nil, intT, nil), str, instrument.Value{S: x[lo:]})
			add(q(x)+"[:hi]", e.seqSlice(s(x), nil, &h, nil, intT), str, instrument.Value{S: x[:hi]})
		}
		add("[]byte "+q(x), e.convert(s(x), str, byts), byts, instrument.Value{S: string([]byte(x))})
		k := int64(rng.Intn(4))
		calls := map[string]struct {
			args []sv
			ts   []types.Type
			t    types.Type
			want instrument.Value
		}{
			"strings.Index":      {[]sv{s(x), s(y)}, []types.Type{str, str}, intT, instrument.IntValue(strings.Index(x, y))},
			"strings.IndexByte":  {[]sv{s(x), n(u8, 0x80)}, []types.Type{str, u8}, intT, instrument.IntValue(strings.IndexByte(x, 0x80))},
			"strings.Contains":   {[]sv{s(x), s(y)}, []types.Type{str, str}, types.Typ[types.Bool], instrument.BoolValue(strings.Contains(x, y))},
			"strings.HasPrefix":  {[]sv{s(x), s(y)}, []types.Type{str, str}, types.Typ[types.Bool], instrument.BoolValue(strings.HasPrefix(x, y))},
			"strings.HasSuffix":  {[]sv{s(x), s(y)}, []types.Type{str, str}, types.Typ[types.Bool], instrument.BoolValue(strings.HasSuffix(x, y))},
			"strings.TrimPrefix": {[]sv{s(x), s(y)}, []types.Type{str, str}, str, instrument.Value{S: strings.TrimPrefix(x, y)}},
			"strings.TrimSuffix": {[]sv{s(x), s(y)}, []types.Type{str, str}, str, instrument.Value{S: strings.TrimSuffix(x, y)}},
			"strings.Repeat":     {[]sv{s(x), n(intT, k)}, []types.Type{str, intT}, str, instrument.Value{S: strings.Repeat(x, int(k))}},
			"strings.Compare":    {[]sv{s(x), s(y)}, []types.Type{str, str}, intT, instrument.IntValue(strings.Compare(x, y))},
			"bytes.Equal":        {[]sv{s(x), s(y)}, []types.Type{byts, byts}, types.Typ[types.Bool], instrument.BoolValue(bytes.Equal([]byte(x), []byte(y)))},
		}
		for name, c := range calls {
			add(name+"("+q(x)+", "+q(y)+")", e.seqCall(name, instrument.SeqFuncs[name], c.args, c.ts, c.t), c.t, c.want)
		}
	}
	for _, r := range []int64{0, 'a', 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdfff, 0xffff, 0x10000, 0x10ffff, 0x110000, -1} {
		add("string(rune "+strconv.FormatInt(r, 10)+")", e.convert(n(i32, r), i32, str), str, instrument.Value{S: string(rune(r))})
		add("string(int64 "+strconv.FormatInt(r, 10)+")", e.convert(n(i64, r), i64, str), str, instrument.Value{S: string(rune(r))})
	}
	for _, x := range []int64{0, 7, -7, 10, 99, 100, -100, 1 << 40, -1 << 63, 1<<63 - 1} {
		add("Itoa "+strconv.FormatInt(x, 10), e.seqCall("strconv.Itoa", instrument.SeqFuncs["strconv.Itoa"], []sv{n(intT, x)}, []types.Type{intT}, str), str, instrument.Value{S: strconv.Itoa(int(x))})
		add("FormatUint "+strconv.FormatInt(x, 10), e.seqCall("strconv.FormatUint", instrument.SeqFuncs["strconv.FormatUint"], []sv{n(types.Typ[types.Uint64], x), n(intT, 10)}, []types.Type{types.Typ[types.Uint64], intT}, str), str, instrument.Value{S: strconv.FormatUint(uint64(x), 10)})
	}
	for _, x := range []int64{0, 8, -8, 127, -128} {
		add("FormatInt int8 "+strconv.FormatInt(x, 10), e.seqCall("strconv.FormatInt", instrument.SeqFuncs["strconv.FormatInt"], []sv{n(types.Typ[types.Int8], x), n(intT, 10)}, []types.Type{types.Typ[types.Int8], intT}, str), str, instrument.Value{S: strconv.FormatInt(x, 10)})
	}

	for _, c := range checks {
		solver, err := z.NewSolver()
		if err != nil {
			t.Fatal(err)
		}
		if err := solver.Assert(c.hards...); err != nil {
			t.Fatal(err)
		}
		if r, err := solver.Check(); err != nil || r != z3.Sat {
			t.Fatalf("%s: the definitions: %v %v", c.what, r, err)
		}
		m, err := solver.Model()
		if err != nil {
			t.Fatal(err)
		}
		if !c.term.hasTerm() {
			t.Errorf("%s: no term", c.what)
			continue
		}
		if !c.term.known || !instrument.SameValue(c.t, c.term.c, c.want) {
			t.Errorf("%s: replay evaluates %+v (known %v), Go %+v", c.what, c.term.c, c.term.known, c.want)
		}
		var got instrument.Value
		switch instrument.ValueKind(c.t) {
		case 's', 'y':
			b, err := m.Bytes(c.term.t.AsSeq())
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			got = instrument.Value{S: string(b)}
		case 'b':
			b, err := m.Bool(c.term.t.AsBool())
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			got = instrument.BoolValue(b)
		default:
			x, err := m.Int64(c.term.t.AsBV())
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			got = instrument.Value{N: instrument.Normalize(c.t, x)}
		}
		if got != c.want {
			t.Errorf("%s: formula %+v, Go %+v", c.what, got, c.want)
		}
	}
}
