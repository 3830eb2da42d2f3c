//go:build cgo

package analysis

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"faultline/solver/z3"
)

// A list (a slice of integers, see list.go) is an array from 64-bit
// indices to 64-bit elements (each extended by its type's signedness, as
// the trace records it) that holds its length at the last index, lenIndex:
// one term, so that a list is a value like any other for sites, joins and
// results. Elements past the length are unspecified; lists compare element
// by element up to their lengths, never as arrays.

// lenIndex is the index at which a list's array holds its length.
const lenIndex = ^uint64(0)

// maxListCompare bounds the elements a comparison of lists spells out: a
// comparison says the lengths are equal and at most the longer recorded
// length (or this bound), and compares that many elements.
const maxListCompare = 256

func (e *encoder) listSort() z3.Sort {
	return e.z.ArraySort(e.z.BVSort(64), e.z.BVSort(64))
}

func (e *encoder) bv64(v uint64) z3.BV { return e.z.BVUint(v, 64) }

// listLenTerm is the length of a list term.
func (e *encoder) listLenTerm(s z3.Expr) z3.BV { return s.AsArray().Select(e.bv64(lenIndex)).AsBV() }

// listTerm is the term of a recorded list of type t.
func (e *encoder) listTerm(t types.Type, v value) z3.Expr {
	xs := listElems(v, listElem(t))
	a := e.z.ConstArray(e.z.BVSort(64), e.bv64(0))
	for i, x := range xs {
		a = a.Store(e.bv64(uint64(i)), e.bv64(uint64(x)))
	}
	return a.Store(e.bv64(lenIndex), e.bv64(uint64(len(xs)))).Expr
}

// index64 is an index of type it as a 64-bit bit-vector.
func index64(i z3.BV, it types.Type) z3.BV {
	if i.Bits() == 64 {
		return i
	}
	_, signed := bits(it)
	return i.Convert(64, signed || isUntypedNumber(it))
}

// elemOf narrows a 64-bit element to its type.
func elemOf(x z3.BV, elem types.Type) z3.Expr {
	if n, _ := bits(elem); n != 64 {
		return x.Extract(n-1, 0).Expr
	}
	return x.Expr
}

// widen extends an element of type elem to 64 bits.
func widen(x z3.Expr, elem types.Type) z3.BV {
	b := x.AsBV()
	if b.Bits() == 64 {
		return b
	}
	_, signed := bits(elem)
	return b.Convert(64, signed)
}

// listIndex is s[i], an element of type elem. Out of range its term is
// unspecified: the run panics there.
func (e *encoder) listIndex(s, i sv, it, elem types.Type) sv {
	var c value
	known := s.known && i.known && !s.c.opaque && uint64(i.c.n) < uint64(listLen(s.c))
	if _, signed := bits(it); signed && i.c.n < 0 {
		known = false
	}
	if known {
		c = listAt(s.c, i.c.n, elem)
	}
	if !s.hasTerm() || !i.hasTerm() {
		return e.concreteValue(elem, c, known)
	}
	return sv{t: elemOf(s.t.AsArray().Select(index64(i.t.AsBV(), it)).AsBV(), elem), c: c, known: known}
}

// listFrom builds a list term from n elements given by elem(j) and a
// length term that must equal n: when the length differs from n (a
// forced value changed it) the list is a free term, for a verifying run
// to settle, rather than a wrong one.
func (e *encoder) listFrom(n int64, length z3.BV, elem func(j int64) z3.BV) z3.Expr {
	a := e.z.ConstArray(e.z.BVSort(64), e.bv64(0))
	for j := int64(0); j < n; j++ {
		a = a.Store(e.bv64(uint64(j)), elem(j))
	}
	a = a.Store(e.bv64(lenIndex), length)
	e.fresh++
	free := e.z.Const(fmt.Sprintf("list%d", e.fresh), e.listSort())
	return e.z.Ite(length.Eq(e.bv64(uint64(n))), a, free)
}

// listSlice is s[lo:hi], a missing bound being 0 or len(s): modelled for
// the run's number of elements (at most maxListCompare), a free list for
// another. A high bound past the length (within the capacity) keeps the
// run's value.
func (e *encoder) listSlice(s sv, lo, hi *sv, lt, ht types.Type) sv {
	cl, ch, known := int64(0), listLen(s.c), s.known && !s.c.opaque
	if lo != nil {
		cl, known = lo.c.n, known && lo.known
	}
	if hi != nil {
		ch, known = hi.c.n, known && hi.known
	}
	var c value
	if known = known && 0 <= cl && cl <= ch && ch <= listLen(s.c); known {
		c = value{s: s.c.s[cl*listElemBytes : ch*listElemBytes]}
	}
	if !known || ch-cl > maxListCompare || !s.hasTerm() || lo != nil && !lo.hasTerm() || hi != nil && !hi.hasTerm() {
		if !known {
			return sv{}
		}
		return sv{c: c, known: true} // the caller's type decides the term
	}
	arr := s.t.AsArray()
	low, high := e.bv64(0), e.listLenTerm(s.t)
	if lo != nil {
		low = index64(lo.t.AsBV(), lt)
	}
	if hi != nil {
		high = index64(hi.t.AsBV(), ht)
	}
	t := e.listFrom(ch-cl, high.Sub(low), func(j int64) z3.BV { return arr.Select(low.Add(e.bv64(uint64(j)))).AsBV() })
	return sv{t: t, c: c, known: true}
}

