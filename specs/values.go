package specs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is one argument of a fuzz function: Type is one of the types a
// fuzz function takes (bool, string, []byte, float32, float64 and the
// integer types, byte as uint8 and rune as int32). Bits holds a number in
// the analysis's trace encoding (an integer as itself, a float as its IEEE
// bits, a Boolean as 0 or 1), Str a string or []byte.
type Value struct {
	Type string `json:"type"`
	Bits int64  `json:"bits,omitempty"`
	Str  string `json:"str,omitempty"`
}

// canonical spells a fuzz argument type as Value.Type does.
func canonical(t string) string {
	switch t {
	case "byte":
		return "uint8"
	case "rune":
		return "int32"
	}
	return t
}

// fuzzTypes are the types a fuzz function may take after its *testing.T.
var fuzzTypes = map[string]bool{
	"bool": true, "string": true, "[]byte": true, "float32": true, "float64": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
}

func isUnsigned(t string) bool { return strings.HasPrefix(t, "uint") }

// bitsOf is the width of an integer type.
func bitsOf(t string) int {
	switch strings.TrimPrefix(t, "u") {
	case "int8":
		return 8
	case "int16":
		return 16
	case "int32":
		return 32
	}
	return 64
}

// Equal reports whether two values are the same input.
func (v Value) Equal(w Value) bool { return v == w }

// String spells the value as Go source: int(3), float64(1.5), "a",
// []byte("a").
func (v Value) String() string {
	switch v.Type {
	case "string":
		return strconv.Quote(v.Str)
	case "[]byte":
		return fmt.Sprintf("[]byte(%q)", v.Str)
	}
	return v.Type + "(" + v.literal() + ")"
}

// literal is the value's number or Boolean as Go spells it.
func (v Value) literal() string {
	switch v.Type {
	case "bool":
		return strconv.FormatBool(v.Bits != 0)
	case "float32":
		f := math.Float32frombits(uint32(v.Bits))
		if f != f {
			return fmt.Sprintf("math.Float32frombits(0x%x)", uint32(v.Bits))
		}
		return strconv.FormatFloat(float64(f), 'g', -1, 32)
	case "float64":
		f := math.Float64frombits(uint64(v.Bits))
		if f != f {
			return fmt.Sprintf("math.Float64frombits(0x%x)", uint64(v.Bits))
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if isUnsigned(v.Type) {
		u := uint64(v.Bits)
		if n := bitsOf(v.Type); n < 64 {
			u &= 1<<n - 1
		}
		return strconv.FormatUint(u, 10)
	}
	n := bitsOf(v.Type)
	x := v.Bits << (64 - n) >> (64 - n) // sign-extended to the type's width
	return strconv.FormatInt(x, 10)
}

// corpusHeader is the first line of a file of Go's fuzzing corpus.
const corpusHeader = "go test fuzz v1"

// MarshalCorpus encodes an input as a file of Go's seed corpus
// (testdata/fuzz/FuzzX/NAME): the header line, then one Go expression per
// argument, as go test writes them.
func MarshalCorpus(vals []Value) []byte {
	var b bytes.Buffer
	b.WriteString(corpusHeader + "\n")
	for _, v := range vals {
		switch v.Type {
		case "string":
			fmt.Fprintf(&b, "string(%q)\n", v.Str)
		case "[]byte":
			fmt.Fprintf(&b, "[]byte(%q)\n", v.Str)
		case "uint8":
			fmt.Fprintf(&b, "byte(%q)\n", rune(uint8(v.Bits)))
		case "int32":
			if r := rune(int32(v.Bits)); utf8.ValidRune(r) {
				fmt.Fprintf(&b, "rune(%q)\n", r)
			} else {
				fmt.Fprintf(&b, "int32(%d)\n", int32(v.Bits))
			}
		case "float32", "float64":
			if lit := v.literal(); strings.HasPrefix(lit, "math.") {
				b.WriteString(lit + "\n")
			} else {
				fmt.Fprintf(&b, "%s(%s)\n", v.Type, lit)
			}
		default:
			fmt.Fprintf(&b, "%s(%s)\n", v.Type, v.literal())
		}
	}
	return b.Bytes()
}

// CorpusName is the file name go test gives a corpus entry: the first 16
// hexadecimal digits of its content's SHA-256.
func CorpusName(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:16]
}

// UnmarshalCorpus decodes a corpus file.
func UnmarshalCorpus(data []byte) ([]Value, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != corpusHeader {
		return nil, fmt.Errorf("not a corpus file: the first line is not %q", corpusHeader)
	}
	var out []Value
	for n, line := range lines[1:] {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		v, err := parseCorpusLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+2, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the corpus file holds no value")
	}
	return out, nil
}

// parseCorpusLine reads one argument: a conversion T(literal) or
// math.FloatNNfrombits(bits).
func parseCorpusLine(line string) (Value, error) {
	e, err := parser.ParseExpr(line)
	if err != nil {
		return Value{}, err
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return Value{}, fmt.Errorf("%q is not a conversion", line)
	}
	typ := exprString(call.Fun)
	arg := call.Args[0]
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && exprString(sel.X) == "math" {
		lit, ok := arg.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return Value{}, fmt.Errorf("%q: want an integer of bits", line)
		}
		u, err := strconv.ParseUint(lit.Value, 0, 64)
		if err != nil {
			return Value{}, err
		}
		switch sel.Sel.Name {
		case "Float32frombits":
			return Value{Type: "float32", Bits: int64(uint32(u))}, nil
		case "Float64frombits":
			return Value{Type: "float64", Bits: int64(u)}, nil
		}
		return Value{}, fmt.Errorf("%q: unknown function", line)
	}
	typ = canonical(typ)
	if !fuzzTypes[typ] {
		return Value{}, fmt.Errorf("%q: unsupported type %s", line, typ)
	}
	v := Value{Type: typ}
	switch typ {
	case "string", "[]byte":
		lit, ok := arg.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return Value{}, fmt.Errorf("%q: want a string literal", line)
		}
		v.Str, err = strconv.Unquote(lit.Value)
		return v, err
	case "bool":
		id, ok := arg.(*ast.Ident)
		if !ok || id.Name != "true" && id.Name != "false" {
			return Value{}, fmt.Errorf("%q: want true or false", line)
		}
		if id.Name == "true" {
			v.Bits = 1
		}
		return v, nil
	}
	text := exprString(arg)
	if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.CHAR {
		r, _, _, err := strconv.UnquoteChar(lit.Value[1:len(lit.Value)-1], '\'')
		if err != nil {
			return Value{}, err
		}
		v.Bits = int64(r)
		return v, nil
	}
	switch typ {
	case "float32", "float64":
		size := 64
		if typ == "float32" {
			size = 32
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(text, " ", ""), size)
		if err != nil {
			return Value{}, err
		}
		if typ == "float32" {
			v.Bits = int64(math.Float32bits(float32(f)))
		} else {
			v.Bits = int64(math.Float64bits(f))
		}
		return v, nil
	}
	text = strings.ReplaceAll(text, " ", "")
	if isUnsigned(typ) {
		u, err := strconv.ParseUint(text, 0, bitsOf(typ))
		v.Bits = int64(u)
		return v, err
	}
	x, err := strconv.ParseInt(text, 0, bitsOf(typ))
	v.Bits = x
	return v, err
}

