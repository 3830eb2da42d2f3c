//go:build cgo

package formula

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math/big"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// A list (see list.go) is an array from 64-bit indices to elements of W
// bits (W is 64 for integers, each extended by its type's signedness as
// the trace records it; for records, their width or 64 if more) that
// holds its length at the last index, lenIndex, in its low 64 bits: one
// term, so that a list is a value like any other for sites, joins and
// results. Elements past the length are unspecified; lists compare element
// by element up to their lengths, never as arrays.

// lenIndex is the index at which a list's array holds its length.
const lenIndex = ^uint64(0)

// maxListCompare bounds the elements a comparison of lists spells out: a
// comparison says the lengths are equal and at most the longer recorded
// length (or this bound), and compares that many elements.
const maxListCompare = 256

// slotBits is W, the width of the array's range for elements of type elem.
func slotBits(elem types.Type) uint {
	if instrument.IsRecord(elem) {
		return max(64, instrument.RecordBits(elem))
	}
	return 64
}

func (e *encoder) listSortOf(t types.Type) z3.Sort {
	return e.z.ArraySort(e.z.BVSort(64), e.z.BVSort(slotBits(instrument.ListElem(t))))
}

func (e *encoder) bv64(v uint64) z3.BV { return e.z.BVUint(v, 64) }

// listLenTerm is the length of a list term of type t.
func (e *encoder) listLenTerm(s z3.Expr, t types.Type) z3.BV {
	x := s.AsArray().Select(e.bv64(lenIndex)).AsBV()
	if slotBits(instrument.ListElem(t)) > 64 {
		return x.Extract(63, 0)
	}
	return x
}

// withLen stores a length into a list's array.
func withLen(a z3.Array, n z3.BV, t types.Type) z3.Array {
	if w := slotBits(instrument.ListElem(t)); w > 64 {
		n = n.ZeroExt(w - 64)
	}
	return a.Store(n.Context().BVUint(lenIndex, 64), n)
}

// emptyArray is the array a list literal starts from.
func (e *encoder) emptyArray(t types.Type) z3.Array {
	return e.z.ConstArray(e.z.BVSort(64), e.z.BVUint(0, slotBits(instrument.ListElem(t))))
}

// listTerm is the term of a recorded list of type t.
func (e *encoder) listTerm(t types.Type, v instrument.Value) z3.Expr {
	elem := instrument.ListElem(t)
	xs := instrument.ListItems(v, elem)
	a := e.emptyArray(t)
	for i, x := range xs {
		a = a.Store(e.bv64(uint64(i)), e.widen(e.term(elem, x), elem))
	}
	return withLen(a, e.bv64(uint64(len(xs))), t).Expr
}

// index64 is an index of type it as a 64-bit bit-vector.
func index64(i z3.BV, it types.Type) z3.BV {
	if i.Bits() == 64 {
		return i
	}
	_, signed := instrument.Bits(it)
	return i.Convert(64, signed || instrument.IsUntypedNumber(it))
}

// elemOf narrows an array slot to an element of type elem.
func elemOf(x z3.BV, elem types.Type) z3.Expr {
	n := uint(64)
	if instrument.IsRecord(elem) {
		n = instrument.RecordBits(elem)
	} else {
		n, _ = instrument.Bits(elem)
	}
	if n != x.Bits() {
		return x.Extract(n-1, 0).Expr
	}
	return x.Expr
}

// widen extends an element of type elem to its array slot.
func (e *encoder) widen(x z3.Expr, elem types.Type) z3.BV {
	b := x.AsBV()
	w := slotBits(elem)
	if b.Bits() == w {
		return b
	}
	if instrument.IsRecord(elem) {
		return b.ZeroExt(w - b.Bits())
	}
	_, signed := instrument.Bits(elem)
	return b.Convert(w, signed)
}

