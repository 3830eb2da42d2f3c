package instrument

import (
	"encoding/binary"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Slices of integers (other than byte slices) and of records are lists
// (valueKind 'l'): the trace records one as its elements' bytes, 8
// little-endian bytes per integer (extended to 64 bits by its type's
// signedness) or per record field; the formula models it as an array
// holding its length (encode_list.go).

// listElem returns the element type of a list type, or nil: a slice of a
// predeclared integer type other than byte, or of a record type.
func ListElem(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	sl, ok := t.Underlying().(*types.Slice)
	if !ok {
		return nil
	}
	if IsRecord(sl.Elem()) {
		return sl.Elem()
	}
	b, ok := types.Unalias(sl.Elem()).(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 || b.Kind() == types.Uint8 {
		return nil
	}
	return b
}

// isList reports whether t is a list type.
func IsList(t types.Type) bool { return ListElem(t) != nil }

// elemBytes is the size of one element of type elem in a recorded list.
func ElemBytes(elem types.Type) int64 {
	if fs := RecordFields(elem); fs != nil {
		return 8 * int64(len(fs))
	}
	return 8
}

// listLen is the number of elements of a recorded list (opaque: n is its
// size in bytes).
func ListLen(v Value, elem types.Type) int64 {
	if v.Opaque {
		return v.N / ElemBytes(elem)
	}
	return int64(len(v.S)) / ElemBytes(elem)
}

// listAt is element i of a recorded list: an integer normalised to its
// type, or a record.
func ListAt(v Value, i int64, elem types.Type) Value {
	n := ElemBytes(elem)
	if IsRecord(elem) {
		return Value{S: v.S[i*n : (i+1)*n]}
	}
	x := binary.LittleEndian.Uint64([]byte(v.S[i*n:]))
	return Value{N: Normalize(elem, int64(x))}
}

// elemRecord is the recorded bytes of an element value.
func ElemRecord(x Value, elem types.Type) string {
	if IsRecord(elem) {
		return x.S
	}
	return string(binary.LittleEndian.AppendUint64(nil, uint64(x.N)))
}

// listOf is the recorded value of a list of the given elements.
func ListOf(elems []Value, elem types.Type) Value {
	var b strings.Builder
	for _, x := range elems {
		b.WriteString(ElemRecord(x, elem))
	}
	return Value{S: b.String()}
}

// listItems decodes a recorded list.
func ListItems(v Value, elem types.Type) []Value {
	out := make([]Value, ListLen(v, elem))
	for i := range out {
		out[i] = ListAt(v, int64(i), elem)
	}
	return out
}

// renderList prints a list of type t as a composite literal.
func renderList(t types.Type, v Value) string {
	elem := ListElem(t)
	if v.Opaque {
		return "(" + strconv.FormatInt(ListLen(v, elem), 10) + " elements)"
	}
	var parts []string
	for _, x := range ListItems(v, elem) {
		parts = append(parts, RenderValue(elem, x))
	}
	name := elem.String()
	if n, ok := types.Unalias(elem).(*types.Named); ok {
		name = n.Obj().Name()
	}
	return "[]" + name + "{" + strings.Join(parts, ", ") + "}"
}

// isAppend recognises a call of the builtin append.
func IsAppend(info *types.Info, call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "append"
}

// listUsesSafe reports whether every use of the list local v in body keeps
// the formula's value semantics right: no other reference to its elements
// is made in the function (no copy to another variable, no slicing, no
// call but len, append onto itself and the comparisons of test checks, no
// closure, no address), so an element stored through v is seen only
// through v. Aliases made before the function are caught by the check of
// each site's modelled value against the recorded one.
func listUsesSafe(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	return everyUse(info, body, v, func(id *ast.Ident, parents []ast.Node) bool { return safeListUse(info, id, parents, v) })
}

// everyUse reports whether every use of v in body, outside closures, is
// one judge accepts (given the nodes enclosing it, innermost last), and
// no closure uses v.
func everyUse(info *types.Info, body *ast.BlockStmt, v *types.Var, judge func(id *ast.Ident, parents []ast.Node) bool) bool {
	safe := true
	var parents []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			parents = parents[:len(parents)-1]
			return false
		}
		if _, lit := n.(*ast.FuncLit); lit {
			if usesVar(info, n, v) {
				safe = false
			}
			return false
		}
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v && !judge(id, parents) {
			safe = false
		}
		parents = append(parents, n)
		return safe
	})
	return safe
}