// listLenValue is len(s) as a value of type t.
func (e *encoder) listLenValue(s sv, t types.Type) sv {
	c := value{n: listLen(s.c)}
	if !s.hasTerm() {
		return e.concreteValue(t, c, s.known)
	}
	out := sv{t: e.listLenTerm(s.t).Expr, c: c, known: s.known}
	if n, _ := bits(t); n != 64 {
		out.t = out.t.AsBV().Extract(n-1, 0).Expr
	}
	return out
}

// listAppend is append(s, elems...) or, spread, append(s, other...) (for
// the other list's recorded length).
func (e *encoder) listAppend(t types.Type, s sv, elems []sv, spread bool) sv {
	elem := listElem(t)
	out := sv{known: s.known && !s.c.opaque}
	buf := []byte(s.c.s)
	haveTerms := s.hasTerm()
	for _, x := range elems {
		haveTerms = haveTerms && x.hasTerm()
		out.known = out.known && x.known && !x.c.opaque
		if spread {
			buf = append(buf, x.c.s...)
		} else {
			buf = append(buf, listOf([]int64{x.c.n}).s...)
		}
	}
	if out.known {
		out.c = value{s: string(buf)}
	}
	if !haveTerms {
		return e.concreteValue(t, out.c, out.known)
	}
	arr, n := s.t.AsArray(), e.listLenTerm(s.t)
	if spread {
		other := elems[0]
		k := listLen(other.c)
		if !other.known || other.c.opaque || k > maxListCompare {
			return e.concreteValue(t, out.c, out.known)
		}
		src := other.t.AsArray()
		for j := int64(0); j < k; j++ {
			arr = arr.Store(n.Add(e.bv64(uint64(j))), src.Select(e.bv64(uint64(j))))
		}
		whole := arr.Store(e.bv64(lenIndex), n.Add(e.bv64(uint64(k))))
		e.fresh++
		free := e.z.Const(fmt.Sprintf("list%d", e.fresh), e.listSort())
		out.t = e.z.Ite(e.listLenTerm(other.t).Eq(e.bv64(uint64(k))), whole, free)
		return out
	}
	for j, x := range elems {
		arr = arr.Store(n.Add(e.bv64(uint64(j))), widen(x.t, elem))
	}
	out.t = arr.Store(e.bv64(lenIndex), n.Add(e.bv64(uint64(len(elems))))).Expr
	return out
}

// listLit is a composite literal []T{x, y, ...} without keys.
func (e *encoder) listLit(t types.Type, elems []sv) sv {
	empty := sv{known: true}
	if !e.concreteLists {
		empty.t = e.listTerm(t, value{})
	}
	return e.listAppend(t, empty, elems, false)
}

// listEqTerm says two list terms have the same length, at most n, and the
// same first n elements up to it.
func (e *encoder) listEqTerm(a, b z3.Expr, n int64) z3.Bool {
	la, lb := e.listLenTerm(a), e.listLenTerm(b)
	conj := []z3.Bool{la.Eq(lb), la.ULE(e.bv64(uint64(n)))}
	x, y := a.AsArray(), b.AsArray()
	for j := int64(0); j < n; j++ {
		i := e.bv64(uint64(j))
		conj = append(conj, e.z.Or(la.ULE(i), x.Select(i).Eq(y.Select(i))))
	}
	return e.z.And(conj...)
}

// listEqual is reflect.DeepEqual (cmp.Equal, testify's Equal) on two
// lists: the same elements, and when both are empty, the same nil-ness,
// which the formula does not know: a free Boolean then, whose value a
// verifying run settles. Lists longer than the longer recorded one are
// not considered equal (a bound, not Go's meaning: it can only hide a
// fix, never report a wrong one).
func (e *encoder) listEqual(l, r sv) sv {
	out := sv{}
	if l.known && r.known && !l.c.opaque && !r.c.opaque && (l.c.s != r.c.s || l.c.s != "") {
		out.c, out.known = boolValue(l.c.s == r.c.s), true
	}
	if !l.hasTerm() || !r.hasTerm() {
		if out.known {
			return e.lit(types.Typ[types.Bool], out.c)
		}
		return sv{}
	}
	n := min(max(listLen(l.c), listLen(r.c)), maxListCompare)
	e.fresh++
	nilness := e.z.BoolConst(fmt.Sprintf("nilness%d", e.fresh))
	nonEmpty := e.listLenTerm(l.t).NotEq(e.bv64(0).Expr)
	out.t = e.z.And(e.listEqTerm(l.t, r.t, n), e.z.Or(nonEmpty, nilness)).Expr
	return out
}