// listIndex is s[i], an element of type elem. Out of range its term is
// unspecified: the run panics there.
func (e *encoder) listIndex(s, i sv, it, elem types.Type) sv {
	var c instrument.Value
	known := s.known && i.known && !s.c.Opaque && uint64(i.c.N) < uint64(instrument.ListLen(s.c, elem))
	if _, signed := instrument.Bits(it); signed && i.c.N < 0 {
		known = false
	}
	if known {
		c = instrument.ListAt(s.c, i.c.N, elem)
	}
	if !s.hasTerm() || !i.hasTerm() {
		return e.concreteValue(elem, c, known)
	}
	return sv{t: elemOf(s.t.AsArray().Select(index64(i.t.AsBV(), it)).AsBV(), elem), c: c, known: known}
}

// freshList is a free list term, for a length the formula does not
// spell out (a verifying run settles it).
func (e *encoder) freshList(t types.Type) z3.Expr {
	e.fresh++
	return e.z.Const(fmt.Sprintf("list%d", e.fresh), e.listSortOf(t))
}

// listSlice is s[lo:hi] of list type t, a missing bound being 0 or
// len(s): modelled for the run's number of elements (at most
// maxListCompare), a free list for another. A high bound past the length
// (within the capacity) keeps the run's value.
func (e *encoder) listSlice(t types.Type, s sv, lo, hi *sv, lt, ht types.Type) sv {
	elem := instrument.ListElem(t)
	cl, ch, known := int64(0), instrument.ListLen(s.c, elem), s.known && !s.c.Opaque
	if lo != nil {
		cl, known = lo.c.N, known && lo.known
	}
	if hi != nil {
		ch, known = hi.c.N, known && hi.known
	}
	var c instrument.Value
	if known = known && 0 <= cl && cl <= ch && ch <= instrument.ListLen(s.c, elem); known {
		c = instrument.Value{S: s.c.S[cl*instrument.ElemBytes(elem) : ch*instrument.ElemBytes(elem)]}
	}
	if !known || ch-cl > maxListCompare || !s.hasTerm() || lo != nil && !lo.hasTerm() || hi != nil && !hi.hasTerm() {
		return e.concreteValue(t, c, known)
	}
	arr := s.t.AsArray()
	low, high := e.bv64(0), e.listLenTerm(s.t, t)
	if lo != nil {
		low = index64(lo.t.AsBV(), lt)
	}
	if hi != nil {
		high = index64(hi.t.AsBV(), ht)
	}
	a := e.emptyArray(t)
	for j := int64(0); j < ch-cl; j++ {
		a = a.Store(e.bv64(uint64(j)), arr.Select(low.Add(e.bv64(uint64(j)))))
	}
	n := high.Sub(low)
	whole := withLen(a, n, t)
	return sv{t: e.z.Ite(n.Eq(e.bv64(uint64(ch-cl))), whole, e.freshList(t)), c: c, known: true}
}

// listLenValue is len(s), s of list type lt, as a value of type t.
func (e *encoder) listLenValue(s sv, lt, t types.Type) sv {
	c := instrument.Value{N: instrument.ListLen(s.c, instrument.ListElem(lt))}
	if !s.hasTerm() {
		return e.concreteValue(t, c, s.known)
	}
	out := sv{t: e.listLenTerm(s.t, lt).Expr, c: c, known: s.known}
	if n, _ := instrument.Bits(t); n != 64 {
		out.t = out.t.AsBV().Extract(n-1, 0).Expr
	}
	return out
}