func usesVar(info *types.Info, n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// safeListUse judges one use of a list local by the expressions around it.
func safeListUse(info *types.Info, id *ast.Ident, parents []ast.Node, v *types.Var) bool {
	var child ast.Node = id
	for i := len(parents) - 1; i >= 0; i-- {
		p := parents[i]
		switch p := p.(type) {
		case *ast.ParenExpr:
			child = p
			continue
		case *ast.IndexExpr:
			// An element read or stored whole; not one whose address is
			// taken, nor one changed by ++, --, or through a field.
			if p.X != child || i == 0 {
				return p.X == child
			}
			switch q := parents[i-1].(type) {
			case *ast.UnaryExpr:
				return q.Op != token.AND
			case *ast.IncDecStmt:
				return q.X != ast.Node(p)
			case *ast.SelectorExpr:
				// A field read; not a field changed in place, nor a
				// method given the element's address.
				if sel, ok := info.Selections[q]; ok && sel.Kind() != types.FieldVal {
					if _, ptr := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr {
						return false
					}
				}
				if i < 2 {
					return true
				}
				switch r := parents[i-2].(type) {
				case *ast.AssignStmt:
					for _, l := range r.Lhs {
						if l == ast.Expr(q) {
							return false
						}
					}
				case *ast.IncDecStmt:
					return r.X != ast.Expr(q)
				case *ast.UnaryExpr:
					return r.Op != token.AND
				}
			}
			return true
		case *ast.RangeStmt:
			return p.X == child
		case *ast.ReturnStmt:
			return true
		case *ast.AssignStmt:
			// Assigned to: the local takes a new value, which must not be
			// one another variable of the function also refers to.
			return freshAssign(info, p, child)
		case *ast.CallExpr:
			if readOnlyCall(info, p) {
				return true
			}
			if IsAppend(info, p) && len(p.Args) > 0 {
				if p.Args[0] != child {
					return p.Ellipsis.IsValid() // append(x, v...) copies v's elements
				}
				// append(v, ...) assigned back to v alone.
				if i == 0 {
					return false
				}
				as, ok := parents[i-1].(*ast.AssignStmt)
				if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != p {
					return false
				}
				l, ok := ast.Unparen(as.Lhs[0]).(*ast.Ident)
				return ok && info.ObjectOf(l) == v
			}
			return false
		}
		return false
	}
	return false
}

// freshAssign reports whether an assignment stores into lhs (one of its
// left operands) a value no other variable of the function refers to: a
// call's result, a literal, an expression; not another variable's, a
// field's, an element's, a slice of something (nil aside).
func freshAssign(info *types.Info, as *ast.AssignStmt, lhs ast.Node) bool {
	for j, l := range as.Lhs {
		if l != lhs {
			continue
		}
		if len(as.Rhs) != len(as.Lhs) {
			return true // the results of a call
		}
		switch ast.Unparen(as.Rhs[j]).(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.SliceExpr, *ast.IndexExpr, *ast.StarExpr:
			return IsNil(info, as.Rhs[j])
		}
		return true
	}
	return false
}

// readOnlyCall reports whether a call only reads a slice or map given to
// it: len, the checks' comparisons, printing.
func readOnlyCall(info *types.Info, call *ast.CallExpr) bool {
	if _, ok := BuiltinLenOf(info, call); ok {
		return true
	}
	return IsEqualCall(info, call) || isDiffCall(info, call) || readsOnly(info, call)
}

// builtinLenOf recognises len(x).
func BuiltinLenOf(info *types.Info, call *ast.CallExpr) (string, bool) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) != 1 {
		return "", false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	if !ok || b.Name() != "len" {
		return "", false
	}
	return b.Name(), true
}

