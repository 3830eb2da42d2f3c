package replace

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/analysis/instrument"
)

// payload is a value as the runtime writes it for a value site (see
// faultlineagx.encode), parsed: kind is its first letter ('[' a slice or
// array, '{' a struct, 'm' a map, '&' a pointer), text a scalar's text.
type payload struct {
	kind  byte
	text  string
	elems []payload // elements, fields, map values, or the pointee
	keys  []payload // map keys
}

var errPayload = errors.New("malformed value")

func parsePayload(p string) (payload, error) {
	v, rest, err := parsePayloadPrefix(p, 0)
	if err == nil && rest != "" {
		err = errPayload
	}
	return v, err
}

func parsePayloadPrefix(p string, depth int) (payload, string, error) {
	if p == "" || depth > 32 {
		return payload{}, "", errPayload
	}
	switch k := p[0]; k {
	case 'n', 'z', 't', 'f', '?':
		return payload{kind: k}, p[1:], nil
	case 'i', 'u', 'd':
		n := scalarLen(p[1:])
		return payload{kind: k, text: p[1 : 1+n]}, p[1+n:], nil
	case 'c':
		n := scalarLen(p[1:])
		if !strings.HasPrefix(p[1+n:], ":") {
			return payload{}, "", errPayload
		}
		m := scalarLen(p[2+n:])
		return payload{kind: k, text: p[1 : 2+n+m]}, p[2+n+m:], nil
	case 's', 'e':
		q, err := strconv.QuotedPrefix(p[1:])
		if err != nil {
			return payload{}, "", errPayload
		}
		return payload{kind: k, text: q}, p[1+len(q):], nil
	case 'y':
		name, rest, ok := strings.Cut(p[1:], ":")
		if !ok {
			return payload{}, "", errPayload
		}
		inner, rest, err := parsePayloadPrefix(rest, depth+1)
		return payload{kind: k, text: name, elems: []payload{inner}}, rest, err
	case '&':
		inner, rest, err := parsePayloadPrefix(p[1:], depth+1)
		return payload{kind: k, elems: []payload{inner}}, rest, err
	case '[', '{':
		end := map[byte]string{'[': "]", '{': "}"}[k]
		v := payload{kind: k}
		rest := p[1:]
		for !strings.HasPrefix(rest, end) {
			if len(v.elems) > 0 {
				if !strings.HasPrefix(rest, ",") {
					return payload{}, "", errPayload
				}
				rest = rest[1:]
			}
			e, r, err := parsePayloadPrefix(rest, depth+1)
			if err != nil {
				return payload{}, "", err
			}
			v.elems, rest = append(v.elems, e), r
		}
		return v, rest[1:], nil
	case 'm':
		if !strings.HasPrefix(p, "m[") {
			return payload{}, "", errPayload
		}
		v := payload{kind: k}
		rest := p[2:]
		for !strings.HasPrefix(rest, "]") {
			if len(v.elems) > 0 {
				if !strings.HasPrefix(rest, ",") {
					return payload{}, "", errPayload
				}
				rest = rest[1:]
			}
			key, r, err := parsePayloadPrefix(rest, depth+1)
			if err != nil || !strings.HasPrefix(r, ":") {
				return payload{}, "", errPayload
			}
			e, r, err := parsePayloadPrefix(r[1:], depth+1)
			if err != nil {
				return payload{}, "", err
			}
			v.keys, v.elems, rest = append(v.keys, key), append(v.elems, e), r
		}
		return v, rest[1:], nil
	}
	return payload{}, "", errPayload
}

func scalarLen(p string) int {
	if i := strings.IndexAny(p, ",]}:"); i >= 0 {
		return i
	}
	return len(p)
}

// maxRendered bounds a rendered value.
const maxRendered = 120

