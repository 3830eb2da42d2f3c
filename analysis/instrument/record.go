package instrument

import (
	"encoding/binary"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Records are structs whose fields are all integers or Booleans (at most
// maxRecordFields of them): valueKind 'r'. The trace records one as 8
// little-endian bytes per field, in order (an integer extended to 64 bits
// by its type's signedness, a Boolean as 0 or 1); the formula models it
// as one bit-vector, the fields' bits side by side, the first field
// lowest. Go compares such structs field by field, which is bit-vector
// equality.

// maxRecordFields bounds the structs modelled as records.
const maxRecordFields = 16

// recordFields returns the fields of a record type, or nil.
func RecordFields(t types.Type) []*types.Var {
	if t == nil {
		return nil
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok || st.NumFields() == 0 || st.NumFields() > maxRecordFields {
		return nil
	}
	fields := make([]*types.Var, st.NumFields())
	for i := range fields {
		f := st.Field(i)
		b, ok := f.Type().Underlying().(*types.Basic)
		if !ok || b.Info()&(types.IsInteger|types.IsBoolean) == 0 || f.Name() == "_" {
			return nil
		}
		fields[i] = f
	}
	return fields
}

// isRecord reports whether t is a record type.
func IsRecord(t types.Type) bool { return RecordFields(t) != nil }

// fieldBits is the width of a record field's bits.
func FieldBits(t types.Type) uint {
	if ValueKind(t) == 'b' {
		return 1
	}
	n, _ := Bits(t)
	return n
}

// recordBits is the width of a record type's bit-vector.
func RecordBits(t types.Type) uint {
	var n uint
	for _, f := range RecordFields(t) {
		n += FieldBits(f.Type())
	}
	return n
}

// fieldIndex is the index of the field named name in record type t, or -1.
func FieldIndex(t types.Type, name string) int {
	for i, f := range RecordFields(t) {
		if f.Name() == name {
			return i
		}
	}
	return -1
}

// recordField is field i of a recorded record.
func RecordField(v Value, i int, t types.Type) Value {
	if len(v.S) < 8*(i+1) {
		return Value{}
	}
	x := int64(binary.LittleEndian.Uint64([]byte(v.S[8*i:])))
	if ValueKind(t) == 'b' {
		return BoolValue(x != 0)
	}
	return Value{N: Normalize(t, x)}
}

// withField is a recorded record with field i replaced.
func WithField(v Value, i int, x Value) Value {
	buf := []byte(v.S)
	binary.LittleEndian.PutUint64(buf[8*i:], uint64(x.N))
	return Value{S: string(buf)}
}

// recordOf is the recorded value of a record of the given fields.
func RecordOf(fields []Value) Value {
	buf := make([]byte, 8*len(fields))
	for i, f := range fields {
		binary.LittleEndian.PutUint64(buf[8*i:], uint64(f.N))
	}
	return Value{S: string(buf)}
}

// renderRecord prints a record as a composite literal.
func renderRecord(t types.Type, v Value) string {
	name := "struct"
	if n, ok := types.Unalias(t).(*types.Named); ok {
		name = n.Obj().Name()
	}
	var parts []string
	for i, f := range RecordFields(t) {
		parts = append(parts, f.Name()+": "+RenderValue(f.Type(), RecordField(v, i, f.Type())))
	}
	return name + "{" + strings.Join(parts, ", ") + "}"
}

// recordOperand reports whether the formula reads a record operand from
// its own terms: a tracked record local, an element of a list operand, a
// literal.
func recordOperand(info *types.Info, fn *Function, x ast.Expr) bool {
	if !IsRecord(info.TypeOf(x)) {
		return false
	}
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		v, ok := info.ObjectOf(x).(*types.Var)
		return ok && fn.Tracked[v]
	case *ast.IndexExpr:
		return listOperand(info, fn, x.X) && isIndex(info.TypeOf(x.Index))
	case *ast.CompositeLit:
		return recordLitModelled(info, x)
	}
	return false
}

// fieldRead reports whether the formula builds x.f: a field of a record
// operand.
func fieldRead(info *types.Info, fn *Function, e *ast.SelectorExpr) bool {
	sel, ok := info.Selections[e]
	return ok && sel.Kind() == types.FieldVal && len(sel.Index()) == 1 && recordOperand(info, fn, e.X)
}

// recordLitModelled reports whether the formula builds a composite
// literal of a record type (keyed or not).
func recordLitModelled(info *types.Info, e *ast.CompositeLit) bool {
	return IsRecord(info.TypeOf(e))
}

// recordUsesSafe reports whether every use of the record local v in body
// keeps the formula's value semantics right: not in a closure, its
// address not taken (&v, a method with a pointer receiver), no field
// changed by ++ or -- (a field store v.f = x is followed).
func recordUsesSafe(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	safe := true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			if usesVar(info, n, v) {
				safe = false
			}
			return false
		case *ast.IncDecStmt:
			if sel, ok := ast.Unparen(n.X).(*ast.SelectorExpr); ok && isVar(info, sel.X, v) {
				safe = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if sel, ok := ast.Unparen(n.X).(*ast.SelectorExpr); ok && isVar(info, sel.X, v) {
					safe = false
				}
			}
		case *ast.SelectorExpr:
			if s, ok := info.Selections[n]; ok && s.Kind() != types.FieldVal && isVar(info, n.X, v) {
				if _, ptr := s.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr {
					safe = false
				}
			}
		}
		return safe
	})
	return safe
}

func isVar(info *types.Info, x ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	return ok && info.ObjectOf(id) == v
}
