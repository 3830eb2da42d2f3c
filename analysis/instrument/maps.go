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
func mapTypes(t types.Type) (key, elem types.Type) {
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
func isMap(t types.Type) bool { k, _ := mapTypes(t); return k != nil }

// mapEntry is one entry of a recorded map.
type mapEntry struct{ key, val value }

// mapEntries decodes a recorded map of type t.
func mapEntries(v value, t types.Type) []mapEntry {
	kt, vt := mapTypes(t)
	var out []mapEntry
	for i := 0; i+16 <= len(v.s); i += 16 {
		k := int64(binary.LittleEndian.Uint64([]byte(v.s[i:])))
		x := int64(binary.LittleEndian.Uint64([]byte(v.s[i+8:])))
		val := value{n: normalize(vt, x)}
		if valueKind(vt) == 'b' {
			val = boolValue(x != 0)
		}
		out = append(out, mapEntry{value{n: normalize(kt, k)}, val})
	}
	return out
}

// mapOf is the recorded value of a map of the given entries (keys
// distinct), in the trace's order.
func mapOf(entries []mapEntry) value {
	sorted := append([]mapEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return uint64(sorted[i].key.n) < uint64(sorted[j].key.n) })
	var b strings.Builder
	for _, e := range sorted {
		b.Write(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, uint64(e.key.n)), uint64(e.val.n)))
	}
	return value{s: b.String()}
}

// mapGet looks a key up in a recorded map: its value and presence.
func mapGet(v value, t types.Type, k value) (value, bool) {
	for _, e := range mapEntries(v, t) {
		if e.key == k {
			return e.val, true
		}
	}
	return value{}, false
}

// mapSet is a recorded map with k set to x.
func mapSet(v value, t types.Type, k, x value) value {
	entries := mapEntries(v, t)
	for i := range entries {
		if entries[i].key == k {
			entries[i].val = x
			return mapOf(entries)
		}
	}
	return mapOf(append(entries, mapEntry{k, x}))
}

// renderMap prints a map as a composite literal.
func renderMap(t types.Type, v value) string {
	kt, vt := mapTypes(t)
	var parts []string
	for _, e := range mapEntries(v, t) {
		parts = append(parts, renderValue(kt, e.key)+": "+renderValue(vt, e.val))
	}
	return "map[" + kt.String() + "]" + vt.String() + "{" + strings.Join(parts, ", ") + "}"
}

// mapOperand reports whether the formula reads a map operand from its own
// terms: a tracked map local.
func mapOperand(info *types.Info, fn *function, x ast.Expr) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	return ok && isMap(v.Type()) && fn.tracked[v]
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