// listCompare is == or != on lists as the checks compare them
// (reflect.DeepEqual, cmp.Equal, cmp.Diff, testify's Equal).
func (e *encoder) listCompare(op token.Token, l, r sv) sv {
	eq := e.listEqual(l, r)
	if op == token.EQL {
		return eq
	}
	return e.unary(token.NOT, eq, types.Typ[types.Bool])
}

// valueEq says a site's term equals a recorded value: for a list, the
// same length and elements (its array past the length is no part of it).
func (e *encoder) valueEq(t types.Type, v z3.Expr, c value) z3.Bool {
	if !isList(t) {
		return v.Eq(e.term(t, c))
	}
	return e.listEqTerm(v, e.term(t, c), min(listLen(c), maxListCompare))
}

// listStore is b[i] = v on a list local.
func (e *encoder) listStore(a *activation, tg *seqTarget, b, v sv) {
	out := sv{}
	if b.known && tg.index.known && v.known && !b.c.opaque && tg.index.c.n >= 0 && tg.index.c.n < listLen(b.c) {
		xs := listElems(b.c, tg.elem)
		xs[tg.index.c.n] = v.c.n
		out.c, out.known = listOf(xs), true
	}
	if !b.hasTerm() || !tg.index.hasTerm() || !v.hasTerm() {
		if out.known && e.concreteLists {
			a.env[tg.v] = out
			return
		}
		delete(a.env, tg.v)
		return
	}
	out.t = b.t.AsArray().Store(index64(tg.index.t.AsBV(), tg.it), widen(v.t, tg.elem)).Expr
	a.env[tg.v] = out
}

// listModel reads a list from a model.
func listModel(m *z3.Model, v z3.Expr, t types.Type) (value, error) {
	arr := v.AsArray()
	ctx := func(x uint64) z3.BV { return v.Context().BVUint(x, 64) }
	n, err := m.Uint64(arr.Select(ctx(lenIndex)).AsBV())
	if err != nil {
		return value{}, err
	}
	if n > 1<<16 {
		return value{}, fmt.Errorf("list length %d out of range", n)
	}
	elems := make([]int64, n)
	for j := range elems {
		x, err := m.Uint64(arr.Select(ctx(uint64(j))).AsBV())
		if err != nil {
			return value{}, err
		}
		elems[j] = normalize(listElem(t), int64(x))
	}
	return listOf(elems), nil
}

// listSym builds the list operations of sym: reports false for an
// expression that is not one.
func (e *encoder) listSym(a *activation, s *site, x ast.Expr) (sv, bool) {
	info := s.info
	switch x := x.(type) {
	case *ast.IndexExpr:
		if !isList(info.TypeOf(x.X)) {
			return sv{}, false
		}
		return e.listIndex(e.sym(a, s, x.X, nil), e.sym(a, s, x.Index, nil), info.TypeOf(x.Index), info.TypeOf(x)), true
	case *ast.SliceExpr:
		if !isList(info.TypeOf(x.X)) {
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
		out := e.listSlice(e.sym(a, s, x.X, nil), lo, hi, lt, ht)
		if !out.hasTerm() && out.known {
			return e.concreteValue(info.TypeOf(x), out.c, true), true
		}
		return out, true
	case *ast.CompositeLit:
		t := info.TypeOf(x)
		if !isList(t) {
			return sv{}, false
		}
		elems := make([]sv, len(x.Elts))
		for i, el := range x.Elts {
			elems[i] = e.sym(a, s, el, nil)
		}
		return e.listLit(t, elems), true
	case *ast.CallExpr:
		t := info.TypeOf(x)
		if isAppend(info, x) && isList(t) {
			elems := make([]sv, len(x.Args)-1)
			for i, arg := range x.Args[1:] {
				elems[i] = e.sym(a, s, arg, nil)
			}
			return e.listAppend(t, e.sym(a, s, x.Args[0], nil), elems, x.Ellipsis.IsValid()), true
		}
		if _, ok := builtinLenOf(info, x); ok && isList(info.TypeOf(x.Args[0])) {
			return e.listLenValue(e.sym(a, s, x.Args[0], nil), t), true
		}
	}
	return sv{}, false
}

// checksLists reports whether a run reached a check on lists: a test
// condition guarding a failure report, or an assertion, with such an
// operand.
func checksLists(prog *program, trace []event) bool {
	return checksKind(prog, trace, isList)
}
