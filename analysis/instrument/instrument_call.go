package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// calls instruments the arguments of calls to instrumented functions in e
// and the function literals in it.
func (fi *fileInstrumenter) calls(fn *Function, e ast.Node) {
	if e == nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && fi.info.Types[x].Value != nil {
			return false // a constant (len of an array among them) evaluates nothing
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			fi.funcLit(n)
			return false
		case *ast.IndexExpr, *ast.SliceExpr:
			fi.guard(fn, n.(ast.Expr))
		case *ast.StarExpr, *ast.SelectorExpr:
			fi.nilGuard(fn, n.(ast.Expr))
		case *ast.BinaryExpr:
			if n.Op == token.QUO || n.Op == token.REM {
				fi.divGuard(fn, n.Y)
			}
		case *ast.CallExpr:
			fi.panicGuard(fn, n)
			callee := fi.prog.Callee(fi.info, n)
			if callee == nil {
				return true
			}
			fi.result(fn, n, callee)
			if n.Ellipsis.IsValid() {
				return true
			}
			sig, ok := fi.info.TypeOf(n.Fun).(*types.Signature)
			if !ok {
				return true
			}
			if inner := fi.tupleCall(n.Args, sig.Params().Len()); inner != nil && !sig.Variadic() {
				comps := map[int]*Site{}
				for i := 0; i < sig.Params().Len(); i++ {
					if t := sig.Params().At(i).Type(); recordedAs(fi.info.TypeOf(inner), i, t) {
						st := fi.site(KindArg, fn, inner, t)
						st.Index, st.Target, st.Tuple = i, callee, true
						st.Text += fmt.Sprintf(" (result %d)", i+1)
						comps[i] = st
					}
				}
				fi.tuple(fn, inner, comps)
				return true
			}
			for i, a := range n.Args {
				if _, multi := fi.info.TypeOf(a).(*types.Tuple); multi {
					break // g(h()) with h not instrumented: its results enter as parameters
				}
				if i >= sig.Params().Len() || (sig.Variadic() && i >= sig.Params().Len()-1) {
					break
				}
				t := sig.Params().At(i).Type()
				if ValueKind(t) == 0 {
					continue
				}
				st := fi.site(KindArg, fn, a, t)
				st.Index, st.Target = i, callee
				fi.model(fn, a, true)
				fi.wrap(a, st.Id, t)
			}
		}
		return true
	})
}

