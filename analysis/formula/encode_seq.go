//go:build cgo

package formula

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// Strings and byte slices are sequences of bytes. Lengths and offsets in
// the sequence theory are mathematical integers; Go's are 64-bit
// bit-vectors, converted at the boundary (a length is never negative and
// always fits).

// seqLen is len(s) as a Go int.
func (e *encoder) seqLen(s z3.Seq) z3.BV { return s.Len().ToBV(64) }

// seqLenValue is len(v).
func (e *encoder) seqLenValue(v sv, _ string, t types.Type) sv {
	if !v.hasTerm() {
		if v.c.Opaque {
			return e.lit(t, instrument.Value{N: v.c.N})
		}
		return e.concreteValue(t, instrument.Value{N: int64(len(v.c.S))}, v.known)
	}
	out := sv{t: e.seqLen(v.t.AsSeq()).Expr, known: v.known}
	if v.known {
		out.c = instrument.Value{N: int64(len(v.c.S))}
	}
	if n, _ := instrument.Bits(t); n != 64 {
		out.t = out.t.AsBV().Convert(n, true).Expr
	}
	return out
}

// toInt reads a Go integer of type t as a mathematical integer.
func toInt(x z3.BV, t types.Type) z3.Int {
	_, signed := instrument.Bits(t)
	return x.ToInt(signed || instrument.IsUntypedNumber(t))
}

// seqIndex is s[i], a byte. Out of range its term is unconstrained: the
// run panics there, which the guard's specification covers.
func (e *encoder) seqIndex(s, i sv, it types.Type) sv {
	if !s.hasTerm() || !i.hasTerm() {
		if s.known && i.known && uint64(i.c.N) < uint64(len(s.c.S)) {
			return e.lit(types.Typ[types.Byte], instrument.Value{N: int64(s.c.S[i.c.N])})
		}
		return sv{}
	}
	out := sv{t: s.t.AsSeq().Nth(toInt(i.t.AsBV(), it))}
	if s.known && i.known {
		idx := uint64(i.c.N)
		if _, signed := instrument.Bits(it); signed && i.c.N < 0 {
			idx = ^uint64(0)
		}
		if idx < uint64(len(s.c.S)) {
			out.c, out.known = instrument.Value{N: int64(s.c.S[idx])}, true
		}
	}
	return out
}

// seqSlice is s[lo:hi], a missing bound being 0 or len(s).
func (e *encoder) seqSlice(s sv, lo, hi *sv, lt, ht types.Type) sv {
	if !s.hasTerm() || lo != nil && !lo.hasTerm() || hi != nil && !hi.hasTerm() {
		cl, ch, known := int64(0), int64(len(s.c.S)), s.known
		if lo != nil {
			cl, known = lo.c.N, known && lo.known
		}
		if hi != nil {
			ch, known = hi.c.N, known && hi.known
		}
		if known && 0 <= cl && cl <= ch && ch <= int64(len(s.c.S)) {
			return sv{c: instrument.Value{S: s.c.S[cl:ch]}, known: true}
		}
		return sv{}
	}
	seq := s.t.AsSeq()
	low, high := e.z.IntVal(0), seq.Len()
	known := s.known
	cl, ch := int64(0), int64(len(s.c.S))
	if lo != nil {
		low = toInt(lo.t.AsBV(), lt)
		known = known && lo.known
		cl = lo.c.N
	}
	if hi != nil {
		high = toInt(hi.t.AsBV(), ht)
		known = known && hi.known
		ch = hi.c.N
	}
	out := sv{t: seq.Extract(low, high.Sub(low)).Expr}
	if known && 0 <= cl && cl <= ch && ch <= int64(len(s.c.S)) {
		out.c, out.known = instrument.Value{S: s.c.S[cl:ch]}, true
	}
	return out
}

// seqBinary is a Go operator on strings: + concatenates, comparisons are
// byte-wise lexicographic.
func (e *encoder) seqBinary(op token.Token, a, b z3.Seq) z3.Expr {
	switch op {
	case token.ADD:
		return a.Concat(b).Expr
	case token.EQL:
		return a.Eq(b).Expr
	case token.NEQ:
		return a.NotEq(b).Expr
	case token.LSS:
		return e.seqLess(a, b).Expr
	case token.GTR:
		return e.seqLess(b, a).Expr
	case token.LEQ:
		return e.seqLess(b, a).Not().Expr
	case token.GEQ:
		return e.seqLess(a, b).Not().Expr
	}
	return e.freshOf(types.Typ[types.Bool]).t
}