// isAggregate reports whether t is a list, record or map type: recorded
// as the bytes of its elements, fields or entries.
func IsAggregate(t types.Type) bool { return IsList(t) || IsRecord(t) || IsMap(t) }

// isSeqStore reports whether b[i] = v on a local of type t is followed
// by the formula: a byte slice or a list.
func IsSeqStore(t types.Type) bool { return ValueKind(t) == 'y' || IsList(t) || IsMap(t) }

// fieldStore reports whether x.f = v stores into a tracked record local.
func FieldStore(info *types.Info, fn *Function, lhs ast.Expr) (*types.Var, bool) {
	sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil, false
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	if !ok || !fn.Tracked[v] || !IsRecord(v.Type()) || FieldIndex(v.Type(), sel.Sel.Name) < 0 {
		return nil, false
	}
	return v, true
}

// listLitModelled reports whether the formula builds a composite literal:
// a list without keys.
func listLitModelled(info *types.Info, e *ast.CompositeLit) bool {
	if !IsList(info.TypeOf(e)) {
		return false
	}
	for _, el := range e.Elts {
		if _, keyed := el.(*ast.KeyValueExpr); keyed {
			return false
		}
	}
	return true
}

// listCallModelled reports whether the formula builds a call on lists:
// append to a list (of elements, or of a list spread), len of a list.
func listCallModelled(info *types.Info, fn *Function, e *ast.CallExpr) bool {
	if IsAppend(info, e) && len(e.Args) > 0 && listOperand(info, fn, e.Args[0]) {
		if e.Ellipsis.IsValid() {
			return len(e.Args) == 2 && listOperand(info, fn, e.Args[1])
		}
		return true
	}
	if _, ok := BuiltinLenOf(info, e); ok {
		return listOperand(info, fn, e.Args[0]) || mapOperand(info, fn, e.Args[0])
	}
	return false
}

// listOperand reports whether the formula reads a list operand from its
// own terms: a tracked list local or a modelled literal. Another list (a
// field, a global) stays a recorded leaf where it is used, so that an
// element read records the element, not the whole list.
func listOperand(info *types.Info, fn *Function, x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		v, ok := info.ObjectOf(x).(*types.Var)
		return ok && IsList(v.Type()) && fn.Tracked[v]
	case *ast.CompositeLit:
		return listLitModelled(info, x)
	}
	return false
}

// untrackAliasedLists leaves to their recorded values the list locals of
// fn whose uses could make another reference to their elements.
func (fi *fileInstrumenter) untrackAliasedLists(fn *Function, body *ast.BlockStmt) {
	for v := range fn.Tracked {
		if IsList(v.Type()) && !listUsesSafe(fi.info, body, v) || IsRecord(v.Type()) && !recordUsesSafe(fi.info, body, v) ||
			IsMap(v.Type()) && !mapUsesSafe(fi.info, body, v) {
			delete(fn.Tracked, v)
		}
	}
}

// readsOnly reports whether a call only reads the slices passed to it:
// printing (fmt, and the testing types' Log and Error families, which
// print), comparing (reflect, go-cmp, testify's assertions, quicktest's
// Assert and Check).
func readsOnly(info *types.Info, call *ast.CallExpr) bool {
	var fn *types.Func
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		fn, _ = info.Uses[f.Sel].(*types.Func)
	case *ast.Ident:
		fn, _ = info.Uses[f].(*types.Func)
	}
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "fmt", "testing", "reflect", goCmp, testifyAssert, testifyRequire:
		return true
	case quicktest:
		return fn.Name() == "Assert" || fn.Name() == "Check"
	}
	return false
}
