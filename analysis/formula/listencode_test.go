//go:build cgo

package formula

import (
	"fmt"
	"go/token"
	"go/types"
	"math/big"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// TestListEncoding checks the encoder's list terms (slices of integers),
// and the replay's concrete evaluation of them, against Go: random
// programs of appends (of elements and of a list spread), element stores,
// slice expressions, index reads, len and comparisons as reflect.DeepEqual
// makes them, on lists of int32, uint16 and int64 whose initial value is a
// free array constrained only up to its length (so that what lies past a
// list's length cannot leak into a result).
func TestListEncoding(t *testing.T) {
	e := testEncoder(t)
	z := e.z
	rng := rand.New(rand.NewSource(1))
	intT := types.Typ[types.Int]
	for _, elem := range []types.Type{types.Typ[types.Int32], types.Typ[types.Uint16], types.Typ[types.Int64]} {
		lt := types.NewSlice(elem)
		randElem := func() int64 {
			return instrument.Normalize(elem, []int64{0, 1, -1, 7, 1 << 15, -1 << 31, 1<<63 - 1}[rng.Intn(7)]+int64(rng.Intn(3)))
		}
		randList := func() []int64 {
			xs := make([]int64, rng.Intn(5))
			for i := range xs {
				xs[i] = randElem()
			}
			return xs
		}
		n := func(x int64) sv { return e.lit(intT, instrument.Value{N: x}) }
		for prog := 0; prog < 8; prog++ {
			// The initial list: a free array equal to the recorded one up
			// to its length.
			goList := randList()
			e.fresh++
			start := z.Const(fmt.Sprintf("start%d", e.fresh), e.listSortOf(lt))
			hards := []z3.Bool{e.valueEq(lt, start, ints(goList, elem))}
			cur := sv{t: start, c: ints(goList, elem), known: true}
			var steps []string
			type check struct {
				what string
				term sv
				t    types.Type
				want instrument.Value
			}
			var checks []check
			for step := 0; step < 6; step++ {
				switch op := rng.Intn(6); {
				case op == 0:
					x := randElem()
					cur = e.listAppend(lt, cur, []sv{e.lit(elem, instrument.Value{N: x})}, false)
					goList = append(goList, x)
					steps = append(steps, fmt.Sprintf("append %d", x))
				case op == 1:
					other := randList()
					cur = e.listAppend(lt, cur, []sv{e.lit(lt, ints(other, elem))}, true)
					goList = append(goList, other...)
					steps = append(steps, fmt.Sprintf("append %v...", other))
				case op == 2 && len(goList) > 0:
					i, x := int64(rng.Intn(len(goList))), randElem()
					v := types.NewVar(token.NoPos, nil, "xs", lt)
					a := &activation{env: map[*types.Var]sv{v: cur}}
					e.listStore(a, &seqTarget{v: v, index: n(i), it: intT, elem: elem}, cur, e.lit(elem, instrument.Value{N: x}))
					cur = a.env[v]
					goList = slices.Clone(goList)
					goList[i] = x
					steps = append(steps, fmt.Sprintf("[%d] = %d", i, x))
				case op == 3:
					lo := int64(rng.Intn(len(goList) + 1))
					hi := lo + int64(rng.Intn(len(goList)-int(lo)+1))
					l, h := n(lo), n(hi)
					cur = e.listSlice(lt, cur, &l, &h, intT, intT)
					goList = goList[lo:hi]
					steps = append(steps, fmt.Sprintf("[%d:%d]", lo, hi))
				case op == 4 && len(goList) > 0:
					i := int64(rng.Intn(len(goList)))
					checks = append(checks, check{fmt.Sprintf("%v [%d]", steps, i), e.listIndex(cur, n(i), intT, elem), elem, instrument.Value{N: goList[i]}})
				default:
					other := randList()
					if rng.Intn(2) == 0 {
						other = slices.Clone(goList)
					}
					if len(other) == 0 && len(goList) == 0 {
						continue // equal or not by nil-ness, which lists do not carry
					}
					eq := e.listCompare(token.EQL, cur, e.lit(lt, ints(other, elem)), lt)
					want := reflect.DeepEqual(append([]int64{}, goList...), append([]int64{}, other...))
					checks = append(checks, check{fmt.Sprintf("%v == %v", steps, other), eq, types.Typ[types.Bool], instrument.BoolValue(want)})
				}
				checks = append(checks, check{fmt.Sprintf("%v len", steps), e.listLenValue(cur, lt, intT), intT, instrument.Value{N: int64(len(goList))}},
					check{fmt.Sprint(steps), cur, lt, ints(goList, elem)})
			}
			for _, c := range checks {
				checkTerm(t, z, e, c.what, c.term, c.t, c.want, hards...)
			}
		}
	}
}

// evalIn is the value of term (of type t) in a model of hards; the term
// must have that value in every model: the check asserts its negation and
// expects no model.
func evalIn(z *z3.Context, hards []z3.Bool, term z3.Expr, t types.Type) (instrument.Value, error) {
	s, err := z.NewSolver()
	if err != nil {
		return instrument.Value{}, err
	}
	if err := s.Assert(hards...); err != nil {
		return instrument.Value{}, err
	}
	if r, err := s.Check(); err != nil || r != z3.Sat {
		return instrument.Value{}, fmt.Errorf("the constraints: %v %v", r, err)
	}
	m, err := s.Model()
	if err != nil {
		return instrument.Value{}, err
	}
	var got instrument.Value
	switch instrument.ValueKind(t) {
	case 'l':
		got, err = listModel(m, term, t)
	case 'r':
		var x *big.Int
		x, err = m.Big(term)
		got = scalarsOf(x, t)
	case 'b':
		var b bool
		b, err = m.Bool(term.AsBool())
		got = instrument.BoolValue(b)
	default:
		var x int64
		x, err = m.Int64(term.AsBV())
		got = instrument.Value{N: instrument.Normalize(t, x)}
	}
	if err != nil {
		return instrument.Value{}, err
	}
	// Another model must not give another value.
	e := &encoder{z: z}
	var other z3.Bool
	if instrument.ValueKind(t) == 'l' {
		other = e.valueEq(t, term, got).Not()
	} else {
		other = term.Eq(e.term(t, got)).Not()
	}
	if err := s.Assert(other); err != nil {
		return instrument.Value{}, err
	}
	if r, err := s.Check(); err != nil || r != z3.Unsat {
		return instrument.Value{}, fmt.Errorf("the value is not determined (%v %v): one model has %+v", r, err, got)
	}
	return got, nil
}

// ints is the recorded value of a list of integers of type elem.
func ints(xs []int64, elem types.Type) instrument.Value {
	vs := make([]instrument.Value, len(xs))
	for i, x := range xs {
		vs[i] = instrument.Value{N: x}
	}
	return instrument.ListOf(vs, elem)
}

// TestRecordEncoding checks the encoder's record terms (structs of
// integer and Boolean fields) against Go on random values: field reads
// and stores, literals keyed in any order, == and !=, and lists of
// records (element reads, stores, append).
func TestRecordEncoding(t *testing.T) {
	e := testEncoder(t)
	z := e.z
	rng := rand.New(rand.NewSource(2))
	fieldTypes := []types.Type{types.Typ[types.Int8], types.Typ[types.Bool], types.Typ[types.Uint32], types.Typ[types.Int]}
	var vars []*types.Var
	for i, ft := range fieldTypes {
		vars = append(vars, types.NewField(token.NoPos, nil, fmt.Sprintf("F%d", i), ft, false))
	}
	rt := types.NewStruct(vars, nil)
	lt := types.NewSlice(rt)
	intT := types.Typ[types.Int]
	randField := func(ft types.Type) instrument.Value {
		if instrument.ValueKind(ft) == 'b' {
			return instrument.BoolValue(rng.Intn(2) == 0)
		}
		return instrument.Value{N: instrument.Normalize(ft, []int64{0, 1, -1, 127, -128, 1 << 31, 1<<63 - 1}[rng.Intn(7)])}
	}
	randRecord := func() []instrument.Value {
		fs := make([]instrument.Value, len(fieldTypes))
		for i, ft := range fieldTypes {
			fs[i] = randField(ft)
		}
		return fs
	}
	for round := 0; round < 30; round++ {
		fs := randRecord()
		r := e.lit(rt, instrument.RecordOf(fs))
		i := rng.Intn(len(fieldTypes))
		x := randField(fieldTypes[i])
		other := randRecord()
		if rng.Intn(2) == 0 {
			other = append([]instrument.Value{}, fs...)
		}
		changed := append([]instrument.Value{}, fs...)
		changed[i] = x
		type check struct {
			what string
			term sv
			t    types.Type
			want instrument.Value
		}
		checks := []check{
			{fmt.Sprintf("%v.F%d", fs, i), e.recordGet(r, rt, i), fieldTypes[i], fs[i]},
			{fmt.Sprintf("%v.F%d = %v", fs, i, x), e.recordWith(r, rt, i, e.lit(fieldTypes[i], x)), rt, instrument.RecordOf(changed)},
			{fmt.Sprintf("%v == %v", fs, other), e.recordCompare(token.EQL, r, e.lit(rt, instrument.RecordOf(other)), rt), types.Typ[types.Bool], instrument.BoolValue(reflect.DeepEqual(fs, other))},
			{fmt.Sprintf("%v != %v", fs, other), e.recordCompare(token.NEQ, r, e.lit(rt, instrument.RecordOf(other)), rt), types.Typ[types.Bool], instrument.BoolValue(!reflect.DeepEqual(fs, other))},
		}
		list := e.lit(lt, instrument.ListOf([]instrument.Value{instrument.RecordOf(other), instrument.RecordOf(fs)}, rt))
		checks = append(checks,
			check{"list[1]", e.listIndex(list, e.lit(intT, instrument.Value{N: 1}), intT, rt), rt, instrument.RecordOf(fs)},
			check{"append", e.listAppend(lt, list, []sv{e.lit(rt, instrument.RecordOf(changed))}, false), lt, instrument.ListOf([]instrument.Value{instrument.RecordOf(other), instrument.RecordOf(fs), instrument.RecordOf(changed)}, rt)})
		v := types.NewVar(token.NoPos, nil, "items", lt)
		a := &activation{env: map[*types.Var]sv{v: list}}
		e.listStore(a, &seqTarget{v: v, index: e.lit(intT, instrument.Value{N: 0}), it: intT, elem: rt}, list, e.lit(rt, instrument.RecordOf(changed)))
		checks = append(checks, check{"items[0] = changed", a.env[v], lt, instrument.ListOf([]instrument.Value{instrument.RecordOf(changed), instrument.RecordOf(fs)}, rt)})
		for _, c := range checks {
			checkTerm(t, z, e, c.what, c.term, c.t, c.want)
		}
	}
}

// TestMapEncoding checks the encoder's map terms against Go on random
// programs of stores (m[k] = v and m[k] += v), lookups of present and
// absent keys, len and comparisons as reflect.DeepEqual makes them.
func TestMapEncoding(t *testing.T) {
	e := testEncoder(t)
	z := e.z
	rng := rand.New(rand.NewSource(3))
	kt, vt := types.Typ[types.Int16], types.Typ[types.Int64]
	mt := types.NewMap(kt, vt)
	intT := types.Typ[types.Int]
	keys := []int64{-1, 0, 1, 300, -32768}
	toValue := func(m map[int64]int64) instrument.Value {
		var es []instrument.MapEntry
		for k, v := range m {
			es = append(es, instrument.MapEntry{Key: instrument.Value{N: k}, Val: instrument.Value{N: v}})
		}
		return instrument.MapOf(es)
	}
	for prog := 0; prog < 15; prog++ {
		goMap := map[int64]int64{}
		cur := e.lit(mt, toValue(goMap))
		v := types.NewVar(token.NoPos, nil, "m", mt)
		var steps []string
		for step := 0; step < 6; step++ {
			k, x := keys[rng.Intn(len(keys))], int64(rng.Intn(5)-2)
			switch rng.Intn(3) {
			case 0:
				a := &activation{env: map[*types.Var]sv{v: cur}}
				e.storeTo(a, &seqTarget{v: v, index: e.lit(kt, instrument.Value{N: k}), it: kt, elem: vt, before: cur}, token.ADD_ASSIGN, e.lit(vt, instrument.Value{N: x}))
				cur = a.env[v]
				goMap[k] += x
				steps = append(steps, fmt.Sprintf("[%d] += %d", k, x))
			case 1:
				a := &activation{env: map[*types.Var]sv{v: cur}}
				e.storeTo(a, &seqTarget{v: v, index: e.lit(kt, instrument.Value{N: k}), it: kt, elem: vt, before: cur}, token.ASSIGN, e.lit(vt, instrument.Value{N: x}))
				cur = a.env[v]
				goMap[k] = x
				steps = append(steps, fmt.Sprintf("[%d] = %d", k, x))
			default:
				other := map[int64]int64{}
				for k, x := range goMap {
					other[k] = x
				}
				if rng.Intn(2) == 0 {
					other[keys[rng.Intn(len(keys))]] = x
				}
				if len(other) == 0 && len(goMap) == 0 {
					continue
				}
				eq := e.mapCompare(token.EQL, cur, e.lit(mt, toValue(other)), mt)
				checkTerm(t, z, e, fmt.Sprintf("%v == %v", steps, other), eq, types.Typ[types.Bool], instrument.BoolValue(reflect.DeepEqual(goMap, other)))
			}
			got := e.mapIndex(cur, e.lit(kt, instrument.Value{N: k}), mt, kt)
			checkTerm(t, z, e, fmt.Sprintf("%v [%d]", steps, k), got, vt, instrument.Value{N: goMap[k]})
			checkTerm(t, z, e, fmt.Sprintf("%v len", steps), e.mapLenValue(cur, mt, intT), intT, instrument.Value{N: int64(len(goMap))})
			if want := toValue(goMap); !cur.known || cur.c != want {
				t.Errorf("%v: replay evaluates %+v, Go %+v", steps, cur.c, want)
			}
		}
	}
}

// checkTerm checks a term's replayed and formula values against Go's,
// the formula under hards besides the encoder's own.
func checkTerm(t *testing.T, z *z3.Context, e *encoder, what string, term sv, typ types.Type, want instrument.Value, hards ...z3.Bool) {
	t.Helper()
	if !term.hasTerm() {
		t.Errorf("%s: no term", what)
		return
	}
	if !term.known || !instrument.SameValue(typ, term.c, want) {
		t.Errorf("%s: replay evaluates %+v (known %v), Go %+v", what, term.c, term.known, want)
	}
	got, err := evalIn(z, append(hards, e.hards...), term.t, typ)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got != want {
		t.Errorf("%s: formula %+v, Go %+v", what, got, want)
	}
}

// testEncoder is an encoder on a fresh context, closed when t ends.
func testEncoder(t *testing.T) *encoder {
	t.Helper()
	z, err := z3.NewContext(z3.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(z.Close)
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &encoder{z: z, enum: enum}
}
