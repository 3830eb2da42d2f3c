//go:build cgo

package formula

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// nilOf is the value of a nil: where it is the site's whole expression,
// the zero of the site's type (a nil byte slice, list or map is empty; a
// nil of a type the formula does not model has no term); elsewhere an
// error's nil, the other nil the formula meets (err == nil, a call's nil
// error argument).
func (e *encoder) nilOf(s *instrument.Site, x ast.Expr) sv {
	if ast.Unparen(s.Expr) != x || instrument.ValueKind(s.Typ) == 'e' {
		return e.lit(instrument.ErrorType, instrument.Value{})
	}
	switch instrument.ValueKind(s.Typ) {
	case 'y', 'l', 'm':
		return e.lit(s.Typ, instrument.Value{})
	}
	return sv{}
}

// sym builds the value of x in activation a. root is the event of the site
// x is the root of, whose recorded value stands for x when the formula
// does not model it.
func (e *encoder) sym(a *activation, s *instrument.Site, x ast.Expr, root *instrument.Event) sv {
	info := s.Info
	t := info.TypeOf(x)
	if tv := info.Types[x]; tv.Value != nil {
		return e.constValue(tv.Value, t)
	}
	leaf := func() sv {
		if root != nil {
			return e.lit(s.Typ, instrument.ValueOf(*root))
		}
		if id, ok := e.prog.LeafOf[x]; ok {
			if v, ok := a.leaves[id]; ok {
				return v
			}
		}
		return e.freshOf(t)
	}
	if !instrument.Modelled(e.prog, info, a.fn, x) {
		return leaf()
	}
	if v, ok := e.listSym(a, s, x); ok {
		return v
	}
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.sym(a, s, x.X, root)
	case *ast.Ident:
		if instrument.IsNil(info, x) {
			return e.nilOf(s, x)
		}
		v, isVar := info.ObjectOf(x).(*types.Var)
		if term, ok := a.env[v]; isVar && ok {
			return term
		}
		return e.freshOf(t)
	case *ast.UnaryExpr:
		return e.unary(x.Op, e.sym(a, s, x.X, nil), t)
	case *ast.BinaryExpr:
		if l, r, ok := e.prog.DiffOperands(info, x); ok {
			lt := types.Default(info.TypeOf(l))
			return e.binary(x.Op, e.sym(a, s, l, nil), e.sym(a, s, r, nil), lt, lt)
		}
		l := e.sym(a, s, x.X, nil)
		r := e.sym(a, s, x.Y, nil)
		lt, rt := info.TypeOf(x.X), info.TypeOf(x.Y)
		if instrument.ValueKind(lt) == 'e' || instrument.ValueKind(rt) == 'e' {
			lt, rt = instrument.ErrorType, instrument.ErrorType // err != nil: nil is a nil error
		}
		return e.binary(x.Op, l, r, lt, rt)
	case *ast.IndexExpr:
		return e.seqIndex(e.sym(a, s, x.X, nil), e.sym(a, s, x.Index, nil), info.TypeOf(x.Index))
	case *ast.SliceExpr:
		var lo, hi *sv
		if x.Low != nil {
			v := e.sym(a, s, x.Low, nil)
			lo = &v
		}
		if x.High != nil {
			v := e.sym(a, s, x.High, nil)
			hi = &v
		}
		var lt, ht types.Type
		if x.Low != nil {
			lt = info.TypeOf(x.Low)
		}
		if x.High != nil {
			ht = info.TypeOf(x.High)
		}
		return e.seqSlice(e.sym(a, s, x.X, nil), lo, hi, lt, ht)
	case *ast.CallExpr:
		if instrument.IsConversion(info, x) {
			return e.convert(e.sym(a, s, x.Args[0], nil), info.TypeOf(x.Args[0]), t)
		}
		if instrument.IsEqualCall(info, x) {
			// == on the operands: IEEE equality for floats, as DeepEqual and cmp.Equal.
			lt := types.Default(info.TypeOf(x.Args[0]))
			return e.binary(token.EQL, e.sym(a, s, x.Args[0], nil), e.sym(a, s, x.Args[1], nil), lt, lt)
		}
		if instrument.IsMathAbs(info, x) {
			v := e.sym(a, s, x.Args[0], nil)
			if !v.hasTerm() {
				return v
			}
			out := sv{t: v.t.AsFloat().Abs().Expr, known: v.known}
			if v.known {
				out.c = instrument.FloatValue(t, math.Abs(instrument.FloatOf(t, v.c)))
			}
			return out
		}
		if instrument.IsErrorCtor(info, x) {
			return e.lit(instrument.ErrorType, instrument.BoolValue(true))
		}
		if code, ok := e.prog.ErrorsIsTarget(info, x); ok {
			// The error's code names the sentinel (errors_is.go).
			return e.binary(token.EQL, e.sym(a, s, x.Args[0], nil), e.lit(instrument.ErrorType, instrument.Value{N: code}), instrument.ErrorType, instrument.ErrorType)
		}
		if r, ok := a.calls[x][0]; ok {
			return r
		}
		if name, ok := instrument.BuiltinLen(info, x); ok {
			v := e.sym(a, s, x.Args[0], nil)
			return e.seqLenValue(v, name, t)
		}
		if f, name, ok := instrument.SeqFuncOf(info, x); ok {
			args := make([]sv, len(x.Args))
			types := make([]types.Type, len(x.Args))
			for i, arg := range x.Args {
				args[i] = e.sym(a, s, arg, nil)
				types[i] = info.TypeOf(arg)
			}
			return e.seqCall(name, f, args, types, t)
		}
		return leaf()
	}
	return leaf()
}

