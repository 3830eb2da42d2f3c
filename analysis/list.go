package analysis

import (
	"encoding/binary"
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// Slices of integers (other than byte slices) are lists: the trace records
// one as a string of 8 little-endian bytes per element, the element
// extended to 64 bits by its type's signedness, and the formula models it
// as a sequence of bit-vectors of the element's width (valueKind 'l').
// A sequence carries its length, so joins, equality and append need
// nothing more; capacity is not modelled (slicing past the length keeps
// the run's value).

// listElemBytes is the width of one element in a list's recorded value.
const listElemBytes = 8

// listElem returns the element type of a list type, or nil: a slice of a
// predeclared integer type other than byte.
func listElem(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	sl, ok := t.Underlying().(*types.Slice)
	if !ok {
		return nil
	}
	b, ok := types.Unalias(sl.Elem()).(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 || b.Kind() == types.Uint8 {
		return nil
	}
	return b
}

// isList reports whether t is a list type.
func isList(t types.Type) bool { return listElem(t) != nil }

// listLen is the number of elements of a recorded list (opaque: n is its
// size in bytes).
func listLen(v value) int64 {
	if v.opaque {
		return v.n / listElemBytes
	}
	return int64(len(v.s) / listElemBytes)
}

// listAt is element i of a recorded list, normalised to its type.
func listAt(v value, i int64, elem types.Type) value {
	x := binary.LittleEndian.Uint64([]byte(v.s[i*listElemBytes:]))
	return value{n: normalize(elem, int64(x))}
}

// listOf is the recorded value of a list of the given elements.
func listOf(elems []int64) value {
	buf := make([]byte, listElemBytes*len(elems))
	for i, x := range elems {
		binary.LittleEndian.PutUint64(buf[listElemBytes*i:], uint64(x))
	}
	return value{s: string(buf)}
}

// listElems decodes a recorded list.
func listElems(v value, elem types.Type) []int64 {
	out := make([]int64, listLen(v))
	for i := range out {
		out[i] = listAt(v, int64(i), elem).n
	}
	return out
}

// renderList prints a list of type t as a composite literal.
func renderList(t types.Type, v value) string {
	if v.opaque {
		return "(" + strconv.FormatInt(listLen(v), 10) + " elements)"
	}
	elem := listElem(t)
	var parts []string
	for _, x := range listElems(v, elem) {
		if _, signed := bits(elem); signed {
			parts = append(parts, strconv.FormatInt(x, 10))
		} else {
			parts = append(parts, strconv.FormatUint(uint64(x), 10))
		}
	}
	return "[]" + elem.String() + "{" + strings.Join(parts, ", ") + "}"
}

// isAppend recognises a call of the builtin append.
func isAppend(info *types.Info, call *ast.CallExpr) bool {
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
	safe := true
	parents := []ast.Node{}
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
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v {
			if !safeListUse(info, id, parents, v) {
				safe = false
			}
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
			return p.X == child
		case *ast.RangeStmt:
			return p.X == child
		case *ast.ReturnStmt:
			return true
		case *ast.AssignStmt:
			// Assigned to: the local takes a new value.
			for _, l := range p.Lhs {
				if l == child {
					return true
				}
			}
			return false
		case *ast.CallExpr:
			if _, ok := builtinLenOf(info, p); ok {
				return true
			}
			if isEqualCall(info, p) || isDiffCall(info, p) || readsOnly(info, p) {
				return true
			}
			if isAppend(info, p) && len(p.Args) > 0 {
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

// builtinLenOf recognises len(x).
func builtinLenOf(info *types.Info, call *ast.CallExpr) (string, bool) {
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

// isSeqStore reports whether b[i] = v on a local of type t is followed
// by the formula: a byte slice or a list.
func isSeqStore(t types.Type) bool { return valueKind(t) == 'y' || isList(t) }

// listLitModelled reports whether the formula builds a composite literal:
// a list without keys.
func listLitModelled(info *types.Info, e *ast.CompositeLit) bool {
	if !isList(info.TypeOf(e)) {
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
func listCallModelled(info *types.Info, fn *function, e *ast.CallExpr) bool {
	if isAppend(info, e) && len(e.Args) > 0 && listOperand(info, fn, e.Args[0]) {
		if e.Ellipsis.IsValid() {
			return len(e.Args) == 2 && listOperand(info, fn, e.Args[1])
		}
		return true
	}
	if _, ok := builtinLenOf(info, e); ok {
		return listOperand(info, fn, e.Args[0])
	}
	return false
}

// listOperand reports whether the formula reads a list operand from its
// own terms: a tracked list local or a modelled literal. Another list (a
// field, a global) stays a recorded leaf where it is used, so that an
// element read records the element, not the whole list.
func listOperand(info *types.Info, fn *function, x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		v, ok := info.ObjectOf(x).(*types.Var)
		return ok && isList(v.Type()) && fn.tracked[v]
	case *ast.CompositeLit:
		return listLitModelled(info, x)
	}
	return false
}

// untrackAliasedLists leaves to their recorded values the list locals of
// fn whose uses could make another reference to their elements.
func (fi *fileInstrumenter) untrackAliasedLists(fn *function, body *ast.BlockStmt) {
	for v := range fn.tracked {
		if isList(v.Type()) && !listUsesSafe(fi.info, body, v) {
			delete(fn.tracked, v)
		}
	}
}

// readsOnly reports whether a call only reads the slices passed to it:
// printing (fmt, and the testing types' Log and Error families, which
// print), comparing (reflect, go-cmp, testify's assertions).
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
	}
	return false
}