// listAppend is append(s, elems...) or, spread, append(s, other...) (for
// the other list's recorded length), of list type t.
func (e *encoder) listAppend(t types.Type, s sv, elems []sv, spread bool) sv {
	elem := instrument.ListElem(t)
	out := sv{known: s.known && !s.c.Opaque}
	buf := []byte(s.c.S)
	haveTerms := s.hasTerm()
	for _, x := range elems {
		haveTerms = haveTerms && x.hasTerm()
		out.known = out.known && x.known && !x.c.Opaque
		if spread {
			buf = append(buf, x.c.S...)
		} else {
			buf = append(buf, instrument.ElemRecord(x.c, elem)...)
		}
	}
	if out.known {
		out.c = instrument.Value{S: string(buf)}
	}
	if !haveTerms {
		return e.concreteValue(t, out.c, out.known)
	}
	arr, n := s.t.AsArray(), e.listLenTerm(s.t, t)
	if spread {
		other := elems[0]
		k := instrument.ListLen(other.c, elem)
		if !other.known || other.c.Opaque || k > maxListCompare {
			return e.concreteValue(t, out.c, out.known)
		}
		src := other.t.AsArray()
		for j := int64(0); j < k; j++ {
			arr = arr.Store(n.Add(e.bv64(uint64(j))), src.Select(e.bv64(uint64(j))))
		}
		whole := withLen(arr, n.Add(e.bv64(uint64(k))), t)
		out.t = e.z.Ite(e.listLenTerm(other.t, t).Eq(e.bv64(uint64(k))), whole, e.freshList(t))
		return out
	}
	for j, x := range elems {
		arr = arr.Store(n.Add(e.bv64(uint64(j))), e.widen(x.t, elem))
	}
	out.t = withLen(arr, n.Add(e.bv64(uint64(len(elems)))), t).Expr
	return out
}

// listLit is a composite literal []T{x, y, ...} without keys.
func (e *encoder) listLit(t types.Type, elems []sv) sv {
	empty := sv{known: true}
	if !e.concreteLists {
		empty.t = e.listTerm(t, instrument.Value{})
	}
	return e.listAppend(t, empty, elems, false)
}

// listEqTerm says two list terms of type t have the same length, at most
// n, and the same first n elements up to it.
func (e *encoder) listEqTerm(a, b z3.Expr, t types.Type, n int64) z3.Bool {
	elem := instrument.ListElem(t)
	la, lb := e.listLenTerm(a, t), e.listLenTerm(b, t)
	conj := []z3.Bool{la.Eq(lb), la.ULE(e.bv64(uint64(n)))}
	x, y := a.AsArray(), b.AsArray()
	for j := int64(0); j < n; j++ {
		i := e.bv64(uint64(j))
		same := elemOf(x.Select(i).AsBV(), elem).Eq(elemOf(y.Select(i).AsBV(), elem))
		conj = append(conj, e.z.Or(la.ULE(i), same))
	}
	return e.z.And(conj...)
}

// listEqual is reflect.DeepEqual (cmp.Equal, testify's Equal) on two
// lists of type t: the same elements, and when both are empty, the same
// nil-ness, which the formula does not know: a free Boolean then, whose
// value a verifying run settles. Lists longer than the longer recorded
// one are not considered equal (a bound, not Go's meaning: it can only
// hide a fix, never report a wrong one).
func (e *encoder) listEqual(l, r sv, t types.Type) sv {
	out := sv{}
	if l.known && r.known && !l.c.Opaque && !r.c.Opaque && (l.c.S != r.c.S || l.c.S != "") {
		out.c, out.known = instrument.BoolValue(l.c.S == r.c.S), true
	}
	if !l.hasTerm() || !r.hasTerm() {
		if out.known {
			return e.lit(types.Typ[types.Bool], out.c)
		}
		return sv{}
	}
	elem := instrument.ListElem(t)
	n := min(max(instrument.ListLen(l.c, elem), instrument.ListLen(r.c, elem)), maxListCompare)
	out.t = e.z.And(e.listEqTerm(l.t, r.t, t, n), e.sameNilness(e.listLenTerm(l.t, t))).Expr
	return out
}

// sameNilness is the part of reflect.DeepEqual on two slices or maps of
// equal length n that the formula does not know: when both are empty,
// whether both or neither are nil. A free Boolean stands for it, whose
// value a verifying run settles.
func (e *encoder) sameNilness(n z3.BV) z3.Bool {
	e.fresh++
	return e.z.Or(n.NotEq(e.bv64(0).Expr), e.z.BoolConst(fmt.Sprintf("nilness%d", e.fresh)))
}

