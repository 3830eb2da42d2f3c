package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// forcible are the site kinds whose recorded value a forced run can
// replace: an expression recorded by one of them needs no value site.
var Forcible = map[siteKind]bool{KindAssign: true, KindIncDec: true, KindCond: true, KindReturn: true, KindArg: true,
	KindLeaf: true, KindTag: true, KindResult: true, KindValue: true}

// valueSites gives value replacement what the formula's sites leave out:
// in non-test code, every right-hand side, returned value, switch tag and
// argument of a call that no forcible site records yet is wrapped in the
// runtime's V, which records and forces a value of any type as text
// (strings, slices, structs, maps, pointers, errors, and the integer
// arguments of calls the formula does not follow). V does nothing unless
// a run asks for values, so the formula's runs pay one call per value.
func (fi *fileInstrumenter) valueSites(f *ast.File) {
	if fi.hard {
		return
	}
	have := map[ast.Expr]bool{}
	for _, s := range fi.prog.Sites {
		if s.File == fi.rel && s.Expr != nil && Forcible[s.Kind] {
			have[s.Expr] = true
		}
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		fn := fi.prog.Funcs[fi.prog.funcKey(fd.Name.Pos())]
		sig, _ := fi.info.Defs[fd.Name].Type().(*types.Signature)
		fi.valuesIn(fn, sig, fd.Body, have)
	}
}

// valuesIn adds the value sites of one function body; function literals
// inside are functions of their own.
func (fi *fileInstrumenter) valuesIn(fn *Function, sig *types.Signature, body *ast.BlockStmt, have map[ast.Expr]bool) {
	// A select case's receive and a type switch's x.(type) must stay what
	// they are: their statements get no value site.
	fixed := map[ast.Stmt]bool{}
	chainType := map[*ast.BinaryExpr]types.Type{} // of && and || chains
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CommClause:
			fixed[n.Comm] = true
		case *ast.TypeSwitchStmt:
			fixed[n.Assign] = true
		case *ast.FuncLit:
			litSig, _ := fi.info.TypeOf(n).(*types.Signature)
			fi.valuesIn(fi.prog.Funcs[fi.prog.funcKey(n.Pos())], litSig, n.Body, have)
			return false
		case *ast.GoStmt, *ast.DeferStmt:
			// The call runs later; only the literals inside are visited.
			ast.Inspect(n, func(m ast.Node) bool {
				if lit, ok := m.(*ast.FuncLit); ok {
					litSig, _ := fi.info.TypeOf(lit).(*types.Signature)
					fi.valuesIn(fi.prog.Funcs[fi.prog.funcKey(lit.Pos())], litSig, lit.Body, have)
					return false
				}
				return true
			})
			return false
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) && !fixed[n] {
				for i, rhs := range n.Rhs {
					if id, ok := n.Lhs[i].(*ast.Ident); ok && id.Name == "_" {
						continue
					}
					fi.valueSite(fn, rhs, fi.info.TypeOf(n.Lhs[i]), have)
				}
			}
		case *ast.ValueSpec:
			if _, constant := fi.info.Defs[n.Names[0]].(*types.Const); constant {
				break // a constant's value must stay constant
			}
			if len(n.Values) == len(n.Names) {
				for i, x := range n.Values {
					if n.Names[i].Name != "_" {
						fi.valueSite(fn, x, fi.info.TypeOf(n.Names[i]), have)
					}
				}
			}
		case *ast.ReturnStmt:
			if sig != nil && len(n.Results) == sig.Results().Len() {
				for i, r := range n.Results {
					fi.valueSite(fn, r, sig.Results().At(i).Type(), have)
				}
			}
		case *ast.SwitchStmt:
			if n.Tag != nil {
				fi.valueSite(fn, n.Tag, fi.info.TypeOf(n.Tag), have)
			}
		case *ast.CallExpr:
			fi.argValues(fn, n, have)
		case *ast.GenDecl:
			if n.Tok == token.CONST {
				return false // a constant's operands must stay constant
			}
		case *ast.ArrayType:
			return false // an array's length is a constant
		case *ast.IndexExpr:
			if fi.indexable(n.X) && !isArray(fi.info.TypeOf(n)) {
				fi.valueSite(fn, n.Index, types.Typ[types.Int], have)
			}
		case *ast.SliceExpr:
			if fi.indexable(n.X) {
				for _, b := range []ast.Expr{n.Low, n.High, n.Max} {
					if b != nil {
						fi.valueSite(fn, b, types.Typ[types.Int], have)
					}
				}
			}
		case *ast.BinaryExpr:
			if fi.info.Types[n].Value == nil && (n.Op == token.LAND || n.Op == token.LOR) {
				// Each operand of && and || is a condition of its own,
				// which replacement negates (c == '0' in x && c == '0').
				// An untyped operand has the type of the whole chain,
				// bool where that is untyped too (an if's condition).
				t := chainType[n]
				if t == nil {
					if t = fi.info.TypeOf(n); t == nil || isUntyped(t) {
						t = types.Typ[types.Bool]
					}
				}
				for _, x := range []ast.Expr{n.X, n.Y} {
					if b, ok := ast.Unparen(x).(*ast.BinaryExpr); ok && (b.Op == token.LAND || b.Op == token.LOR) {
						chainType[b] = t // its operands are
						continue
					}
					if fi.info.Types[x].Value == nil {
						fi.valueSite(fn, x, t, have)
					}
				}
			}
			if fi.info.Types[n].Value == nil {
				operands := []ast.Expr{n.X, n.Y}
				if n.Op == token.SHL || n.Op == token.SHR {
					operands = operands[1:] // an untyped left operand takes its type from the context
				}
				for _, x := range operands {
					if lit, ok := ast.Unparen(x).(*ast.BasicLit); ok && lit.Kind == token.INT && ValueKind(fi.info.TypeOf(x)) == 'i' {
						fi.valueSite(fn, x, fi.info.TypeOf(x), have)
					}
				}
			}
		}
		return true
	})
}

