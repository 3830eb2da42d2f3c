package instrument

import (
	"cmp"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
	"unicode/utf8"
)

// value is a value in the trace's encoding: an integer as itself (an
// unsigned one as its bits, extended from its width with zeros, a signed
// one with its sign), a Boolean as 0 or 1, a float as its IEEE bits (n); a
// string or byte slice as its bytes (s), or, when it was too long to
// record, its length alone (n, with opaque set).
type value struct {
	n      int64
	s      string
	opaque bool
}

// valueOf is the value an event recorded.
func valueOf(ev event) value { return value{n: ev.value, s: ev.str, opaque: ev.opaque} }

// boolValue encodes a Boolean.
func boolValue(b bool) value {
	if b {
		return value{n: 1}
	}
	return value{}
}

// sameValue reports whether two values of type t are the same Go value as
// the run would observe it: NaNs of any payload are alike.
func sameValue(t types.Type, a, b value) bool {
	if a == b {
		return true
	}
	if valueKind(t) == 'f' {
		x, y := floatOf(t, a), floatOf(t, b)
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return false
}

// floatOf decodes a float value of type t.
func floatOf(t types.Type, v value) float64 {
	if isFloat32(t) {
		return float64(math.Float32frombits(uint32(v.n)))
	}
	return math.Float64frombits(uint64(v.n))
}

// floatValue encodes f, rounded to type t.
func floatValue(t types.Type, f float64) value {
	if isFloat32(t) {
		return value{n: int64(math.Float32bits(float32(f)))}
	}
	return value{n: int64(math.Float64bits(f))}
}

// normalize brings an integer to the trace's encoding for type t: its
// width's bits, extended by the type's signedness.
func normalize(t types.Type, n int64) int64 {
	w, signed := bits(t)
	if w >= 64 {
		return n
	}
	if signed {
		return n << (64 - w) >> (64 - w)
	}
	return int64(uint64(n) & (1<<w - 1))
}

// constantValue is a typed constant in the trace's encoding.
func constantValue(v constant.Value, t types.Type) (value, bool) {
	switch valueKind(t) {
	case 's', 'y':
		if v.Kind() != constant.String {
			return value{}, false
		}
		return value{s: constant.StringVal(v)}, true
	case 'b':
		return boolValue(constant.BoolVal(v)), true
	case 'f':
		return value{n: floatBits(v, t)}, true
	}
	if i, ok := constant.Int64Val(constant.ToInt(v)); ok {
		return value{n: normalize(t, i)}, true
	}
	if u, ok := constant.Uint64Val(constant.ToInt(v)); ok {
		return value{n: int64(u)}, true
	}
	return value{}, false
}

// concBinary is Go's binary operator on values of the operand types lt and
// rt (they differ for shifts only), with the result in the trace's
// encoding; ok is false for what it does not evaluate (division by zero
// panics).
func concBinary(op token.Token, x, y value, lt, rt types.Type) (value, bool) {
	if x.opaque || y.opaque {
		return value{}, false
	}
	switch valueKind(lt) {
	case 'e': // codes (errors_is.go)
		switch op {
		case token.EQL:
			return boolValue(x.n == y.n), true
		case token.NEQ:
			return boolValue(x.n != y.n), true
		}
		return value{}, false
	case 'b':
		a, b := x.n != 0, y.n != 0
		switch op {
		case token.EQL:
			return boolValue(a == b), true
		case token.NEQ:
			return boolValue(a != b), true
		case token.LAND:
			return boolValue(a && b), true
		case token.LOR:
			return boolValue(a || b), true
		}
		return value{}, false
	case 'r':
		if op != token.EQL && op != token.NEQ {
			return value{}, false
		}
		// The zero value may be written as no bytes at all.
		zero := recordOf(make([]value, len(recordFields(lt))))
		if x.s == "" {
			x = zero
		}
		if y.s == "" {
			y = zero
		}
		return compare(op, x.s, y.s)
	case 'l', 'm':
		// As reflect.DeepEqual compares: two empty lists differ by
		// nil-ness, which the trace does not record.
		if (op != token.EQL && op != token.NEQ) || x.s == "" && y.s == "" {
			return value{}, false
		}
		return compare(op, x.s, y.s)
	case 's', 'y':
		a, b := x.s, y.s
		if op == token.ADD {
			return value{s: a + b}, true
		}
		return compare(op, a, b)
	}
	if (valueKind(lt) == 'f' || valueKind(rt) == 'f') && op != token.SHL && op != token.SHR {
		t := lt
		if valueKind(lt) != 'f' {
			t = rt
			x, _ = concConvert(x, lt, rt)
		} else if valueKind(rt) != 'f' {
			y, _ = concConvert(y, rt, lt)
		}
		return concFloat(op, floatOf(t, x), floatOf(t, y), t)
	}
	t := lt
	if isUntypedNumber(lt) && !isUntypedNumber(rt) && op != token.SHL && op != token.SHR {
		t = rt
	}
	w, signed := bits(t)
	a, b := normalize(t, x.n), y.n
	if op != token.SHL && op != token.SHR {
		b = normalize(t, b)
	}
	ua, ub := uint64(a), uint64(b)
	var r int64
	switch op {
	case token.ADD:
		r = a + b
	case token.SUB:
		r = a - b
	case token.MUL:
		r = a * b
	case token.QUO, token.REM:
		if b == 0 {
			return value{}, false
		}
		switch {
		case signed && op == token.QUO:
			if b == -1 {
				r = -a // MinInt / -1 wraps
			} else {
				r = a / b
			}
		case signed:
			if b == -1 {
				r = 0
			} else {
				r = a % b
			}
		case op == token.QUO:
			r = int64(ua / ub)
		default:
			r = int64(ua % ub)
		}
	case token.AND:
		r = a & b
	case token.OR:
		r = a | b
	case token.XOR:
		r = a ^ b
	case token.AND_NOT:
		r = a &^ b
	case token.SHL, token.SHR:
		// The count: unsigned in its own type (a negative count panics).
		cw, csigned := bits(rt)
		if isUntypedNumber(rt) {
			cw, csigned = 64, true
		}
		count := uint64(normalize(rt, b))
		if csigned && int64(count) < 0 {
			return value{}, false
		}
		if cw < 64 {
			count &= 1<<cw - 1
		}
		switch {
		case op == token.SHL && count >= uint64(w):
			r = 0
		case op == token.SHL:
			r = a << count
		case count >= uint64(w) && signed && a < 0:
			r = -1
		case count >= uint64(w):
			r = 0
		case signed:
			r = a >> count
		default:
			r = int64(ua >> count)
		}
	case token.EQL:
		return boolValue(a == b), true
	case token.NEQ:
		return boolValue(a != b), true
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		var less, eq bool
		if signed {
			less, eq = a < b, a == b
		} else {
			less, eq = ua < ub, a == b
		}
		switch op {
		case token.LSS:
			return boolValue(less), true
		case token.LEQ:
			return boolValue(less || eq), true
		case token.GTR:
			return boolValue(!less && !eq), true
		}
		return boolValue(!less), true
	default:
		return value{}, false
	}
	return value{n: normalize(t, r)}, true
}

// concFloat is Go's operator on floats of type t, each operation rounded
// to t.
func concFloat(op token.Token, a, b float64, t types.Type) (value, bool) {
	if isFloat32(t) {
		x, y := float32(a), float32(b)
		switch op {
		case token.ADD:
			return floatValue(t, float64(x+y)), true
		case token.SUB:
			return floatValue(t, float64(x-y)), true
		case token.MUL:
			return floatValue(t, float64(x*y)), true
		case token.QUO:
			return floatValue(t, float64(x/y)), true
		}
	} else {
		switch op {
		case token.ADD:
			return floatValue(t, a+b), true
		case token.SUB:
			return floatValue(t, a-b), true
		case token.MUL:
			return floatValue(t, a*b), true
		case token.QUO:
			return floatValue(t, a/b), true
		}
	}
	return compare(op, a, b)
}

// compare is a Go comparison of strings or floats (false on NaN).
func compare[T cmp.Ordered](op token.Token, a, b T) (value, bool) {
	switch op {
	case token.EQL:
		return boolValue(a == b), true
	case token.NEQ:
		return boolValue(a != b), true
	case token.LSS:
		return boolValue(a < b), true
	case token.LEQ:
		return boolValue(a <= b), true
	case token.GTR:
		return boolValue(a > b), true
	case token.GEQ:
		return boolValue(a >= b), true
	}
	return value{}, false
}

// concUnary is Go's unary operator on a value of type t.
func concUnary(op token.Token, x value, t types.Type) (value, bool) {
	switch op {
	case token.ADD:
		return x, true
	case token.NOT:
		return boolValue(x.n == 0), true
	case token.SUB:
		if valueKind(t) == 'f' {
			return floatValue(t, -floatOf(t, x)), true
		}
		return value{n: normalize(t, -x.n)}, true
	case token.XOR:
		return value{n: normalize(t, ^x.n)}, true
	}
	return value{}, false
}

// concConvert is Go's conversion of a value of type from to type to:
// between integer and float types, and between strings, byte slices and
// integers (an integer converts to the UTF-8 encoding of the rune).
func concConvert(x value, from, to types.Type) (value, bool) {
	fk, tk := valueKind(from), valueKind(to)
	if x.opaque {
		return value{}, false
	}
	switch {
	case (fk == 's' || fk == 'y') && (tk == 's' || tk == 'y'):
		return x, true
	case fk == 'i' && tk == 's':
		r := x.n
		if _, signed := bits(from); !signed && r < 0 {
			return value{s: string(utf8.RuneError)}, true
		}
		if r < 0 || r > math.MaxInt32 {
			return value{s: string(utf8.RuneError)}, true
		}
		return value{s: string(rune(r))}, true
	case fk == 'f' && tk == 'f':
		return floatValue(to, floatOf(from, x)), true
	case fk == 'i' && tk == 'f':
		if _, signed := bits(from); signed || isUntypedNumber(from) {
			return floatValue(to, float64(x.n)), true
		}
		return floatValue(to, float64(uint64(x.n))), true
	case fk == 'f' && tk == 'i':
		return value{n: floatToIntValue(floatOf(from, x), to)}, true
	case fk == 'i' && tk == 'i':
		return value{n: normalize(to, x.n)}, true
	}
	return value{}, false
}

// floatToIntValue is Go's float-to-integer conversion as the formula
// models it: truncation toward zero, and out of range (NaN included) the
// integer with only the sign bit set, as on amd64.
func floatToIntValue(f float64, to types.Type) int64 {
	w, signed := bits(to)
	t := math.Trunc(f)
	var lo, hi float64
	if signed {
		lo, hi = -math.Ldexp(1, int(w)-1), math.Ldexp(1, int(w)-1)
	} else {
		lo, hi = 0, math.Ldexp(1, int(w))
	}
	if math.IsNaN(f) || t < lo || t >= hi {
		return normalize(to, int64(uint64(1)<<(w-1)))
	}
	if !signed && t >= math.Ldexp(1, 63) {
		return int64(uint64(t))
	}
	return normalize(to, int64(t))
}

// renderValue prints a value of type t as Go would write it.
func renderValue(t types.Type, v value) string {
	switch valueKind(t) {
	case 's':
		if v.opaque {
			return "(" + strconv.FormatInt(v.n, 10) + " bytes)"
		}
		return strconv.Quote(v.s)
	case 'y':
		if v.opaque {
			return "(" + strconv.FormatInt(v.n, 10) + " bytes)"
		}
		return "[]byte(" + strconv.Quote(v.s) + ")"
	case 'l':
		return renderList(t, v)
	case 'r':
		return renderRecord(t, v)
	case 'm':
		return renderMap(t, v)
	case 'b':
		return strconv.FormatBool(v.n != 0)
	case 'e':
		if v.n == 0 {
			return "nil"
		}
		return "non-nil error"
	case 'f':
		if isFloat32(t) {
			return strconv.FormatFloat(float64(math.Float32frombits(uint32(v.n))), 'g', -1, 32)
		}
		return strconv.FormatFloat(math.Float64frombits(uint64(v.n)), 'g', -1, 64)
	}
	n, signed := bits(t)
	if signed {
		return strconv.FormatInt(v.n, 10)
	}
	u := uint64(v.n)
	if n < 64 {
		u &= 1<<n - 1
	}
	return strconv.FormatUint(u, 10)
}

// floatBits is the IEEE encoding of a numeric constant in float type t,
// rounded to t's precision, as the trace records a float.
func floatBits(v constant.Value, t types.Type) int64 {
	v = constant.ToFloat(v)
	if isFloat32(t) {
		f, _ := constant.Float32Val(v)
		return int64(math.Float32bits(f))
	}
	f, _ := constant.Float64Val(v)
	return int64(math.Float64bits(f))
}
