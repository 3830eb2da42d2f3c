//go:build cgo

package formula

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// recordTerm is the bit-vector of a recorded record of type t.
func (e *encoder) recordTerm(t types.Type, v instrument.Value) z3.Expr {
	var out z3.BV
	for i, f := range instrument.RecordFields(t) {
		x := e.fieldBV(e.term(f.Type(), instrument.RecordField(v, i, f.Type())), f.Type())
		if i == 0 {
			out = x
		} else {
			out = x.Concat(out) // later fields in higher bits
		}
	}
	return out.Expr
}

// fieldBV is a field's value as its bits: a Boolean as one bit.
func (e *encoder) fieldBV(x z3.Expr, t types.Type) z3.BV {
	if instrument.ValueKind(t) == 'b' {
		return e.z.Ite(x.AsBool(), e.z.BVUint(1, 1), e.z.BVUint(0, 1)).AsBV()
	}
	return x.AsBV()
}

// fieldOffset is the lowest bit of field i of record type t.
func fieldOffset(t types.Type, i int) uint {
	var off uint
	for _, f := range instrument.RecordFields(t)[:i] {
		off += instrument.FieldBits(f.Type())
	}
	return off
}

// recordGet is field i of a record value of type t.
func (e *encoder) recordGet(r sv, t types.Type, i int) sv {
	f := instrument.RecordFields(t)[i]
	out := sv{known: r.known && !r.c.Opaque}
	if out.known {
		out.c = instrument.RecordField(r.c, i, f.Type())
	}
	if !r.hasTerm() {
		return e.concreteValue(f.Type(), out.c, out.known)
	}
	off, w := fieldOffset(t, i), instrument.FieldBits(f.Type())
	x := r.t.AsBV().Extract(off+w-1, off)
	if instrument.ValueKind(f.Type()) == 'b' {
		out.t = x.Eq(e.z.BVUint(1, 1)).Expr
	} else {
		out.t = x.Expr
	}
	return out
}

// recordWith is a record value of type t with field i replaced by v.
func (e *encoder) recordWith(r sv, t types.Type, i int, v sv) sv {
	out := sv{known: r.known && v.known && !r.c.Opaque}
	if out.known {
		out.c = instrument.WithField(r.c, i, v.c)
	}
	if !r.hasTerm() || !v.hasTerm() {
		return e.concreteValue(t, out.c, out.known)
	}
	f := instrument.RecordFields(t)[i]
	off, w, total := fieldOffset(t, i), instrument.FieldBits(f.Type()), instrument.RecordBits(t)
	x := r.t.AsBV()
	parts := e.fieldBV(v.t, f.Type())
	if off > 0 {
		parts = parts.Concat(x.Extract(off-1, 0))
	}
	if off+w < total {
		parts = x.Extract(total-1, off+w).Concat(parts)
	}
	out.t = parts.Expr
	return out
}

// recordLit is a composite literal of record type t: fields by name or in
// order, the others zero.
func (e *encoder) recordLit(a *activation, s *instrument.Site, t types.Type, lit *ast.CompositeLit) sv {
	fields := instrument.RecordFields(t)
	vals := make([]sv, len(fields))
	for i, f := range fields {
		vals[i] = e.lit(f.Type(), instrument.Value{})
	}
	for i, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			vals[instrument.FieldIndex(t, kv.Key.(*ast.Ident).Name)] = e.sym(a, s, kv.Value, nil)
		} else {
			vals[i] = e.sym(a, s, el, nil)
		}
	}
	out := sv{known: true}
	cs := make([]instrument.Value, len(vals))
	var bv z3.BV
	haveTerms := true
	for i, v := range vals {
		out.known = out.known && v.known
		cs[i] = v.c
		haveTerms = haveTerms && v.hasTerm()
		if !haveTerms {
			continue
		}
		x := e.fieldBV(v.t, fields[i].Type())
		if i == 0 {
			bv = x
		} else {
			bv = x.Concat(bv)
		}
	}
	if out.known {
		out.c = instrument.RecordOf(cs)
	}
	if !haveTerms {
		return e.concreteValue(t, out.c, out.known)
	}
	out.t = bv.Expr
	return out
}

// recordCompare is == or != on records: field by field, as Go and
// reflect.DeepEqual compare them.
func (e *encoder) recordCompare(op token.Token, l, r sv, t types.Type) sv {
	out := sv{}
	if l.known && r.known {
		out.c, out.known = instrument.ConcBinary(op, l.c, r.c, t, t)
	}
	if !l.hasTerm() || !r.hasTerm() {
		return e.concreteValue(types.Typ[types.Bool], out.c, out.known)
	}
	eq := l.t.Eq(r.t)
	if op == token.NEQ {
		eq = eq.Not()
	}
	out.t = eq.Expr
	return out
}

// recordSym builds the record operations of sym: reports false for an
// expression that is not one.
func (e *encoder) recordSym(a *activation, s *instrument.Site, x ast.Expr) (sv, bool) {
	info := s.Info
	switch x := x.(type) {
	case *ast.SelectorExpr:
		t := info.TypeOf(x.X)
		i := instrument.FieldIndex(t, x.Sel.Name)
		if !instrument.IsRecord(t) || i < 0 {
			return sv{}, false
		}
		return e.recordGet(e.sym(a, s, x.X, nil), t, i), true
	case *ast.CompositeLit:
		t := info.TypeOf(x)
		if !instrument.IsRecord(t) {
			return sv{}, false
		}
		return e.recordLit(a, s, t, x), true
	}
	return sv{}, false
}

// fieldTarget is the target of r.f = v on a tracked record local, or nil.
func (e *encoder) fieldTarget(a *activation, s *instrument.Site, lhs ast.Expr) *seqTarget {
	v, ok := instrument.FieldStore(s.Info, a.fn, lhs)
	if !ok {
		return nil
	}
	cur, ok := a.env[v]
	if !ok {
		return nil
	}
	sel := ast.Unparen(lhs).(*ast.SelectorExpr)
	i := instrument.FieldIndex(v.Type(), sel.Sel.Name)
	return &seqTarget{v: v, elem: instrument.RecordFields(v.Type())[i].Type(), before: cur, field: i + 1}
}

// fieldStoreTo replaces the field a target names (op is the assignment's
// operator: r.f op= v), in the record as it is now.
func (e *encoder) fieldStoreTo(a *activation, tg *seqTarget, op token.Token, v sv) {
	t, i := tg.v.Type(), tg.field-1
	if op != token.ASSIGN && op != token.DEFINE {
		v = e.binary(opOfAssign(op), e.recordGet(tg.before, t, i), v, tg.elem, tg.elem)
	}
	r, ok := a.env[tg.v]
	if !ok {
		return
	}
	out := e.recordWith(r, t, i, v)
	if !out.hasTerm() && !out.known {
		delete(a.env, tg.v)
		return
	}
	a.env[tg.v] = out
}
