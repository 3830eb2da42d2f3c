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
type Value struct {
	N      int64
	S      string
	Opaque bool
}

// valueOf is the value an event recorded.
func ValueOf(ev Event) Value { return Value{N: ev.Value, S: ev.Str, Opaque: ev.Opaque} }

// boolValue encodes a Boolean.
func BoolValue(b bool) Value {
	if b {
		return Value{N: 1}
	}
	return Value{}
}

// sameValue reports whether two values of type t are the same Go value as
// the run would observe it: NaNs of any payload are alike.
func SameValue(t types.Type, a, b Value) bool {
	if a == b {
		return true
	}
	if ValueKind(t) == 'f' {
		x, y := FloatOf(t, a), FloatOf(t, b)
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return false
}

// floatOf decodes a float value of type t.
func FloatOf(t types.Type, v Value) float64 {
	if IsFloat32(t) {
		return float64(math.Float32frombits(uint32(v.N)))
	}
	return math.Float64frombits(uint64(v.N))
}

// floatValue encodes f, rounded to type t.
func FloatValue(t types.Type, f float64) Value {
	if IsFloat32(t) {
		return Value{N: int64(math.Float32bits(float32(f)))}
	}
	return Value{N: int64(math.Float64bits(f))}
}

// normalize brings an integer to the trace's encoding for type t: its
// width's bits, extended by the type's signedness.
func Normalize(t types.Type, n int64) int64 {
	w, signed := Bits(t)
	if w >= 64 {
		return n
	}
	if signed {
		return n << (64 - w) >> (64 - w)
	}
	return int64(uint64(n) & (1<<w - 1))
}

// constantValue is a typed constant in the trace's encoding.
func ConstantValue(v constant.Value, t types.Type) (Value, bool) {
	switch ValueKind(t) {
	case 's', 'y':
		if v.Kind() != constant.String {
			return Value{}, false
		}
		return Value{S: constant.StringVal(v)}, true
	case 'b':
		return BoolValue(constant.BoolVal(v)), true
	case 'f':
		return Value{N: FloatBits(v, t)}, true
	}
	if i, ok := constant.Int64Val(constant.ToInt(v)); ok {
		return Value{N: Normalize(t, i)}, true
	}
	if u, ok := constant.Uint64Val(constant.ToInt(v)); ok {
		return Value{N: int64(u)}, true
	}
	return Value{}, false
}

// concBinary is Go's binary operator on values of the operand types lt and
// rt (they differ for shifts only), with the result in the trace's
// encoding; ok is false for what it does not evaluate (division by zero
// panics).
func ConcBinary(op token.Token, x, y Value, lt, rt types.Type) (Value, bool) {
	if x.Opaque || y.Opaque {
		return Value{}, false
	}
	switch ValueKind(lt) {
	case 'e': // codes (errors_is.go)
		switch op {
		case token.EQL:
			return BoolValue(x.N == y.N), true
		case token.NEQ:
			return BoolValue(x.N != y.N), true
		}
		return Value{}, false
	case 'b':
		a, b := x.N != 0, y.N != 0
		switch op {
		case token.EQL:
			return BoolValue(a == b), true
		case token.NEQ:
			return BoolValue(a != b), true
		case token.LAND:
			return BoolValue(a && b), true
		case token.LOR:
			return BoolValue(a || b), true
		}
		return Value{}, false
	case 'r':
		if op != token.EQL && op != token.NEQ {
			return Value{}, false
		}
		// The zero value may be written as no bytes at all.
		zero := RecordOf(make([]Value, len(RecordFields(lt))))
		if x.S == "" {
			x = zero
		}
		if y.S == "" {
			y = zero
		}
		return compare(op, x.S, y.S)
	case 'l', 'm':
		// As reflect.DeepEqual compares: two empty lists differ by
		// nil-ness, which the trace does not record.
		if (op != token.EQL && op != token.NEQ) || x.S == "" && y.S == "" {
			return Value{}, false
		}
		return compare(op, x.S, y.S)
	case 's', 'y':
		a, b := x.S, y.S
		if op == token.ADD {
			return Value{S: a + b}, true
		}
		return compare(op, a, b)
	}
	if (ValueKind(lt) == 'f' || ValueKind(rt) == 'f') && op != token.SHL && op != token.SHR {
		t := lt
		if ValueKind(lt) != 'f' {
			t = rt
			x, _ = ConcConvert(x, lt, rt)
		} else if ValueKind(rt) != 'f' {
			y, _ = ConcConvert(y, rt, lt)
		}
		return concFloat(op, FloatOf(t, x), FloatOf(t, y), t)
	}
	t := lt
	if IsUntypedNumber(lt) && !IsUntypedNumber(rt) && op != token.SHL && op != token.SHR {
		t = rt
	}
	w, signed := Bits(t)
	a, b := Normalize(t, x.N), y.N
	if op != token.SHL && op != token.SHR {
		b = Normalize(t, b)
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
			return Value{}, false
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
		cw, csigned := Bits(rt)
		if IsUntypedNumber(rt) {
			cw, csigned = 64, true
		}
		count := uint64(Normalize(rt, b))
		if csigned && int64(count) < 0 {
			return Value{}, false
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
		return BoolValue(a == b), true
	case token.NEQ:
		return BoolValue(a != b), true
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		var less, eq bool
		if signed {
			less, eq = a < b, a == b
		} else {
			less, eq = ua < ub, a == b
		}
		switch op {
		case token.LSS:
			return BoolValue(less), true
		case token.LEQ:
			return BoolValue(less || eq), true
		case token.GTR:
			return BoolValue(!less && !eq), true
		}
		return BoolValue(!less), true
	default:
		return Value{}, false
	}
	return Value{N: Normalize(t, r)}, true
}

// concFloat is Go's operator on floats of type t, each operation rounded
// to t.
func concFloat(op token.Token, a, b float64, t types.Type) (Value, bool) {
	if IsFloat32(t) {
		x, y := float32(a), float32(b)
		switch op {
		case token.ADD:
			return FloatValue(t, float64(x+y)), true
		case token.SUB:
			return FloatValue(t, float64(x-y)), true
		case token.MUL:
			return FloatValue(t, float64(x*y)), true
		case token.QUO:
			return FloatValue(t, float64(x/y)), true
		}
	} else {
		switch op {
		case token.ADD:
			return FloatValue(t, a+b), true
		case token.SUB:
			return FloatValue(t, a-b), true
		case token.MUL:
			return FloatValue(t, a*b), true
		case token.QUO:
			return FloatValue(t, a/b), true
		}
	}
	return compare(op, a, b)
}

// compare is a Go comparison of strings or floats (false on NaN).
func compare[T cmp.Ordered](op token.Token, a, b T) (Value, bool) {
	switch op {
	case token.EQL:
		return BoolValue(a == b), true
	case token.NEQ:
		return BoolValue(a != b), true
	case token.LSS:
		return BoolValue(a < b), true
	case token.LEQ:
		return BoolValue(a <= b), true
	case token.GTR:
		return BoolValue(a > b), true
	case token.GEQ:
		return BoolValue(a >= b), true
	}
	return Value{}, false
}

// concUnary is Go's unary operator on a value of type t.
func ConcUnary(op token.Token, x Value, t types.Type) (Value, bool) {
	switch op {
	case token.ADD:
		return x, true
	case token.NOT:
		return BoolValue(x.N == 0), true
	case token.SUB:
		if ValueKind(t) == 'f' {
			return FloatValue(t, -FloatOf(t, x)), true
		}
		return Value{N: Normalize(t, -x.N)}, true
	case token.XOR:
		return Value{N: Normalize(t, ^x.N)}, true
	}
	return Value{}, false
}

// concConvert is Go's conversion of a value of type from to type to:
// between integer and float types, and between strings, byte slices and
// integers (an integer converts to the UTF-8 encoding of the rune).
func ConcConvert(x Value, from, to types.Type) (Value, bool) {
	fk, tk := ValueKind(from), ValueKind(to)
	if x.Opaque {
		return Value{}, false
	}
	switch {
	case (fk == 's' || fk == 'y') && (tk == 's' || tk == 'y'):
		return x, true
	case fk == 'i' && tk == 's':
		r := x.N
		if _, signed := Bits(from); !signed && r < 0 {
			return Value{S: string(utf8.RuneError)}, true
		}
		if r < 0 || r > math.MaxInt32 {
			return Value{S: string(utf8.RuneError)}, true
		}
		return Value{S: string(rune(r))}, true
	case fk == 'f' && tk == 'f':
		return FloatValue(to, FloatOf(from, x)), true
	case fk == 'i' && tk == 'f':
		if _, signed := Bits(from); signed || IsUntypedNumber(from) {
			return FloatValue(to, float64(x.N)), true
		}
		return FloatValue(to, float64(uint64(x.N))), true
	case fk == 'f' && tk == 'i':
		return Value{N: floatToIntValue(FloatOf(from, x), to)}, true
	case fk == 'i' && tk == 'i':
		return Value{N: Normalize(to, x.N)}, true
	}
	return Value{}, false
}

// floatToIntValue is Go's float-to-integer conversion as the formula
// models it: truncation toward zero, and out of range (NaN included) the
// integer with only the sign bit set, as on amd64.
func floatToIntValue(f float64, to types.Type) int64 {
	w, signed := Bits(to)
	t := math.Trunc(f)
	var lo, hi float64
	if signed {
		lo, hi = -math.Ldexp(1, int(w)-1), math.Ldexp(1, int(w)-1)
	} else {
		lo, hi = 0, math.Ldexp(1, int(w))
	}
	if math.IsNaN(f) || t < lo || t >= hi {
		return Normalize(to, int64(uint64(1)<<(w-1)))
	}
	if !signed && t >= math.Ldexp(1, 63) {
		return int64(uint64(t))
	}
	return Normalize(to, int64(t))
}

// renderValue prints a value of type t as Go would write it.
func RenderValue(t types.Type, v Value) string {
	switch ValueKind(t) {
	case 's':
		if v.Opaque {
			return "(" + strconv.FormatInt(v.N, 10) + " bytes)"
		}
		return strconv.Quote(v.S)
	case 'y':
		if v.Opaque {
			return "(" + strconv.FormatInt(v.N, 10) + " bytes)"
		}
		return "[]byte(" + strconv.Quote(v.S) + ")"
	case 'l':
		return renderList(t, v)
	case 'r':
		return renderRecord(t, v)
	case 'm':
		return renderMap(t, v)
	case 'b':
		return strconv.FormatBool(v.N != 0)
	case 'e':
		if v.N == 0 {
			return "nil"
		}
		return "non-nil error"
	case 'f':
		if IsFloat32(t) {
			return strconv.FormatFloat(float64(math.Float32frombits(uint32(v.N))), 'g', -1, 32)
		}
		return strconv.FormatFloat(math.Float64frombits(uint64(v.N)), 'g', -1, 64)
	}
	n, signed := Bits(t)
	if signed {
		return strconv.FormatInt(v.N, 10)
	}
	u := uint64(v.N)
	if n < 64 {
		u &= 1<<n - 1
	}
	return strconv.FormatUint(u, 10)
}

// floatBits is the IEEE encoding of a numeric constant in float type t,
// rounded to t's precision, as the trace records a float.
func FloatBits(v constant.Value, t types.Type) int64 {
	v = constant.ToFloat(v)
	if IsFloat32(t) {
		f, _ := constant.Float32Val(v)
		return int64(math.Float32bits(f))
	}
	f, _ := constant.Float64Val(v)
	return int64(math.Float64bits(f))
}

// render prints a recorded value as Go would.
func Render(s *Site, v int64) string {
	if IsAggregate(s.Typ) {
		return "(" + s.Typ.String() + ")" // its contents are not an integer
	}
	switch ValueKind(s.Typ) {
	case 'b':
		return strconv.FormatBool(v != 0)
	case 'e':
		return RenderValue(s.Typ, Value{N: v})
	case 'f':
		if IsFloat32(s.Typ) {
			return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32)
		}
		return strconv.FormatFloat(math.Float64frombits(uint64(v)), 'g', -1, 64)
	}
	n, signed := Bits(s.Typ)
	if signed {
		return strconv.FormatInt(v, 10)
	}
	u := uint64(v)
	if n < 64 {
		u &= 1<<n - 1
	}
	return strconv.FormatUint(u, 10)
}