// tupleCall returns the call of list when it is its only expression and
// calls an instrumented function with n > 1 results, nil otherwise.
func (fi *fileInstrumenter) tupleCall(list []ast.Expr, n int) *ast.CallExpr {
	if len(list) != 1 || n < 2 {
		return nil
	}
	call, ok := ast.Unparen(list[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if callee := fi.prog.Callee(fi.info, call); callee == nil || len(callee.Results) != n {
		return nil
	}
	return call
}

// tupleAssign gives each integer, float or Boolean result of call assigned
// to a non-blank operand of lhs a site of its own, the locals changing
// together after the last one as in a multi-assignment.
func (fi *fileInstrumenter) tupleAssign(fn *Function, call *ast.CallExpr, lhs []ast.Expr, tok token.Token) {
	results, ok := fi.info.TypeOf(call).(*types.Tuple)
	if !ok {
		bug.Reportf("a call of one result assigned as a tuple: %s", fi.info.TypeOf(call))
		return
	}
	comps := map[int]*Site{}
	var last *Site
	for i, l := range lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name == "_" {
			continue
		}
		t := results.At(i).Type()
		if ValueKind(t) == 0 || ValueKind(fi.info.TypeOf(l)) == 0 {
			continue
		}
		st := fi.site(KindAssign, fn, l, t)
		st.Expr, st.Index, st.Tuple = call, i, true
		st.Obj, st.Op = fi.localVar(fn, l), tok
		st.Parallel = true
		comps[i] = st
		last = st
	}
	if last != nil {
		last.Last = true
	}
	fi.tuple(fn, call, comps)
}

// recordedAs reports whether result i of a call whose results are tuple
// can have a site as a value of type as, the type it is returned or passed
// as: the tuple helper records the result under its own type, which may be
// another (an interface embedding error, or a pointer implementing it,
// returned as error). Such a result stays concrete.
func recordedAs(tuple types.Type, i int, as types.Type) bool {
	results, ok := tuple.(*types.Tuple)
	if !ok || i >= results.Len() || ValueKind(as) == 0 {
		return false
	}
	result := results.At(i).Type()
	return ValueKind(result) == ValueKind(as) && recorder(result) == recorder(as)
}

// tuple passes a call with several results through a helper declared at
// the end of the file: it records that the call returned (a kindResult
// site, binding the callee's results to the call) and then each result
// with a site in comps, by index, so that a forced value replaces it. The
// helper is generic, so the results' types need not be spelled here.
func (fi *fileInstrumenter) tuple(fn *Function, call *ast.CallExpr, comps map[int]*Site) {
	if len(comps) == 0 || fi.prog.resultOf[call] {
		return
	}
	fi.prog.resultOf[call] = true
	results, ok := fi.info.TypeOf(call).(*types.Tuple)
	if !ok {
		bug.Reportf("a call of one result passed as a tuple: %s", fi.info.TypeOf(call))
		return
	}
	for i, st := range comps {
		if !recordedAs(results, i, st.Typ) {
			// The helper would not compile; its sites never record.
			bug.Reportf("result %d of a call recorded as %s, its type %s", i, st.Typ, results.At(i).Type())
			return
		}
	}
	rs := fi.site(KindResult, fn, call, nil)
	var params, args, resultTypes, rets []string
	for i := 0; i < results.Len(); i++ {
		constraint := "interface{}"
		ret := fmt.Sprintf("v%d", i)
		if st := comps[i]; st != nil {
			constraint = fi.prog.rt + "." + recorderConstraint[recorder(results.At(i).Type())]
			ret = fmt.Sprintf("%s.%s(%d, v%d)", fi.prog.rt, recorder(results.At(i).Type()), st.Id, i)
		}
		params = append(params, fmt.Sprintf("T%d %s", i, constraint))
		args = append(args, fmt.Sprintf("v%d T%d", i, i))
		resultTypes = append(resultTypes, fmt.Sprintf("T%d", i))
		rets = append(rets, ret)
	}
	name := fmt.Sprintf("%s%d", fi.prog.tuple, rs.Id)
	fi.add(testbuild.Edit{Off: len(fi.src), Text: fmt.Sprintf("\n\nfunc %s[%s](%s) (%s) {\n\t%s.Mark(%d)\n\treturn %s\n}\n",
		name, strings.Join(params, ", "), strings.Join(args, ", "), strings.Join(resultTypes, ", "), fi.prog.rt, rs.Id, strings.Join(rets, ", "))})
	fi.surround(call, name+"(", ")")
}

// result wraps a call to an instrumented function with a single integer,
// float or Boolean result in a kindResult site, innermost, so that the
// replay binds what the callee returned to this call and no other.
func (fi *fileInstrumenter) result(fn *Function, call *ast.CallExpr, callee *Function) {
	if len(callee.Results) != 1 || ValueKind(callee.Results[0]) == 0 || fi.prog.resultOf[call] {
		return
	}
	fi.prog.resultOf[call] = true
	t := fi.info.TypeOf(call)
	st := fi.site(KindResult, fn, call, t)
	// Inside any other wrapping of the call (a site's own, spanning the
	// same text), and outside its operands, which end before its ")".
	span := fi.off(call.End()) - fi.off(call.Pos())
	fi.add(testbuild.Edit{Off: fi.off(call.Pos()), Text: fi.call(recorder(t), fi.spell(t, call.Pos())) + strconv.Itoa(int(st.Id)) + ", ", Span: span - 1})
	fi.add(testbuild.Edit{Off: fi.off(call.End()), Text: ")", Close: true, Span: span})
}

func (fi *fileInstrumenter) funcLit(lit *ast.FuncLit) {
	fn := fi.prog.declare(lit.Pos(), "func literal", fi.hard, nil)
	if sig, ok := fi.info.TypeOf(lit).(*types.Signature); ok {
		for i := 0; i < sig.Results().Len(); i++ {
			fn.Results = append(fn.Results, sig.Results().At(i).Type())
		}
	}
	fi.function(fn, nil, lit.Type, lit.Body)
}

// model wraps the operands of e that the formula does not model, so that
// their values are recorded. The root of a site needs no wrapping: the site
// records its value.
func (fi *fileInstrumenter) model(fn *Function, e ast.Expr, root bool) {
	if fi.info.Types[e].Value != nil {
		return
	}
	if Modelled(fi.prog, fi.info, fn, e) {
		switch e := e.(type) {
		case *ast.ParenExpr:
			fi.model(fn, e.X, root)
		case *ast.BinaryExpr:
			if x, y, ok := fi.prog.DiffOperands(fi.info, e); ok {
				fi.model(fn, x, false)
				fi.model(fn, y, false)
				break
			}
			fi.model(fn, e.X, false)
			fi.model(fn, e.Y, false)
		case *ast.UnaryExpr:
			fi.model(fn, e.X, false)
		case *ast.CompositeLit:
			for _, el := range e.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				fi.model(fn, el, false)
			}
		case *ast.SelectorExpr:
			fi.model(fn, e.X, false)
		case *ast.IndexExpr:
			fi.model(fn, e.X, false)
			fi.model(fn, e.Index, false)
		case *ast.SliceExpr:
			fi.model(fn, e.X, false)
			for _, b := range []ast.Expr{e.Low, e.High} {
				if b != nil {
					fi.model(fn, b, false)
				}
			}
		case *ast.CallExpr:
			if fi.prog.Callee(fi.info, e) == nil && !IsErrorCtor(fi.info, e) {
				for _, a := range e.Args {
					fi.model(fn, a, false)
				}
			}
		}
		return
	}
	if root {
		return
	}
	t := fi.info.TypeOf(e)
	if ValueKind(t) == 0 {
		return
	}
	if _, done := fi.prog.LeafOf[e]; done {
		return // a guard recorded it already
	}
	st := fi.site(KindLeaf, fn, e, t)
	fi.prog.LeafOf[e] = st.Id
	fi.wrap(e, st.Id, t)
}

