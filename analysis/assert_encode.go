//go:build cgo

package analysis

import (
	"faultline/solver/z3"
	"go/constant"
	"go/token"
	"go/types"
	"math"
)

// assertOperand replays one recorded operand of an assertion; the last
// one adds the check: the assertion holds.
func (e *encoder) assertOperand(a *activation, s *site, ev event, first bool) error {
	as := s.assertion
	term := e.sym(a, s, s.expr, ev.value, true)
	if err := term.Err(); err != nil {
		return err
	}
	a.leaves = map[int32]z3.Expr{}
	if a.operands == nil {
		a.operands = map[*assertion][]operand{}
	}
	ops := a.operands[as]
	if ops == nil {
		ops = make([]operand, len(as.operands))
		for i, o := range as.operands {
			if tv := s.info.Types[o]; tv.Value != nil {
				ops[i] = operand{e.constValue(tv.Value, as.types[i]), constInt(tv.Value, as.types[i])}
			}
		}
	}
	ops[s.index] = operand{term, ev.value}
	a.operands[as] = ops
	if s.id != as.last {
		return nil
	}
	delete(a.operands, as)
	t := as.types[0]
	zero := e.constant(t, 0)
	rel := map[string]func(x, y z3.Expr) z3.Expr{
		"Equal":          func(x, y z3.Expr) z3.Expr { return e.binary(token.EQL, x, y, t, t) },
		"Exactly":        func(x, y z3.Expr) z3.Expr { return e.binary(token.EQL, x, y, t, t) },
		"NotEqual":       func(x, y z3.Expr) z3.Expr { return e.binary(token.NEQ, x, y, t, t) },
		"Greater":        func(x, y z3.Expr) z3.Expr { return e.binary(token.GTR, x, y, t, t) },
		"GreaterOrEqual": func(x, y z3.Expr) z3.Expr { return e.binary(token.GEQ, x, y, t, t) },
		"Less":           func(x, y z3.Expr) z3.Expr { return e.binary(token.LSS, x, y, t, t) },
		"LessOrEqual":    func(x, y z3.Expr) z3.Expr { return e.binary(token.LEQ, x, y, t, t) },
		"True":           func(x, _ z3.Expr) z3.Expr { return x },
		"False":          func(x, _ z3.Expr) z3.Expr { return x.AsBool().Not().Expr },
		"Zero":           func(x, _ z3.Expr) z3.Expr { return e.binary(token.EQL, x, zero, t, t) },
		"NotZero":        func(x, _ z3.Expr) z3.Expr { return e.binary(token.NEQ, x, zero, t, t) },
		"Positive":       func(x, _ z3.Expr) z3.Expr { return e.binary(token.GTR, x, zero, t, t) },
		"Negative":       func(x, _ z3.Expr) z3.Expr { return e.binary(token.LSS, x, zero, t, t) },
	}[as.name]
	second := zero
	if len(ops) > 1 {
		second = ops[1].term
	}
	var holds z3.Bool
	if as.name == "InDelta" {
		holds = e.inDelta(ops[0].term.AsFloat(), ops[1].term.AsFloat(), ops[2].term.AsFloat())
	} else {
		holds = rel(ops[0].term, second).AsBool()
	}
	if err := holds.Err(); err != nil {
		return err
	}
	if first {
		e.checks++
		values := make([]int64, 3)
		for i, o := range ops {
			values[i] = o.value
		}
		if !assertionHolds(as.name, t, values[0], values[1], values[2]) {
			e.failing++
		}
	}
	return e.addSpec(holds, first, instKey{})
}

// inDelta is testify's InDelta on float64 operands: both NaN, or neither
// and -delta <= expected - actual <= delta (false when delta is NaN).
func (e *encoder) inDelta(expected, actual, delta z3.Float) z3.Bool {
	dt := expected.Sub(actual)
	return e.z.Or(
		e.z.And(expected.IsNaN(), actual.IsNaN()),
		e.z.And(expected.IsNaN().Not(), actual.IsNaN().Not(), dt.LT(delta.Neg()).Not(), delta.LT(dt).Not()))
}

// operand is one replayed operand of an assertion: its term and the value
// the run had.
type operand struct {
	term  z3.Expr
	value int64
}

// constInt is a constant in the trace's encoding for type t.
func constInt(v constant.Value, t types.Type) int64 {
	if valueKind(t) == 'f' {
		return floatBits(v, t)
	}
	if v.Kind() == constant.Bool {
		if constant.BoolVal(v) {
			return 1
		}
		return 0
	}
	if i, ok := constant.Int64Val(v); ok {
		return i
	}
	u, _ := constant.Uint64Val(v)
	return int64(u)
}

// assertionHolds evaluates an assertion on the values a run had (recorded
// as int64: Booleans as 0 or 1, unsigned values and floats as their bits)
// with Go's operators, as testify does.
func assertionHolds(name string, t types.Type, x, y, delta int64) bool {
	_, signed := bits(t)
	eq := func(a, b int64) bool { return a == b }
	less := func(a, b int64) bool {
		if signed || valueKind(t) == 'b' {
			return a < b
		}
		return uint64(a) < uint64(b)
	}
	if valueKind(t) == 'f' {
		value := func(b int64) float64 {
			if isFloat32(t) {
				return float64(math.Float32frombits(uint32(b)))
			}
			return math.Float64frombits(uint64(b))
		}
		eq = func(a, b int64) bool { return value(a) == value(b) }
		less = func(a, b int64) bool { return value(a) < value(b) }
	}
	switch name {
	case "Equal", "Exactly":
		return eq(x, y)
	case "NotEqual":
		return !eq(x, y)
	case "Greater":
		return less(y, x)
	case "GreaterOrEqual":
		return less(y, x) || eq(x, y)
	case "Less":
		return less(x, y)
	case "LessOrEqual":
		return less(x, y) || eq(x, y)
	case "True":
		return x != 0
	case "False":
		return x == 0
	case "NotZero":
		return !eq(x, 0)
	case "Zero":
		return eq(x, 0)
	case "Positive":
		return less(0, x)
	case "Negative":
		return less(x, 0)
	case "InDelta":
		ex, ac, d := math.Float64frombits(uint64(x)), math.Float64frombits(uint64(y)), math.Float64frombits(uint64(delta))
		if math.IsNaN(ex) || math.IsNaN(ac) {
			return math.IsNaN(ex) && math.IsNaN(ac)
		}
		return !(ex-ac < -d || ex-ac > d)
	}
	return true
}