// seqLess is a < b, byte-wise lexicographic. It names the length k of
// the two sequences' longest common prefix, defined by hard constraints
// that any pair satisfies with exactly one k: then a < b when a is that
// prefix and b is longer, or both go on and a's next byte is smaller.
func (e *encoder) seqLess(a, b z3.Seq) z3.Bool {
	e.fresh++
	k := e.z.IntConst(fmt.Sprintf("lcp%d", e.fresh))
	la, lb := a.Len(), b.Len()
	zero := e.z.IntVal(0)
	endA, endB := k.Eq(la), k.Eq(lb)
	e.define(e.z.And(
		zero.LE(k), k.LE(la), k.LE(lb),
		a.Extract(zero, k).Eq(b.Extract(zero, k)),
		e.z.Or(endA, endB, a.Nth(k).NotEq(b.Nth(k)))))
	return e.z.Or(
		e.z.And(endA, endB.Not()),
		e.z.And(endA.Not(), endB.Not(), a.Nth(k).AsBV().ULT(b.Nth(k).AsBV())))
}

// define adds a hard constraint that defines a fresh name a term uses: it
// holds for some value of the name whatever the rest, so it constrains
// nothing else. An error is kept for the replay to return.
func (e *encoder) define(b z3.Bool) {
	if err := e.addHard(b); err != nil && e.termErr == nil {
		e.termErr = err
	}
}

// runeString is string(r) for an integer r of type t: the UTF-8 encoding
// of the rune, or of U+FFFD for a value that is not a valid one (negative,
// a surrogate, above U+10FFFF).
func (e *encoder) runeString(r z3.BV, t types.Type) z3.Seq {
	_, signed := instrument.Bits(t)
	if r.Bits() < 64 {
		r = r.Convert(64, signed)
	}
	c := func(v uint64) z3.BV { return e.z.BVUint(v, 64) }
	unit := func(x z3.BV) z3.Seq { return e.z.SeqUnit(x.Extract(7, 0)) }
	cont := func(shift uint64) z3.Seq { return unit(r.LShr(c(shift)).And(c(0x3f)).Or(c(0x80))) }
	one := unit(r)
	two := e.z.SeqConcat(unit(r.LShr(c(6)).Or(c(0xc0))), cont(0))
	three := e.z.SeqConcat(unit(r.LShr(c(12)).Or(c(0xe0))), cont(6), cont(0))
	four := e.z.SeqConcat(unit(r.LShr(c(18)).Or(c(0xf0))), cont(12), cont(6), cont(0))
	invalid := e.z.BytesVal([]byte("\uFFFD"))
	bad := e.z.Or(e.z.And(r.ULE(c(0xdfff)), c(0xd800).ULE(r)), c(0x10ffff).ULT(r))
	if signed {
		bad = e.z.Or(bad, r.SLT(c(0)))
	}
	enc := e.z.Ite(r.ULT(c(0x80)), one, e.z.Ite(r.ULT(c(0x800)), two, e.z.Ite(r.ULT(c(0x10000)), three, four)))
	return e.z.Ite(bad, invalid, enc).AsSeq()
}

