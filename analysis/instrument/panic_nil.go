package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
)

// This file guards the panics of non-test code that are not index, slice
// or division ones: a nil pointer dereferenced (p.f, *p, a value method
// called through p), a write to a nil map and an explicit panic call. A
// test that fails by one of them gets "this panic does not happen" as its
// specification: under the path that reached it the operation is not
// reached (the pointer and the map are not modelled, so only the path can
// change).

// nilGuard passes the pointer operand of a dereference through the
// runtime's Nil, which records a guard event only when the pointer is nil.
// The operand is evaluated once, as before, so it need not be pure; the
// wrapped expression keeps its type (Nil is generic) and stays addressable
// (a dereference of a pointer is).
func (fi *fileInstrumenter) nilGuard(fn *Function, e ast.Expr) {
	if fi.hard {
		return
	}
	var x ast.Expr
	switch e := e.(type) {
	case *ast.StarExpr:
		if tv, ok := fi.info.Types[e]; !ok || tv.IsType() {
			return // a pointer type, not a dereference
		}
		x = e.X
	case *ast.SelectorExpr:
		sel := fi.info.Selections[e]
		if sel == nil {
			return // a qualified identifier
		}
		switch sel.Kind() {
		case types.FieldVal:
		case types.MethodVal:
			// Calling a value method through a nil pointer dereferences it;
			// a pointer method receives the nil pointer.
			sig, _ := sel.Obj().Type().(*types.Signature)
			if sig == nil || sig.Recv() == nil {
				return
			}
			if _, ptr := sig.Recv().Type().Underlying().(*types.Pointer); ptr || types.IsInterface(sig.Recv().Type()) {
				return
			}
		default:
			return
		}
		x = e.X
	default:
		return
	}
	tv, ok := fi.info.Types[x]
	if !ok || !tv.IsValue() || tv.Value != nil || IsNil(fi.info, x) {
		return
	}
	if _, ptr := tv.Type.Underlying().(*types.Pointer); !ptr {
		return
	}
	st := fi.site(KindGuard, fn, e, nil)
	st.Guard = guardNil
	fi.surround(x, fmt.Sprintf("%s%d, ", fi.call("Nil", ""), st.Id), ")")
}

// rangeUnevaluated reports whether a range statement does not evaluate
// its range expression: at most one iteration variable over an array or
// a pointer to one, with no call or receive in the expression (len is a
// constant then). A guard would put a call there and have it evaluated,
// and a nil pointer in it dereferenced.
func rangeUnevaluated(info *types.Info, s *ast.RangeStmt) bool {
	if s.Value != nil {
		if id, ok := s.Value.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	t := info.TypeOf(s.X)
	if t == nil {
		return false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if _, ok := t.Underlying().(*types.Array); !ok {
		return false
	}
	return pure(info, s.X)
}

// mapWriteGuard passes the map of an element written (m[k] = v, m[k] op=
// v, m[k]++) through the runtime's NilMap, which records a guard event
// only when the map is nil. A map index expression is assignable whatever
// its map operand is.
func (fi *fileInstrumenter) mapWriteGuard(fn *Function, lhs ast.Expr) {
	if fi.hard {
		return
	}
	ix, ok := ast.Unparen(lhs).(*ast.IndexExpr)
	if !ok {
		return
	}
	tv, ok := fi.info.Types[ix.X]
	if !ok || !tv.IsValue() {
		return
	}
	if _, isMap := tv.Type.Underlying().(*types.Map); !isMap {
		return // a type parameter's core type is left alone
	}
	st := fi.site(KindGuard, fn, lhs, nil)
	st.Guard = guardMap
	fi.surround(ix.X, fmt.Sprintf("%s%d, ", fi.call("NilMap", ""), st.Id), ")")
}

// panicGuard records that an explicit call of the builtin panic in
// non-test code is reached: its argument passes through the runtime's
// Panic, which records a guard event and returns it (panic's parameter is
// an interface{} too, so the value panicked with is the same).
func (fi *fileInstrumenter) panicGuard(fn *Function, call *ast.CallExpr) {
	if fi.hard || len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return
	}
	if b, ok := fi.info.Uses[id].(*types.Builtin); !ok || b.Name() != "panic" {
		return
	}
	st := fi.site(KindGuard, fn, call, nil)
	st.Guard = guardPanic
	fi.surround(call.Args[0], fmt.Sprintf("%s%d, ", fi.call("Panic", ""), st.Id), ")")
}