// unary applies a Go unary operator.
func (e *encoder) unary(op token.Token, y sv, t types.Type) sv {
	if !y.hasTerm() {
		return sv{}
	}
	out := sv{known: y.known}
	if y.known {
		out.c, out.known = instrument.ConcUnary(op, y.c, t)
	}
	switch op {
	case token.NOT:
		out.t = y.t.AsBool().Not().Expr
	case token.SUB:
		if instrument.ValueKind(t) == 'f' {
			out.t = y.t.AsFloat().Neg().Expr
		} else {
			out.t = y.t.AsBV().Neg().Expr
		}
	case token.XOR:
		out.t = y.t.AsBV().Not().Expr
	default:
		out.t = y.t
	}
	return out
}

// convert is Go's conversion of a value between integer and float types,
// integers wrapping or extending, floats rounding to nearest even and a
// float converted to an integer truncating toward zero; between strings
// and byte slices; and of an integer to a string (the UTF-8 encoding of
// the rune).
func (e *encoder) convert(y sv, from, to types.Type) sv {
	if !y.hasTerm() || e.concreteSeqs && (instrument.IsSeq(from) || instrument.IsSeq(to)) {
		if !y.known {
			return sv{}
		}
		c, ok := instrument.ConcConvert(y.c, from, to)
		return e.concreteValue(to, c, ok)
	}
	out := sv{t: e.convertTerm(y.t, from, to), known: y.known}
	if y.known {
		out.c, out.known = instrument.ConcConvert(y.c, from, to)
	}
	return out
}

func (e *encoder) convertTerm(y z3.Expr, from, to types.Type) z3.Expr {
	switch fk, tk := instrument.ValueKind(from), instrument.ValueKind(to); {
	case (fk == 's' || fk == 'y') && (tk == 's' || tk == 'y'):
		return y
	case fk == 'i' && tk == 's':
		return e.runeString(y.AsBV(), from).Expr
	case fk == 'f' && tk == 'f':
		if instrument.IsFloat32(from) == instrument.IsFloat32(to) {
			return y
		}
		return y.AsFloat().Convert(e.floatSort(to)).Expr
	case tk == 'f':
		_, signed := instrument.Bits(from)
		return e.z.FloatFromBV(y.AsBV(), signed || instrument.IsUntypedNumber(from), e.floatSort(to)).Expr
	case fk == 'f':
		return e.floatToInt(y.AsFloat(), from, to)
	}
	x := y.AsBV()
	n, signed := instrument.Bits(from)
	to2, _ := instrument.Bits(to)
	if n == to2 {
		return x.Expr
	}
	return x.Convert(to2, signed).Expr
}