// renderPayload writes a value site's value as Go would spell it where the
// site is: a literal of the site's type, nil, errors.New("...").
func renderPayload(s *instrument.Site, p string) string {
	v, err := parsePayload(p)
	if err != nil {
		return "?"
	}
	q := types.RelativeTo(s.Pkg)
	var b strings.Builder
	renderTo(&b, v, s.Typ, q)
	if r := []rune(b.String()); len(r) > maxRendered {
		return string(r[:maxRendered-1]) + "…"
	}
	return b.String()
}

func renderTo(b *strings.Builder, v payload, t types.Type, q types.Qualifier) {
	if b.Len() > 4*maxRendered {
		return
	}
	var u types.Type
	if t != nil {
		u = t.Underlying()
	}
	switch v.kind {
	case 'n':
		b.WriteString("nil")
	case 'z':
		b.WriteString(zeroText(t, q))
	case 't':
		b.WriteString("true")
	case 'f':
		b.WriteString("false")
	case 'i', 'u':
		b.WriteString(v.text)
	case 'd':
		if bits, err := strconv.ParseUint(v.text, 16, 64); err == nil {
			b.WriteString(strconv.FormatFloat(math.Float64frombits(bits), 'g', -1, 64))
		}
	case 'c':
		re, im, _ := strings.Cut(v.text, ":")
		r, _ := strconv.ParseUint(re, 16, 64)
		i, _ := strconv.ParseUint(im, 16, 64)
		b.WriteString(strconv.FormatComplex(complex(math.Float64frombits(r), math.Float64frombits(i)), 'g', -1, 128))
	case 's':
		b.WriteString(v.text)
	case 'e':
		b.WriteString("errors.New(" + v.text + ")")
	case 'y':
		if v.text == "int" || v.text == "string" || v.text == "float64" || v.text == "bool" || v.text == "complex128" {
			renderTo(b, v.elems[0], nil, q)
		} else {
			b.WriteString(v.text + "(")
			renderTo(b, v.elems[0], nil, q)
			b.WriteString(")")
		}
	case '&':
		b.WriteString("&")
		var elem types.Type
		if p, ok := u.(*types.Pointer); ok {
			elem = p.Elem()
		}
		renderTo(b, v.elems[0], elem, q)
	case '[':
		var elem types.Type
		switch u := u.(type) {
		case *types.Slice:
			elem = u.Elem()
			if instrument.IsByte(elem) && allBytes(v.elems) {
				b.WriteString(types.TypeString(t, q) + "(" + strconv.Quote(bytesOf(v.elems)) + ")")
				return
			}
		case *types.Array:
			elem = u.Elem()
		}
		b.WriteString(typeText(t, q) + "{")
		for i, e := range v.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			renderTo(b, e, elem, q)
		}
		b.WriteString("}")
	case '{':
		st, _ := u.(*types.Struct)
		b.WriteString(typeText(t, q) + "{")
		first := true
		for i, e := range v.elems {
			if e.zero() {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			var ft types.Type
			if st != nil && i < st.NumFields() {
				ft = st.Field(i).Type()
				b.WriteString(st.Field(i).Name() + ": ")
			}
			renderTo(b, e, ft, q)
		}
		b.WriteString("}")
	case 'm':
		var kt, et types.Type
		if m, ok := u.(*types.Map); ok {
			kt, et = m.Key(), m.Elem()
		}
		b.WriteString(typeText(t, q) + "{")
		for i := range v.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			renderTo(b, v.keys[i], kt, q)
			b.WriteString(": ")
			renderTo(b, v.elems[i], et, q)
		}
		b.WriteString("}")
	default:
		b.WriteString("?")
	}
}

// zero reports whether v is a zero value, left out of a struct literal.
func (v payload) zero() bool {
	switch v.kind {
	case 'n', 'z', 'f':
		return true
	case 'i', 'u':
		return v.text == "0"
	case 'd':
		return v.text == "0"
	case 's':
		return v.text == `""`
	}
	return false
}

func typeText(t types.Type, q types.Qualifier) string {
	if t == nil {
		return ""
	}
	return types.TypeString(t, q)
}