func IsConversion(info *types.Info, call *ast.CallExpr) bool {
	return len(call.Args) == 1 && info.Types[call.Fun].IsType()
}

// modelled reports whether the formula builds e from its operands.
func Modelled(p *Program, info *types.Info, fn *Function, e ast.Expr) bool {
	if info.Types[e].Value != nil {
		return ValueKind(info.TypeOf(e)) != 0 || IsUntypedNumber(info.TypeOf(e))
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return Modelled(p, info, fn, e.X) || ValueKind(info.TypeOf(e)) != 0
	case *ast.Ident:
		if IsNil(info, e) {
			return true
		}
		v, ok := info.ObjectOf(e).(*types.Var)
		return ok && fn.Tracked[v]
	case *ast.BinaryExpr:
		if _, _, ok := p.DiffOperands(info, e); ok {
			return true
		}
		if ValueKind(info.TypeOf(e.X)) == 'e' || ValueKind(info.TypeOf(e.Y)) == 'e' {
			// A comparison with nil, or with a sentinel (errors_is.go):
			// other errors compare by identity.
			return IsNil(info, e.X) || IsNil(info, e.Y) || p.sentinelComparison(info, e)
		}
		return ValueKind(info.TypeOf(e.X)) != 0 && ValueKind(info.TypeOf(e.Y)) != 0 || IsUntypedNumber(info.TypeOf(e.Y)) && ValueKind(info.TypeOf(e.X)) != 0
	case *ast.UnaryExpr:
		switch e.Op {
		case token.SUB, token.ADD, token.XOR, token.NOT:
			return ValueKind(info.TypeOf(e.X)) != 0
		}
	case *ast.IndexExpr:
		return (IsSeq(info.TypeOf(e.X)) || listOperand(info, fn, e.X) || mapOperand(info, fn, e.X)) && isIndex(info.TypeOf(e.Index))
	case *ast.CompositeLit:
		return listLitModelled(info, e) || recordLitModelled(info, e)
	case *ast.SelectorExpr:
		return fieldRead(info, fn, e)
	case *ast.SliceExpr:
		if !(IsSeq(info.TypeOf(e.X)) || listOperand(info, fn, e.X)) || e.Slice3 {
			return false
		}
		return (e.Low == nil || isIndex(info.TypeOf(e.Low))) && (e.High == nil || isIndex(info.TypeOf(e.High)))
	case *ast.CallExpr:
		if IsConversion(info, e) {
			from, to := info.TypeOf(e.Args[0]), info.TypeOf(e)
			return numeric(to) && numeric(from) || IsSeq(to) && IsSeq(from) || ValueKind(to) == 's' && ValueKind(from) == 'i'
		}
		if IsEqualCall(info, e) || IsMathAbs(info, e) || IsErrorCtor(info, e) {
			return true
		}
		if _, ok := p.ErrorsIsTarget(info, e); ok {
			return true
		}
		if _, ok := BuiltinLen(info, e); ok {
			return true
		}
		if listCallModelled(info, fn, e) {
			return true
		}
		if _, _, ok := SeqFuncOf(info, e); ok {
			return true
		}
		callee := p.Callee(info, e)
		return callee != nil && len(callee.Results) == 1 && ValueKind(callee.Results[0]) != 0
	}
	return false
}