// asCompare turns an equality into == or !=.
func (e *encoder) asCompare(op token.Token, eq sv) sv {
	if op == token.EQL {
		return eq
	}
	return e.unary(token.NOT, eq, types.Typ[types.Bool])
}

// listCompare is == or != on lists of type t as the checks compare them
// (reflect.DeepEqual, cmp.Equal, cmp.Diff, testify's Equal).
func (e *encoder) listCompare(op token.Token, l, r sv, t types.Type) sv {
	return e.asCompare(op, e.listEqual(l, r, t))
}

// valueEq says a site's term equals a recorded value: for a list, the
// same length and elements (its array past the length is no part of it).
func (e *encoder) valueEq(t types.Type, v z3.Expr, c instrument.Value) z3.Bool {
	if !instrument.IsList(t) {
		return v.Eq(e.term(t, c))
	}
	return e.listEqTerm(v, e.term(t, c), t, min(instrument.ListLen(c, instrument.ListElem(t)), maxListCompare))
}

// listStore is b[i] = v on a list local.
func (e *encoder) listStore(a *activation, tg *seqTarget, b, v sv) {
	out := sv{}
	elem := instrument.ListElem(tg.v.Type())
	if b.known && tg.index.known && v.known && !b.c.Opaque && tg.index.c.N >= 0 && tg.index.c.N < instrument.ListLen(b.c, elem) {
		n := instrument.ElemBytes(elem)
		i := tg.index.c.N
		out.c, out.known = instrument.Value{S: b.c.S[:i*n] + instrument.ElemRecord(v.c, elem) + b.c.S[(i+1)*n:]}, true
	}
	if !b.hasTerm() || !tg.index.hasTerm() || !v.hasTerm() {
		if out.known && e.concreteLists {
			a.env[tg.v] = out
			return
		}
		delete(a.env, tg.v)
		return
	}
	out.t = b.t.AsArray().Store(index64(tg.index.t.AsBV(), tg.it), e.widen(v.t, elem)).Expr
	a.env[tg.v] = out
}

// listModel reads a list of type t from a model.
func listModel(m *z3.Model, v z3.Expr, t types.Type) (instrument.Value, error) {
	elem := instrument.ListElem(t)
	arr := v.AsArray()
	idx := func(x uint64) z3.BV { return v.Context().BVUint(x, 64) }
	n, err := m.Big(arr.Select(idx(lenIndex)))
	if err != nil {
		return instrument.Value{}, err
	}
	n.And(n, new(big.Int).SetUint64(^uint64(0)))
	if !n.IsInt64() || n.Int64() > 1<<16 {
		return instrument.Value{}, fmt.Errorf("list length %s out of range", n)
	}
	items := make([]instrument.Value, n.Int64())
	for j := range items {
		x, err := m.Big(arr.Select(idx(uint64(j))))
		if err != nil {
			return instrument.Value{}, err
		}
		items[j] = scalarsOf(x, elem)
	}
	return instrument.ListOf(items, elem), nil
}

// scalarsOf decodes an element (integer or record) from its bits.
func scalarsOf(x *big.Int, elem types.Type) instrument.Value {
	fields := instrument.RecordFields(elem)
	if fields == nil {
		return instrument.Value{N: instrument.Normalize(elem, int64(new(big.Int).And(x, new(big.Int).SetUint64(^uint64(0))).Uint64()))}
	}
	vals := make([]instrument.Value, len(fields))
	off := uint(0)
	for i, f := range fields {
		w := instrument.FieldBits(f.Type())
		mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), w), big.NewInt(1))
		bitsOf := new(big.Int).And(new(big.Int).Rsh(x, off), mask).Uint64()
		if instrument.ValueKind(f.Type()) == 'b' {
			vals[i] = instrument.BoolValue(bitsOf != 0)
		} else {
			vals[i] = instrument.Value{N: instrument.Normalize(f.Type(), int64(bitsOf))}
		}
		off += w
	}
	return instrument.RecordOf(vals)
}