func exprString(e ast.Expr) string {
	var b strings.Builder
	var walk func(ast.Expr)
	walk = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.Ident:
			b.WriteString(e.Name)
		case *ast.SelectorExpr:
			walk(e.X)
			b.WriteString("." + e.Sel.Name)
		case *ast.ArrayType:
			b.WriteString("[]")
			walk(e.Elt)
		case *ast.BasicLit:
			b.WriteString(e.Value)
		case *ast.UnaryExpr:
			b.WriteString(e.Op.String())
			walk(e.X)
		case *ast.ParenExpr:
			walk(e.X)
		default:
			b.WriteString("?")
		}
	}
	walk(e)
	return b.String()
}

// The exchange with the runtime (package faultlinein): one argument a line,
// "index type literal", a number as its trace encoding, a string quoted.

// encodeInputs writes the arguments to substitute, by parameter index.
func encodeInputs(vals map[int]Value) []byte {
	var b bytes.Buffer
	for _, i := range slices.Sorted(maps.Keys(vals)) {
		v := vals[i]
		switch v.Type {
		case "string", "[]byte":
			fmt.Fprintf(&b, "%d %s %s\n", i, v.Type, strconv.Quote(v.Str))
		default:
			fmt.Fprintf(&b, "%d %s %d\n", i, v.Type, v.Bits)
		}
	}
	return b.Bytes()
}

// decodeInputs reads what the runtime dumped: the arguments a run entered
// the fuzz function with, by parameter index.
func decodeInputs(data []byte) (map[int]Value, error) {
	out := map[int]Value{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("bad argument line %q", line)
		}
		i, err := strconv.Atoi(parts[0])
		if err != nil {
			return nil, fmt.Errorf("bad argument line %q", line)
		}
		if _, seen := out[i]; seen {
			continue // the function ran again: its first entry counts
		}
		v := Value{Type: parts[1]}
		switch v.Type {
		case "string", "[]byte":
			v.Str, err = strconv.Unquote(parts[2])
		default:
			v.Bits, err = strconv.ParseInt(parts[2], 10, 64)
		}
		if err != nil {
			return nil, fmt.Errorf("bad argument line %q: %w", line, err)
		}
		out[i] = v
	}
	return out, nil
}