// isIndex reports whether t is an integer type or an untyped integer
// constant's, as an index or slice bound is.
func isIndex(t types.Type) bool { return ValueKind(t) == 'i' || IsUntypedNumber(t) }

// numeric reports whether t is an integer or float type the formula models.
func numeric(t types.Type) bool {
	k := ValueKind(t)
	return k == 'i' || k == 'f'
}

// isMathAbs recognises math.Abs(x), modelled as IEEE abs (both clear the
// sign bit, NaN stays NaN).
func IsMathAbs(info *types.Info, call *ast.CallExpr) bool {
	fn := calledFunc(info, call)
	return fn != nil && len(call.Args) == 1 && fn.Pkg().Path() == "math" && fn.Name() == "Abs"
}

func IsUntypedNumber(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0 && b.Info()&types.IsInteger != 0
}

// guard instruments an index or slice expression of non-test code so that
// the run records it when it is about to panic: the bound operands are
// passed through a runtime check that reads len or cap of the indexed
// operand. That operand (and, for slices, the earlier bounds) is evaluated
// twice, so only expressions without calls or receives are guarded.
func (fi *fileInstrumenter) guard(fn *Function, e ast.Expr) {
	if fi.hard || fi.info.Types[e].Value != nil {
		return
	}
	var x ast.Expr
	switch e := e.(type) {
	case *ast.IndexExpr:
		x = e.X
	case *ast.SliceExpr:
		x = e.X
	}
	t := fi.info.TypeOf(x)
	if t == nil || fi.info.Types[x].IsType() || !pure(fi.info, x) {
		return
	}
	// The length and capacity are read through the runtime (or are
	// constants), never through len and cap, which the code may shadow.
	str := false
	xs := fi.text(x)
	var length, capacity string
	switch u := t.Underlying().(type) {
	case *types.Slice:
		length, capacity = fi.prog.rt+".Len("+xs+")", fi.prog.rt+".Cap("+xs+")"
	case *types.Array:
		length = strconv.FormatInt(u.Len(), 10)
		capacity = length
	case *types.Pointer:
		a, ok := u.Elem().Underlying().(*types.Array)
		if !ok {
			return
		}
		length = strconv.FormatInt(a.Len(), 10)
		capacity = length
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return
		}
		str = true
		length = fi.prog.rt + ".LenString(" + xs + ")"
	default:
		return // maps, type parameters, generic instantiations
	}
	if _, err := strconv.Atoi(length); err != nil && fi.indexes(x) {
		limit := func(s string) string { return fi.prog.rt + ".Limit(func() int { return " + s + " })" }
		length, capacity = limit(length), limit(capacity)
	}
	switch e := e.(type) {
	case *ast.IndexExpr:
		if ValueKind(fi.info.TypeOf(e.Index)) != 'i' && !IsUntypedNumber(fi.info.TypeOf(e.Index)) {
			return
		}
		if _, array := t.Underlying().(*types.Array); array && fi.info.Types[e.Index].Value != nil {
			return // checked by the compiler
		}
		typ, ok := fi.typeArg(e.Index, fi.info.TypeOf(e.Index))
		if !ok {
			return
		}
		st := fi.site(KindGuard, fn, e, fi.info.TypeOf(e.Index))
		st.Guard, st.Bounds = GuardIndex, []ast.Expr{e.Index}
		if IsSeq(t) {
			st.Indexed = x
		}
		fi.model(fn, e.Index, true)
		fi.surround(e.Index, fmt.Sprintf("%s%d, ", fi.call("Index", typ), st.Id), ", "+length+")")
	case *ast.SliceExpr:
		bounds := []ast.Expr{e.Low, e.High}
		if e.Slice3 {
			bounds = append(bounds, e.Max)
		}
		var present []ast.Expr
		for _, b := range bounds {
			if b != nil {
				present = append(present, b)
			}
		}
		if len(present) == 0 {
			return
		}
		for _, b := range present {
			if !pure(fi.info, b) || (ValueKind(fi.info.TypeOf(b)) != 'i' && !IsUntypedNumber(fi.info.TypeOf(b))) {
				return
			}
		}
		last := present[len(present)-1]
		earlier := []string{"0", "0"}
		int64Of := func(b ast.Expr) string { return fi.prog.rt + ".Int64(" + fi.text(b) + ")" }
		if e.Low != nil && last != e.Low {
			earlier[0], earlier[1] = int64Of(e.Low), int64Of(e.Low)
		}
		if e.Slice3 {
			earlier[1] = int64Of(e.High)
		}
		limit := capacity
		if str || e.High == nil {
			limit = length
		}
		typ, ok := fi.typeArg(last, fi.info.TypeOf(last))
		if !ok {
			return
		}
		st := fi.site(KindGuard, fn, e, fi.info.TypeOf(last))
		st.Guard, st.Bounds = GuardSlice, bounds
		if IsSeq(t) && (str || e.High == nil) {
			st.Indexed = x
		}
		for _, b := range present {
			fi.model(fn, b, true)
		}
		fi.surround(last, fmt.Sprintf("%s%d, ", fi.call("Slice", typ), st.Id), fmt.Sprintf(", %s, %s, %s)", earlier[0], earlier[1], limit))
	}
}