// listSym builds the list operations of sym: reports false for an
// expression that is not one.
func (e *encoder) listSym(a *activation, s *instrument.Site, x ast.Expr) (sv, bool) {
	if v, ok := e.recordSym(a, s, x); ok {
		return v, true
	}
	info := s.Info
	switch x := x.(type) {
	case *ast.IndexExpr:
		if mt := info.TypeOf(x.X); instrument.IsMap(mt) {
			return e.mapIndex(e.sym(a, s, x.X, nil), e.sym(a, s, x.Index, nil), mt, info.TypeOf(x.Index)), true
		}
		if !instrument.IsList(info.TypeOf(x.X)) {
			return sv{}, false
		}
		return e.listIndex(e.sym(a, s, x.X, nil), e.sym(a, s, x.Index, nil), info.TypeOf(x.Index), info.TypeOf(x)), true
	case *ast.SliceExpr:
		t := info.TypeOf(x.X)
		if !instrument.IsList(t) {
			return sv{}, false
		}
		var lo, hi *sv
		var lt, ht types.Type
		if x.Low != nil {
			v := e.sym(a, s, x.Low, nil)
			lo, lt = &v, info.TypeOf(x.Low)
		}
		if x.High != nil {
			v := e.sym(a, s, x.High, nil)
			hi, ht = &v, info.TypeOf(x.High)
		}
		return e.listSlice(t, e.sym(a, s, x.X, nil), lo, hi, lt, ht), true
	case *ast.CompositeLit:
		t := info.TypeOf(x)
		if !instrument.IsList(t) {
			return sv{}, false
		}
		elems := make([]sv, len(x.Elts))
		for i, el := range x.Elts {
			elems[i] = e.sym(a, s, el, nil)
		}
		return e.listLit(t, elems), true
	case *ast.CallExpr:
		t := info.TypeOf(x)
		if instrument.IsAppend(info, x) && instrument.IsList(t) {
			elems := make([]sv, len(x.Args)-1)
			for i, arg := range x.Args[1:] {
				elems[i] = e.sym(a, s, arg, nil)
			}
			return e.listAppend(t, e.sym(a, s, x.Args[0], nil), elems, x.Ellipsis.IsValid()), true
		}
		if _, ok := instrument.BuiltinLenOf(info, x); ok && instrument.IsMap(info.TypeOf(x.Args[0])) {
			return e.mapLenValue(e.sym(a, s, x.Args[0], nil), info.TypeOf(x.Args[0]), t), true
		}
		if _, ok := instrument.BuiltinLenOf(info, x); ok && instrument.IsList(info.TypeOf(x.Args[0])) {
			return e.listLenValue(e.sym(a, s, x.Args[0], nil), info.TypeOf(x.Args[0]), t), true
		}
	}
	return sv{}, false
}

// checksLists reports whether a run reached a check on lists: a test
// condition guarding a failure report, or an assertion, with such an
// operand.
func checksLists(prog *instrument.Program, trace []instrument.Event) bool {
	return checksKind(prog, trace, func(t types.Type) bool { return instrument.IsList(t) || instrument.IsMap(t) })
}

// listContains is testify's Contains on a list of type t and an element:
// some element up to its length equals x. Elements past the list's
// recorded length (at most maxListCompare) are not looked at (a bound: it
// can only hide a fix).
func (e *encoder) listContains(s, x sv, t types.Type) z3.Bool {
	elem := instrument.ListElem(t)
	n := min(instrument.ListLen(s.c, elem), maxListCompare)
	l := e.listLenTerm(s.t, t)
	arr := s.t.AsArray()
	var any []z3.Bool
	for j := int64(0); j < n; j++ {
		i := e.bv64(uint64(j))
		any = append(any, e.z.And(i.ULT(l), elemOf(arr.Select(i).AsBV(), elem).Eq(x.t)))
	}
	if len(any) == 0 {
		return e.z.False()
	}
	return e.z.Or(any...)
}
