package instrument

import (
	"bytes"
	"go/ast"
	"go/constant"
	"go/types"
	"strconv"
	"strings"
)

// seqFunc is a function of package strings, bytes or strconv whose
// meaning the sequence theory expresses: the formula builds its result
// from its arguments. Any other library call keeps its recorded result.
type SeqFunc struct {
	// params are the kinds of the parameters: 's' string or byte slice,
	// 'c' byte, 'i' integer, 'b' Boolean.
	params string
	// conc is the function itself, on the run's values.
	Conc func(args []Value) Value
}

func IntValue(n int) Value { return Value{N: int64(n)} }

// seqFuncs are the modelled functions by package path and name.
var SeqFuncs = map[string]SeqFunc{
	"strings.Index":      {"ss", func(a []Value) Value { return IntValue(strings.Index(a[0].S, a[1].S)) }},
	"strings.IndexByte":  {"sc", func(a []Value) Value { return IntValue(strings.IndexByte(a[0].S, byte(a[1].N))) }},
	"strings.Contains":   {"ss", func(a []Value) Value { return BoolValue(strings.Contains(a[0].S, a[1].S)) }},
	"strings.HasPrefix":  {"ss", func(a []Value) Value { return BoolValue(strings.HasPrefix(a[0].S, a[1].S)) }},
	"strings.HasSuffix":  {"ss", func(a []Value) Value { return BoolValue(strings.HasSuffix(a[0].S, a[1].S)) }},
	"strings.TrimPrefix": {"ss", func(a []Value) Value { return Value{S: strings.TrimPrefix(a[0].S, a[1].S)} }},
	"strings.TrimSuffix": {"ss", func(a []Value) Value { return Value{S: strings.TrimSuffix(a[0].S, a[1].S)} }},
	"strings.Repeat":     {"si", func(a []Value) Value { return Value{S: strings.Repeat(a[0].S, int(a[1].N))} }},
	"strings.Compare":    {"ss", func(a []Value) Value { return IntValue(strings.Compare(a[0].S, a[1].S)) }},
	"bytes.Index":        {"ss", func(a []Value) Value { return IntValue(bytes.Index([]byte(a[0].S), []byte(a[1].S))) }},
	"bytes.IndexByte":    {"sc", func(a []Value) Value { return IntValue(bytes.IndexByte([]byte(a[0].S), byte(a[1].N))) }},
	"bytes.Contains":     {"ss", func(a []Value) Value { return BoolValue(bytes.Contains([]byte(a[0].S), []byte(a[1].S))) }},
	"bytes.HasPrefix":    {"ss", func(a []Value) Value { return BoolValue(bytes.HasPrefix([]byte(a[0].S), []byte(a[1].S))) }},
	"bytes.HasSuffix":    {"ss", func(a []Value) Value { return BoolValue(bytes.HasSuffix([]byte(a[0].S), []byte(a[1].S))) }},
	"bytes.TrimPrefix":   {"ss", func(a []Value) Value { return Value{S: string(bytes.TrimPrefix([]byte(a[0].S), []byte(a[1].S)))} }},
	"bytes.TrimSuffix":   {"ss", func(a []Value) Value { return Value{S: string(bytes.TrimSuffix([]byte(a[0].S), []byte(a[1].S)))} }},
	"bytes.Repeat":       {"si", func(a []Value) Value { return Value{S: string(bytes.Repeat([]byte(a[0].S), int(a[1].N)))} }},
	"bytes.Compare":      {"ss", func(a []Value) Value { return IntValue(bytes.Compare([]byte(a[0].S), []byte(a[1].S))) }},
	"bytes.Equal":        {"ss", func(a []Value) Value { return BoolValue(a[0].S == a[1].S) }},
	"strconv.Itoa":       {"i", func(a []Value) Value { return Value{S: strconv.Itoa(int(a[0].N))} }},
	"strconv.FormatInt":  {"ii", func(a []Value) Value { return Value{S: strconv.FormatInt(a[0].N, 10)} }},
	"strconv.FormatUint": {"ii", func(a []Value) Value { return Value{S: strconv.FormatUint(uint64(a[0].N), 10)} }},
	"strconv.FormatBool": {"b", func(a []Value) Value { return Value{S: strconv.FormatBool(a[0].N != 0)} }},
}

// seqFuncOf recognises a call of a modelled library function and returns
// it with its qualified name. FormatInt and FormatUint are modelled in
// base 10 only.
func SeqFuncOf(info *types.Info, call *ast.CallExpr) (SeqFunc, string, bool) {
	fn := calledFunc(info, call)
	if fn == nil || call.Ellipsis.IsValid() {
		return SeqFunc{}, "", false
	}
	if sig, ok := fn.Type().(*types.Signature); !ok || sig.Recv() != nil {
		return SeqFunc{}, "", false
	}
	name := fn.Pkg().Path() + "." + fn.Name()
	f, ok := SeqFuncs[name]
	if !ok || len(call.Args) != len(f.params) {
		return SeqFunc{}, "", false
	}
	if name == "strconv.FormatInt" || name == "strconv.FormatUint" {
		base := info.Types[call.Args[1]].Value
		if base == nil {
			return SeqFunc{}, "", false
		}
		if b, exact := constant.Int64Val(base); !exact || b != 10 {
			return SeqFunc{}, "", false
		}
	}
	return f, name, true
}

// builtinLen recognises len(x) of a string or byte slice.
func BuiltinLen(info *types.Info, call *ast.CallExpr) (string, bool) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) != 1 {
		return "", false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	if !ok || b.Name() != "len" || !IsSeq(info.TypeOf(call.Args[0])) {
		return "", false
	}
	return b.Name(), true
}
