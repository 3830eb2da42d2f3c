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
type seqFunc struct {
	// params are the kinds of the parameters: 's' string or byte slice,
	// 'c' byte, 'i' integer, 'b' Boolean.
	params string
	// conc is the function itself, on the run's values.
	conc func(args []value) value
}

func intValue(n int) value { return value{n: int64(n)} }

// seqFuncs are the modelled functions by package path and name.
var seqFuncs = map[string]seqFunc{
	"strings.Index":      {"ss", func(a []value) value { return intValue(strings.Index(a[0].s, a[1].s)) }},
	"strings.IndexByte":  {"sc", func(a []value) value { return intValue(strings.IndexByte(a[0].s, byte(a[1].n))) }},
	"strings.Contains":   {"ss", func(a []value) value { return boolValue(strings.Contains(a[0].s, a[1].s)) }},
	"strings.HasPrefix":  {"ss", func(a []value) value { return boolValue(strings.HasPrefix(a[0].s, a[1].s)) }},
	"strings.HasSuffix":  {"ss", func(a []value) value { return boolValue(strings.HasSuffix(a[0].s, a[1].s)) }},
	"strings.TrimPrefix": {"ss", func(a []value) value { return value{s: strings.TrimPrefix(a[0].s, a[1].s)} }},
	"strings.TrimSuffix": {"ss", func(a []value) value { return value{s: strings.TrimSuffix(a[0].s, a[1].s)} }},
	"strings.Repeat":     {"si", func(a []value) value { return value{s: strings.Repeat(a[0].s, int(a[1].n))} }},
	"strings.Compare":    {"ss", func(a []value) value { return intValue(strings.Compare(a[0].s, a[1].s)) }},
	"bytes.Index":        {"ss", func(a []value) value { return intValue(bytes.Index([]byte(a[0].s), []byte(a[1].s))) }},
	"bytes.IndexByte":    {"sc", func(a []value) value { return intValue(bytes.IndexByte([]byte(a[0].s), byte(a[1].n))) }},
	"bytes.Contains":     {"ss", func(a []value) value { return boolValue(bytes.Contains([]byte(a[0].s), []byte(a[1].s))) }},
	"bytes.HasPrefix":    {"ss", func(a []value) value { return boolValue(bytes.HasPrefix([]byte(a[0].s), []byte(a[1].s))) }},
	"bytes.HasSuffix":    {"ss", func(a []value) value { return boolValue(bytes.HasSuffix([]byte(a[0].s), []byte(a[1].s))) }},
	"bytes.TrimPrefix":   {"ss", func(a []value) value { return value{s: string(bytes.TrimPrefix([]byte(a[0].s), []byte(a[1].s)))} }},
	"bytes.TrimSuffix":   {"ss", func(a []value) value { return value{s: string(bytes.TrimSuffix([]byte(a[0].s), []byte(a[1].s)))} }},
	"bytes.Repeat":       {"si", func(a []value) value { return value{s: string(bytes.Repeat([]byte(a[0].s), int(a[1].n)))} }},
	"bytes.Compare":      {"ss", func(a []value) value { return intValue(bytes.Compare([]byte(a[0].s), []byte(a[1].s))) }},
	"bytes.Equal":        {"ss", func(a []value) value { return boolValue(a[0].s == a[1].s) }},
	"strconv.Itoa":       {"i", func(a []value) value { return value{s: strconv.Itoa(int(a[0].n))} }},
	"strconv.FormatInt":  {"ii", func(a []value) value { return value{s: strconv.FormatInt(a[0].n, 10)} }},
	"strconv.FormatUint": {"ii", func(a []value) value { return value{s: strconv.FormatUint(uint64(a[0].n), 10)} }},
	"strconv.FormatBool": {"b", func(a []value) value { return value{s: strconv.FormatBool(a[0].n != 0)} }},
}

// seqFuncOf recognises a call of a modelled library function and returns
// it with its qualified name. FormatInt and FormatUint are modelled in
// base 10 only.
func seqFuncOf(info *types.Info, call *ast.CallExpr) (seqFunc, string, bool) {
	fn := calledFunc(info, call)
	if fn == nil || call.Ellipsis.IsValid() {
		return seqFunc{}, "", false
	}
	if sig, ok := fn.Type().(*types.Signature); !ok || sig.Recv() != nil {
		return seqFunc{}, "", false
	}
	name := fn.Pkg().Path() + "." + fn.Name()
	f, ok := seqFuncs[name]
	if !ok || len(call.Args) != len(f.params) {
		return seqFunc{}, "", false
	}
	if name == "strconv.FormatInt" || name == "strconv.FormatUint" {
		base := info.Types[call.Args[1]].Value
		if base == nil {
			return seqFunc{}, "", false
		}
		if b, exact := constant.Int64Val(base); !exact || b != 10 {
			return seqFunc{}, "", false
		}
	}
	return f, name, true
}

// builtinLen recognises len(x) of a string or byte slice.
func builtinLen(info *types.Info, call *ast.CallExpr) (string, bool) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) != 1 {
		return "", false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	if !ok || b.Name() != "len" || !isSeq(info.TypeOf(call.Args[0])) {
		return "", false
	}
	return b.Name(), true
}