// zeroText is the zero value of t written in Go.
func zeroText(t types.Type, q types.Qualifier) string {
	if t == nil {
		return "zero value"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return `""`
		case u.Info()&types.IsBoolean != 0:
			return "false"
		case u.Info()&types.IsNumeric != 0:
			return "0"
		}
	case *types.Struct, *types.Array:
		return types.TypeString(t, q) + "{}"
	}
	return "nil"
}

func allBytes(elems []payload) bool {
	for _, e := range elems {
		if e.kind != 'u' {
			return false
		}
	}
	return true
}

func bytesOf(elems []payload) string {
	out := make([]byte, len(elems))
	for i, e := range elems {
		n, _ := strconv.ParseUint(e.text, 10, 8)
		out[i] = byte(n)
	}
	return string(out)
}

// neighbours are the simple values tried at a value site beside those of
// passing runs: the empty string, nil, an empty slice or map, the zero
// value, an integer's neighbours, a Boolean's opposite.
func neighbours(t types.Type, was string) []string {
	var out []string
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			out = []string{`s""`}
		case u.Info()&types.IsBoolean != 0:
			out = []string{"t", "f"}
		case u.Info()&types.IsInteger != 0:
			for _, by := range []int64{1, -1} {
				if v, ok := movedPayload(was, by); ok {
					out = append(out, v)
				}
			}
			out = append(out, string(v0(was))+"0")
		case u.Info()&types.IsNumeric != 0:
			out = []string{"z"}
		}
	case *types.Slice:
		out = []string{"n", "[]"}
	case *types.Map:
		out = []string{"n", "m[]"}
	case *types.Pointer, *types.Interface:
		out = []string{"n"}
	case *types.Struct, *types.Array:
		if v, err := parsePayload(was); err != nil || !v.allZero() {
			out = []string{"z"}
		}
	}
	return out
}

// movedPayload is an integer value's text moved by by, false when it is
// not an integer's or would go below an unsigned zero.
func movedPayload(was string, by int64) (string, bool) {
	v, err := parsePayload(was)
	if err != nil || v.kind != 'i' && v.kind != 'u' {
		return "", false
	}
	n, _ := strconv.ParseInt(v.text, 10, 64)
	if v.kind == 'u' && n+by < 0 {
		return "", false
	}
	return fmt.Sprintf("%c%d", v.kind, n+by), true
}

// v0 is the kind of an integer value's text, 'i' when unknown.
func v0(was string) byte {
	if strings.HasPrefix(was, "u") {
		return 'u'
	}
	return 'i'
}

// allZero reports whether v is a zero value all through.
func (v payload) allZero() bool {
	switch v.kind {
	case '[', '{':
		for _, e := range v.elems {
			if !e.allZero() {
				return false
			}
		}
		return v.kind == '{' || len(v.elems) > 0
	}
	return v.zero()
}

// negatedOps are the comparisons whose negation is another comparison; the
// orderings only where operands cannot be NaN (see negation).
var negatedOps = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.LSS: token.GEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR}

// negation is the edit that negates a condition: a comparison with its
// operator reversed (err == nil for err != nil), !(cond) otherwise.
func negation(s *instrument.Site) string {
	b, ok := s.Expr.(*ast.BinaryExpr)
	if !ok || s.Info == nil {
		return "!(" + s.Text + ")"
	}
	op, ok := negatedOps[b.Op]
	if ordering := b.Op != token.EQL && b.Op != token.NEQ; ok && ordering {
		// !(x < y) is x >= y for integers and strings, not for NaN.
		var basic *types.Basic
		if t := s.Info.TypeOf(b.X); t != nil {
			basic, _ = t.Underlying().(*types.Basic)
		}
		ok = basic != nil && basic.Info()&(types.IsInteger|types.IsString) != 0
	}
	at := int(b.OpPos - b.Pos())
	if !ok || at < 0 || at+len(b.Op.String()) > len(s.Text) || s.Text[at:at+len(b.Op.String())] != b.Op.String() {
		return "!(" + s.Text + ")"
	}
	return s.Text[:at] + op.String() + s.Text[at+len(b.Op.String()):]
}