// seqCall is a call of a modelled library function.
func (e *encoder) seqCall(name string, f instrument.SeqFunc, args []sv, argTypes []types.Type, t types.Type) sv {
	for _, a := range args {
		// With strings kept concrete, so is every result of these
		// functions: of strings, or a string (Itoa).
		if !a.hasTerm() || e.concreteSeqs {
			known := true
			var cargs []instrument.Value
			for _, a := range args {
				known = known && a.known && !a.c.Opaque
				cargs = append(cargs, a.c)
			}
			if !known {
				return sv{}
			}
			return e.concreteValue(t, f.Conc(cargs), true)
		}
	}
	out := sv{known: true}
	var cargs []instrument.Value
	for _, a := range args {
		out.known = out.known && a.known
		cargs = append(cargs, a.c)
	}
	if out.known {
		out.c = f.Conc(cargs)
	}
	seq := func(i int) z3.Seq { return args[i].t.AsSeq() }
	intOf := func(x z3.Int) z3.Expr { return x.ToBV(64).Expr }
	zero := e.z.IntVal(0)
	switch name {
	case "strings.Index", "bytes.Index":
		out.t = intOf(seq(0).IndexFrom(seq(1), zero))
	case "strings.IndexByte", "bytes.IndexByte":
		out.t = intOf(seq(0).IndexFrom(e.z.SeqUnit(args[1].t), zero))
	case "strings.Contains", "bytes.Contains":
		out.t = seq(0).Contains(seq(1)).Expr
	case "strings.HasPrefix", "bytes.HasPrefix":
		out.t = seq(0).HasPrefix(seq(1)).Expr
	case "strings.HasSuffix", "bytes.HasSuffix":
		out.t = seq(0).HasSuffix(seq(1)).Expr
	case "strings.TrimPrefix", "bytes.TrimPrefix":
		s, p := seq(0), seq(1)
		out.t = e.z.Ite(s.HasPrefix(p), s.Extract(p.Len(), s.Len().Sub(p.Len())), s)
	case "strings.TrimSuffix", "bytes.TrimSuffix":
		s, p := seq(0), seq(1)
		out.t = e.z.Ite(s.HasSuffix(p), s.Extract(zero, s.Len().Sub(p.Len())), s)
	case "strings.Repeat", "bytes.Repeat":
		out.t = e.repeat(seq(0), args[1], argTypes[1]).Expr
	case "strings.Compare", "bytes.Compare":
		a, b := seq(0), seq(1)
		out.t = e.z.Ite(a.Eq(b), e.z.BVInt(0, 64), e.z.Ite(e.seqLess(a, b), e.z.BVInt(-1, 64), e.z.BVInt(1, 64)))
	case "bytes.Equal":
		out.t = seq(0).Eq(seq(1)).Expr
	case "strconv.Itoa", "strconv.FormatInt":
		out.t = e.decimal(args[0].t.AsBV(), argTypes[0], true).Expr
	case "strconv.FormatUint":
		out.t = e.decimal(args[0].t.AsBV(), argTypes[0], false).Expr
	case "strconv.FormatBool":
		out.t = e.z.Ite(args[0].t.AsBool(), e.z.BytesVal([]byte("true")), e.z.BytesVal([]byte("false")))
	default:
		return sv{}
	}
	if n, _ := bitsIfInt(t); n != 0 && n != 64 {
		out.t = out.t.AsBV().Convert(n, true).Expr
	}
	return out
}

// bitsIfInt is bits(t) for an integer type, 0 for any other.
func bitsIfInt(t types.Type) (uint, bool) {
	if instrument.ValueKind(t) != 'i' {
		return 0, false
	}
	return instrument.Bits(t)
}

// maxRepeat bounds the counts strings.Repeat is modelled for: up to it,
// and at the count the run had, the result is the count's copies of s;
// at any other count, the run's result.
const maxRepeat = 64

// repeat is strings.Repeat(s, n): n copies of s.
func (e *encoder) repeat(s z3.Seq, n sv, nt types.Type) z3.Seq {
	x := n.t.AsBV()
	if x.Bits() < 64 {
		_, signed := instrument.Bits(nt)
		x = x.Convert(64, signed)
	}
	copies := func(k int64) z3.Seq {
		if k <= 0 {
			return e.z.SeqEmpty(e.z.ByteSeqSort())
		}
		parts := make([]z3.Seq, k)
		for i := range parts {
			parts[i] = s
		}
		return e.z.SeqConcat(parts...)
	}
	counts := []int64{}
	for k := int64(0); k <= maxRepeat; k++ {
		counts = append(counts, k)
	}
	out := copies(0)
	if n.known && n.c.N > maxRepeat && n.c.N <= 1<<16 {
		counts = append(counts, n.c.N)
		out = copies(n.c.N)
	}
	for i := len(counts) - 1; i >= 0; i-- {
		out = e.z.Ite(x.Eq(e.z.BVInt(counts[i], 64)), copies(counts[i]), out).AsSeq()
	}
	return out
}