// constValue is a constant of type t.
func (e *encoder) constValue(v constant.Value, t types.Type) sv {
	if v.Kind() == constant.String {
		return e.lit(types.Typ[types.String], instrument.Value{S: constant.StringVal(v)})
	}
	if v.Kind() == constant.Bool {
		return e.lit(types.Typ[types.Bool], instrument.BoolValue(constant.BoolVal(v)))
	}
	if instrument.ValueKind(t) == 'f' {
		if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			// An untyped float left so is a shift count (x << 2.0): an integer.
			if i := constant.ToInt(v); i.Kind() == constant.Int {
				return e.constValue(i, types.Typ[types.UntypedInt])
			}
		}
		return e.lit(t, instrument.Value{N: instrument.FloatBits(v, t)})
	}
	if instrument.ValueKind(t) != 'i' {
		return e.freshOf(t)
	}
	if i, ok := constant.Int64Val(v); ok {
		return e.lit(t, instrument.Value{N: instrument.Normalize(t, i)})
	}
	if u, ok := constant.Uint64Val(v); ok {
		return e.lit(t, instrument.Value{N: int64(u)})
	}
	return e.freshOf(t)
}

// binary applies a Go operator with Go's semantics; lt and rt are the
// operand types (they differ only for shifts).
func (e *encoder) binary(op token.Token, l, r sv, lt, rt types.Type) sv {
	if instrument.IsList(lt) {
		return e.listCompare(op, l, r, lt)
	}
	if instrument.IsRecord(lt) {
		return e.recordCompare(op, l, r, lt)
	}
	if instrument.IsMap(lt) {
		return e.mapCompare(op, l, r, lt)
	}
	if !l.hasTerm() || !r.hasTerm() {
		out := sv{}
		// x && y and x || y are known from x alone when it decides them.
		if l.known && instrument.ValueKind(lt) == 'b' && (op == token.LAND && l.c.N == 0 || op == token.LOR && l.c.N != 0) {
			out.c, out.known = l.c, true
		}
		if instrument.IsSeq(lt) && l.known && r.known {
			// Strings kept concrete: a constant of the result.
			c, ok := instrument.ConcBinary(op, l.c, r.c, lt, rt)
			t := types.Type(types.Typ[types.Bool])
			if op == token.ADD {
				t = lt
			}
			return e.concreteValue(t, c, ok)
		}
		return out
	}
	out := sv{t: e.binaryTerm(op, l.t, r.t, lt, rt)}
	switch {
	case l.known && r.known:
		out.c, out.known = instrument.ConcBinary(op, l.c, r.c, lt, rt)
	case l.known && instrument.ValueKind(lt) == 'b' && (op == token.LAND && l.c.N == 0 || op == token.LOR && l.c.N != 0):
		// The right operand was not evaluated.
		out.c, out.known = l.c, true
	}
	return out
}

