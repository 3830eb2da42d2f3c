package instrument

import (
	"go/ast"
	"go/types"
)

// quicktestCall returns the check and operands of a quicktest assertion:
// c.Assert(got, checker, args...) or c.Check on a *quicktest.C, or
// quicktest.Assert(t, got, checker, args...) and quicktest.Check, with a
// checker of the checks table, quicktest.CmpEquals() without options
// (DeepEquals), or quicktest.Not of one. Arguments after the checker's
// are comments; anything else there makes the call a bad check, which
// fails whatever the operands, and is not read.
func quicktestCall(info *types.Info, fn *types.Func, call *ast.CallExpr) (check, []ast.Expr, bool) {
	if fn.Name() != "Assert" && fn.Name() != "Check" || call.Ellipsis.IsValid() {
		return check{}, nil, false
	}
	args := call.Args
	if fn.Signature().Recv() == nil && len(args) > 0 {
		args = args[1:] // the testing.TB
	}
	if len(args) < 2 {
		return check{}, nil, false
	}
	c, ok := quicktestChecker(info, args[1])
	if !ok || len(args) < c.n+1 {
		return check{}, nil, false
	}
	ops := append([]ast.Expr{args[0]}, args[2:c.n+1]...)
	for _, a := range args[c.n+1:] {
		if !isQuicktestNamed(info.TypeOf(a), "Comment") {
			return check{}, nil, false
		}
	}
	if c.Kind == "Equal" && c.want == 'c' && ValueKind(info.TypeOf(ops[0])) == 'e' && info.Types[ops[1]].IsNil() {
		// got == nil on an error: its nil-ness.
		return check{Kind: "Nil", Not: c.Not, n: 1, want: 'e'}, ops[:1], true
	}
	if c.Kind == "Len" && !types.Identical(types.Default(info.TypeOf(ops[1])), types.Typ[types.Int]) {
		return check{}, nil, false // HasLen's length must be an int
	}
	if c.Kind == "Contains" && ValueKind(info.TypeOf(ops[0])) == 's' && !types.Identical(info.TypeOf(ops[0]), types.Typ[types.String]) {
		return check{}, nil, false // a named string type is no string to Contains
	}
	return c, ops, true
}

// quicktestChecker returns the check a quicktest checker expression makes.
func quicktestChecker(info *types.Info, e ast.Expr) (check, bool) {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		id, _ := e.(*ast.Ident)
		if sel, ok := e.(*ast.SelectorExpr); ok {
			id = sel.Sel
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || v.Pkg() == nil || v.Pkg().Path() != quicktest || v.Parent() != v.Pkg().Scope() {
			return check{}, false
		}
		c, ok := checks[quicktest][v.Name()]
		return c, ok
	case *ast.CallExpr:
		fn := calledFunc(info, e)
		if fn == nil || fn.Pkg().Path() != quicktest || e.Ellipsis.IsValid() {
			return check{}, false
		}
		switch {
		case fn.Name() == "Not" && len(e.Args) == 1:
			c, ok := quicktestChecker(info, e.Args[0])
			c.Not = !c.Not
			return c, ok
		case fn.Name() == "CmpEquals" && len(e.Args) == 0:
			return checks[quicktest]["DeepEquals"], true
		}
	}
	return check{}, false
}

// isQuicktestNamed reports whether t is quicktest's named type name.
func isQuicktestNamed(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == quicktest && n.Obj().Name() == name
}

// cmpExported reports whether go-cmp compares values of t without
// options: a record or a list of records only with exported fields.
func cmpExported(t types.Type) bool {
	if e := ListElem(t); e != nil {
		t = e
	}
	for _, f := range RecordFields(t) {
		if !f.Exported() {
			return false
		}
	}
	return true
}