// indexable reports whether x is a value that integer indices select from:
// a string, slice, array or pointer to an array (not a map, and not a
// generic function or type being instantiated).
func (fi *fileInstrumenter) indexable(x ast.Expr) bool {
	tv, ok := fi.info.Types[x]
	if !ok || !tv.IsValue() {
		return false
	}
	t := tv.Type.Underlying()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem().Underlying()
		_, isArr := t.(*types.Array)
		return isArr
	}
	switch u := t.(type) {
	case *types.Slice, *types.Array:
		return true
	case *types.Basic:
		return u.Info()&types.IsString != 0
	}
	return false
}

// isArray reports whether t is an array type: the length of an array
// element of a variable is a constant while its index is, so the index
// stays as it is.
func isArray(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Array)
	return ok
}

// argValues adds a value site for each argument of a call that is not a
// builtin's or a conversion's.
func (fi *fileInstrumenter) argValues(fn *Function, call *ast.CallExpr, have map[ast.Expr]bool) {
	if IsConversion(fi.info, call) {
		return
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if _, builtin := fi.info.Uses[id].(*types.Builtin); builtin {
			return
		}
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if _, builtin := fi.info.Uses[sel.Sel].(*types.Builtin); builtin {
			return // unsafe.Sizeof and the like
		}
	}
	sig, ok := fi.info.TypeOf(call.Fun).(*types.Signature)
	if !ok {
		return
	}
	params := sig.Params()
	for i, a := range call.Args {
		if _, multi := fi.info.TypeOf(a).(*types.Tuple); multi {
			return
		}
		var ctx types.Type
		switch {
		case sig.Variadic() && i >= params.Len()-1:
			ctx = params.At(params.Len() - 1).Type()
			if !call.Ellipsis.IsValid() {
				ctx = ctx.(*types.Slice).Elem()
			}
		case i < params.Len():
			ctx = params.At(i).Type()
		default:
			return
		}
		fi.valueSite(fn, a, ctx, have)
	}
}

// valueSite wraps e, standing where a value of type ctx is expected, in V
// unless a forcible site records it already or its value cannot travel as
// text (functions, channels). V is instantiated with e's type when e takes
// it from where it stands (a constant, nil); an e whose type cannot be
// spelled there is left alone.
func (fi *fileInstrumenter) valueSite(fn *Function, e ast.Expr, ctx types.Type, have map[ast.Expr]bool) {
	if fn == nil || have[e] || fi.info.Types[e].IsType() {
		return
	}
	t := fi.info.TypeOf(e)
	if t == nil {
		return
	}
	if b, ok := t.(*types.Basic); ok && (b.Kind() == types.UntypedNil || b.Kind() == types.UntypedBool) {
		t = ctx // nil, or a comparison, takes its type where it stands
	}
	if t == nil || !travels(t) {
		return
	}
	typ := ""
	if fi.contextTyped(e) || IsNil(fi.info, e) {
		if typ = fi.spellValue(t, e.Pos()); typ == "" {
			return
		}
	}
	have[e] = true
	st := fi.site(KindValue, fn, e, t)
	st.Pkg = fi.pkg
	span := fi.off(e.End()) - fi.off(e.Pos())
	fi.add(testbuild.Edit{Off: fi.off(e.Pos()), Text: fi.call("V", typ) + strconv.Itoa(int(st.Id)) + ", ", Span: span})
	fi.add(testbuild.Edit{Off: fi.off(e.End()), Text: ")", Close: true, Span: span + 1})
}

// travels reports whether values of t can be recorded and forced as text.
// A pointer to an array does not: the compiler fails on slicing a
// variable assigned from V's instantiation with one (go1.26, lz4's
// xxh32), and replacing the pointer says little the array's elements
// would not.
func travels(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return !isArray(u.Elem())
	case *types.Signature, *types.Chan, *types.Tuple:
		return false
	case *types.Basic:
		return u.Kind() != types.UnsafePointer && u.Kind() != types.Invalid
	}
	return true
}

// valueAliases are the runtime's names of the types V may be instantiated
// with beyond the formula's.
var valueAliases = map[types.BasicKind]string{types.Complex64: "Complex64", types.Complex128: "Complex128"}

// spellValue is fi.spell for the types of value sites: complex numbers,
// the empty interface and composite types of spellable elements too.
func (fi *fileInstrumenter) spellValue(t types.Type, pos token.Pos) string {
	switch u := types.Unalias(t).(type) {
	case *types.Basic:
		if name, ok := valueAliases[u.Kind()]; ok {
			return fi.prog.rt + "." + name
		}
	case *types.Interface:
		if u.Empty() {
			return fi.prog.rt + ".Any"
		}
		return ""
	case *types.Slice:
		if e := fi.spellValue(u.Elem(), pos); e != "" {
			return "[]" + e
		}
		return ""
	case *types.Pointer:
		if e := fi.spellValue(u.Elem(), pos); e != "" {
			return "*" + e
		}
		return ""
	case *types.Map:
		k, v := fi.spellValue(u.Key(), pos), fi.spellValue(u.Elem(), pos)
		if k != "" && v != "" {
			return "map[" + k + "]" + v
		}
		return ""
	}
	return fi.spell(t, pos)
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}