func (e *encoder) binaryTerm(op token.Token, l, r z3.Expr, lt, rt types.Type) z3.Expr {
	switch instrument.ValueKind(lt) {
	case 'e': // codes (errors_is.go)
		switch op {
		case token.EQL:
			return l.AsBV().Eq(r).Expr
		case token.NEQ:
			return l.AsBV().NotEq(r).Expr
		}
		return e.freshOf(types.Typ[types.Bool]).t
	case 'b':
		switch op {
		case token.EQL:
			return l.AsBool().Iff(r.AsBool()).Expr
		case token.NEQ:
			return l.AsBool().Xor(r.AsBool()).Expr
		case token.LAND:
			return e.z.And(l.AsBool(), r.AsBool()).Expr
		case token.LOR:
			return e.z.Or(l.AsBool(), r.AsBool()).Expr
		}
		return e.freshOf(types.Typ[types.Bool]).t
	case 's', 'y':
		return e.seqBinary(op, l.AsSeq(), r.AsSeq())
	}
	if (instrument.ValueKind(lt) == 'f' || instrument.ValueKind(rt) == 'f') && op != token.SHL && op != token.SHR {
		return e.floatBinary(op, l, r, lt, rt)
	}
	if instrument.IsUntypedNumber(lt) {
		n, _ := instrument.Bits(rt)
		if r.Sort().String() != l.Sort().String() {
			l = l.AsBV().Convert(n, true).Expr
		}
	}
	_, signed := instrument.Bits(lt)
	if instrument.IsUntypedNumber(lt) && !instrument.IsUntypedNumber(rt) && op != token.SHL && op != token.SHR {
		_, signed = instrument.Bits(rt)
	}
	x, y := l.AsBV(), r.AsBV()
	if op != token.SHL && op != token.SHR && x.Bits() != y.Bits() {
		if x.Bits() < y.Bits() {
			x = x.Convert(y.Bits(), signed)
		} else {
			y = y.Convert(x.Bits(), signed)
		}
	}
	switch op {
	case token.ADD:
		return x.Add(y).Expr
	case token.SUB:
		return x.Sub(y).Expr
	case token.MUL:
		return x.Mul(y).Expr
	case token.QUO:
		return x.Div(y, signed).Expr
	case token.REM:
		return x.Rem(y, signed).Expr
	case token.AND:
		return x.And(y).Expr
	case token.OR:
		return x.Or(y).Expr
	case token.XOR:
		return x.Xor(y).Expr
	case token.AND_NOT:
		return x.AndNot(y).Expr
	case token.SHL:
		return x.GoShl(y).Expr
	case token.SHR:
		return x.GoShr(y, signed).Expr
	case token.EQL:
		return x.Eq(y.Expr).Expr
	case token.NEQ:
		return x.NotEq(y.Expr).Expr
	case token.LSS:
		return x.Less(y, signed).Expr
	case token.LEQ:
		return x.LessEq(y, signed).Expr
	case token.GTR:
		return y.Less(x, signed).Expr
	case token.GEQ:
		return y.LessEq(x, signed).Expr
	}
	return e.freshOf(lt).t
}

// floatBinary applies a Go operator to floats: IEEE arithmetic rounding to
// nearest even, comparisons false on NaN and -0 == +0.
func (e *encoder) floatBinary(op token.Token, l, r z3.Expr, lt, rt types.Type) z3.Expr {
	// An operand of another kind is an untyped integer constant left so.
	if instrument.ValueKind(lt) != 'f' {
		l = e.convertTerm(l, lt, rt)
	} else if instrument.ValueKind(rt) != 'f' {
		r = e.convertTerm(r, rt, lt)
	}
	x, y := l.AsFloat(), r.AsFloat()
	switch op {
	case token.ADD:
		return x.Add(y).Expr
	case token.SUB:
		return x.Sub(y).Expr
	case token.MUL:
		return x.Mul(y).Expr
	case token.QUO:
		return x.Div(y).Expr
	case token.EQL:
		return x.IEEEEq(y).Expr
	case token.NEQ:
		return x.IEEEEq(y).Not().Expr
	case token.LSS:
		return x.LT(y).Expr
	case token.LEQ:
		return x.LE(y).Expr
	case token.GTR:
		return y.LT(x).Expr
	case token.GEQ:
		return y.LE(x).Expr
	}
	return e.freshOf(lt).t
}
