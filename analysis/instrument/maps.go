package instrument

import (
	"encoding/binary"
	"go/ast"
	"go/types"
	"sort"
	"strings"
)

// Maps from integers to integers or Booleans are valueKind 'm'. The trace
// records one as its entries ordered by key (the key's 64-bit encoding
// read unsigned), each key and value as 8 little-endian bytes; the formula
// models it as an array with a presence bit per key and its length at a
// key no Go key reaches (encode_map.go).

// mapTypes returns the key and value types of a map type the formula
// models, or nils.
func MapTypes(t types.Type) (key, elem types.Type) {
	if t == nil {
		return nil, nil
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok {
		return nil, nil
	}
	k, ok := types.Unalias(m.Key()).(*types.Basic)
	if !ok || k.Info()&types.IsInteger == 0 {
		return nil, nil
	}
	v, ok := types.Unalias(m.Elem()).(*types.Basic)
	if !ok || v.Info()&(types.IsInteger|types.IsBoolean) == 0 {
		return nil, nil
	}
	return k, v
}

// isMap reports whether t is a map type the formula models.
func IsMap(t types.Type) bool { k, _ := MapTypes(t); return k != nil }

// mapEntry is one entry of a recorded map.
type MapEntry struct{ Key, Val Value }

// mapEntries decodes a recorded map of type t.
func MapEntries(v Value, t types.Type) []MapEntry {
	kt, vt := MapTypes(t)
	var out []MapEntry
	for i := 0; i+16 <= len(v.S); i += 16 {
		k := int64(binary.LittleEndian.Uint64([]byte(v.S[i:])))
		x := int64(binary.LittleEndian.Uint64([]byte(v.S[i+8:])))
		val := Value{N: Normalize(vt, x)}
		if ValueKind(vt) == 'b' {
			val = BoolValue(x != 0)
		}
		out = append(out, MapEntry{Value{N: Normalize(kt, k)}, val})
	}
	return out
}

// mapOf is the recorded value of a map of the given entries (keys
// distinct), in the trace's order.
func MapOf(entries []MapEntry) Value {
	sorted := append([]MapEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return uint64(sorted[i].Key.N) < uint64(sorted[j].Key.N) })
	var b strings.Builder
	for _, e := range sorted {
		b.Write(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, uint64(e.Key.N)), uint64(e.Val.N)))
	}
	return Value{S: b.String()}
}

// mapGet looks a key up in a recorded map: its value and presence.
func MapGet(v Value, t types.Type, k Value) (Value, bool) {
	for _, e := range MapEntries(v, t) {
		if e.Key == k {
			return e.Val, true
		}
	}
	return Value{}, false
}

// mapSet is a recorded map with k set to x.
func MapSet(v Value, t types.Type, k, x Value) Value {
	entries := MapEntries(v, t)
	for i := range entries {
		if entries[i].Key == k {
			entries[i].Val = x
			return MapOf(entries)
		}
	}
	return MapOf(append(entries, MapEntry{k, x}))
}

// renderMap prints a map as a composite literal.
func renderMap(t types.Type, v Value) string {
	kt, vt := MapTypes(t)
	var parts []string
	for _, e := range MapEntries(v, t) {
		parts = append(parts, RenderValue(kt, e.Key)+": "+RenderValue(vt, e.Val))
	}
	return "map[" + kt.String() + "]" + vt.String() + "{" + strings.Join(parts, ", ") + "}"
}

// mapOperand reports whether the formula reads a map operand from its own
// terms: a tracked map local.
func mapOperand(info *types.Info, fn *Function, x ast.Expr) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	return ok && IsMap(v.Type()) && fn.Tracked[v]
}

// mapUsesSafe reports whether every use of the map local v in body keeps
// the formula's value semantics right: lookups m[k] (not in a comma-ok
// form, which the formula leaves to the run), stores m[k] = x and
// m[k] op= x, len, return, the checks' comparisons and printing; no
// copy to another variable, no other call (delete among them), no ++ or
// -- on an element, no closure, no range.
func mapUsesSafe(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	return everyUse(info, body, v, func(id *ast.Ident, parents []ast.Node) bool { return safeMapUse(info, id, parents) })
}

func safeMapUse(info *types.Info, id *ast.Ident, parents []ast.Node) bool {
	if len(parents) == 0 {
		return false
	}
	p := parents[len(parents)-1]
	var up ast.Node
	if len(parents) > 1 {
		up = parents[len(parents)-2]
	}
	switch p := p.(type) {
	case *ast.IndexExpr:
		if p.X != id {
			return true // a key read from the map: fine
		}
		switch u := up.(type) {
		case *ast.IncDecStmt, *ast.UnaryExpr:
			return false
		case *ast.AssignStmt:
			return len(u.Lhs) == len(u.Rhs) // not v, ok := m[k]
		}
		return true
	case *ast.ReturnStmt:
		return true
	case *ast.AssignStmt:
		return freshAssign(info, p, id)
	case *ast.CallExpr:
		return readOnlyCall(info, p)
	}
	return false
}