// decimal is strconv.FormatInt(x, 10) (signed) or FormatUint(x, 10): the
// digits of the magnitude, most significant first, after a minus sign for
// a negative signed value.
func (e *encoder) decimal(x z3.BV, t types.Type, signed bool) z3.Seq {
	if x.Bits() < 64 {
		_, s := instrument.Bits(t)
		x = x.Convert(64, s)
	}
	c := func(v uint64) z3.BV { return e.z.BVUint(v, 64) }
	mag := x
	neg := e.z.False()
	if signed {
		neg = x.SLT(c(0))
		mag = e.z.Ite(neg, x.Neg(), x).AsBV() // MinInt64 negates to itself: its unsigned value is right
	}
	const maxDigits = 20
	digits := make([]z3.Seq, maxDigits)
	pow := uint64(1)
	for i := 0; i < maxDigits; i++ {
		d := mag.UDiv(c(pow)).URem(c(10)).Add(c('0'))
		digits[i] = e.z.SeqUnit(d.Extract(7, 0))
		if i < maxDigits-1 {
			pow *= 10
		}
	}
	// The number of digits: one more for each power of ten not above mag.
	body := e.z.SeqConcat(reverse(digits[:1])...)
	pow = 10
	for n := 2; n <= maxDigits; n++ {
		body = e.z.Ite(c(pow).ULE(mag), e.z.SeqConcat(reverse(digits[:n])...), body).AsSeq()
		if n < maxDigits {
			pow *= 10
		}
	}
	return e.z.Ite(neg, e.z.BytesVal([]byte("-")).Concat(body), body).AsSeq()
}

func reverse(s []z3.Seq) []z3.Seq {
	out := make([]z3.Seq, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

// seqTarget is an element of a tracked byte slice local that an
// assignment stores to: b[i] = v.
type seqTarget struct {
	v      *types.Var
	index  sv
	it     types.Type // the index's type
	elem   types.Type
	before sv  // b when the statement began
	field  int // for r.f = v on a record local: f's index plus one
}

// lvalue is the target of an assignment to lhs, or nil when the formula
// does not follow it. Its operands are read now, before the leaves the
// statement recorded are dropped.
func (e *encoder) lvalue(a *activation, s *instrument.Site, lhs ast.Expr) *seqTarget {
	if tg := e.fieldTarget(a, s, lhs); tg != nil {
		return tg
	}
	ix, ok := ast.Unparen(lhs).(*ast.IndexExpr)
	if !ok {
		return nil
	}
	id, ok := ast.Unparen(ix.X).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := s.Info.ObjectOf(id).(*types.Var)
	if !ok || !a.fn.Tracked[v] || !instrument.IsSeqStore(v.Type()) {
		return nil
	}
	cur, ok := a.env[v]
	if !ok {
		return nil
	}
	return &seqTarget{v: v, index: e.sym(a, s, ix.Index, nil), it: s.Info.TypeOf(ix.Index), elem: s.Info.TypeOf(ix), before: cur}
}

// storeTo replaces the element a target names (op is the assignment's
// operator: x[i] op= v).
func (e *encoder) storeTo(a *activation, tg *seqTarget, op token.Token, v sv) {
	if tg.field > 0 {
		e.fieldStoreTo(a, tg, op, v)
		return
	}
	if op != token.ASSIGN && op != token.DEFINE {
		old := e.seqIndex(tg.before, tg.index, tg.it)
		if instrument.IsList(tg.v.Type()) {
			old = e.listIndex(tg.before, tg.index, tg.it, tg.elem)
		}
		if instrument.IsMap(tg.v.Type()) {
			old = e.mapIndex(tg.before, tg.index, tg.v.Type(), tg.it)
		}
		v = e.binary(opOfAssign(op), old, v, tg.elem, tg.elem)
	}
	// The store lands on the local as it is now: an earlier store of the
	// same multi-assignment (b[i], b[j] = b[j], b[i]) has happened.
	b, ok := a.env[tg.v]
	if !ok {
		return
	}
	if instrument.IsList(tg.v.Type()) {
		e.listStore(a, tg, b, v)
		return
	}
	if instrument.IsMap(tg.v.Type()) {
		e.mapStore(a, tg, b, v)
		return
	}
	if !b.hasTerm() || !tg.index.hasTerm() || !v.hasTerm() {
		delete(a.env, tg.v)
		return
	}
	seq := b.t.AsSeq()
	i := toInt(tg.index.t.AsBV(), tg.it)
	one := e.z.IntVal(1)
	updated := e.z.SeqConcat(seq.Extract(e.z.IntVal(0), i), e.z.SeqUnit(v.t), seq.Extract(i.Add(one), seq.Len().Sub(i).Sub(one)))
	out := sv{t: updated.Expr}
	if b.known && tg.index.known && v.known && tg.index.c.N >= 0 && tg.index.c.N < int64(len(b.c.S)) {
		buf := []byte(b.c.S)
		buf[tg.index.c.N] = byte(v.c.N)
		out.c, out.known = instrument.Value{S: string(buf)}, true
	}
	a.env[tg.v] = out
}