// indexes reports whether x indexes or slices a string, slice or array:
// a value site may replace that index in a forced run, which a second
// reading of x would not see.
func (fi *fileInstrumenter) indexes(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			found = found || fi.indexable(n.X)
		case *ast.SliceExpr:
			found = found || fi.indexable(n.X)
		}
		return !found
	})
	return found
}

// divGuard instruments an integer divisor of non-test code so that the run
// records it when it is zero.
func (fi *fileInstrumenter) divGuard(fn *Function, y ast.Expr) {
	if fi.hard || fi.info.Types[y].Value != nil || ValueKind(fi.info.TypeOf(y)) != 'i' {
		return
	}
	typ, ok := fi.typeArg(y, fi.info.TypeOf(y))
	if !ok {
		return
	}
	st := fi.site(KindGuard, fn, y, fi.info.TypeOf(y))
	st.Guard, st.Bounds = GuardDiv, []ast.Expr{y}
	fi.model(fn, y, true)
	fi.surround(y, fmt.Sprintf("%s%d, ", fi.call("Div", typ), st.Id), ")")
}

// surround puts text around e, outside any wrapping of e itself.
func (fi *fileInstrumenter) surround(e ast.Expr, open, close string) {
	span := fi.off(e.End()) - fi.off(e.Pos())
	fi.add(testbuild.Edit{Off: fi.off(e.Pos()), Text: open, Span: span + 1})
	fi.add(testbuild.Edit{Off: fi.off(e.End()), Text: close, Close: true, Span: span + 2})
}

func (fi *fileInstrumenter) text(e ast.Expr) string {
	return string(fi.src[fi.off(e.Pos()):fi.off(e.End())])
}

// pure reports whether evaluating e twice is harmless: no calls other than
// conversions and len or cap, no receives, no function literals.
func pure(info *types.Info, e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			ok = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.CallExpr:
			if IsConversion(info, n) {
				break
			}
			if id, isID := ast.Unparen(n.Fun).(*ast.Ident); isID {
				if b, builtin := info.Uses[id].(*types.Builtin); builtin && (b.Name() == "len" || b.Name() == "cap") {
					break
				}
			}
			ok = false
		}
		return ok
	})
	return ok
}
