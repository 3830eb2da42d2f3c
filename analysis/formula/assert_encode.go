//go:build cgo

package formula

import (
	"go/token"
	"math"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/solver/z3"
)

// assertOperand replays one recorded operand of an assertion; the last
// one adds the check: the assertion holds.
func (e *encoder) assertOperand(a *activation, s *site, ev event, first bool) error {
	as := s.assertion
	term := e.checked(s.typ, e.sym(a, s, s.expr, &ev), ev, false)
	if term.hasTerm() {
		if err := term.t.Err(); err != nil {
			return err
		}
	}
	a.leaves = map[int32]sv{}
	if a.operands == nil {
		a.operands = map[*assertion][]sv{}
	}
	ops := a.operands[as]
	if ops == nil {
		ops = make([]sv, len(as.operands))
		for i, o := range as.operands {
			if tv := s.info.Types[o]; tv.Value != nil {
				ops[i] = e.constValue(tv.Value, as.types[i])
			}
		}
	}
	ops[s.index] = term
	a.operands[as] = ops
	if s.id != as.last {
		return nil
	}
	delete(a.operands, as)
	for _, o := range ops {
		if !o.hasTerm() {
			return nil // an operand too long to record: no check
		}
	}
	holds := e.assertionTerm(as, ops)
	if err := holds.Err(); err != nil {
		return err
	}
	if first {
		e.checks++
		values := make([]value, len(ops))
		known := true
		for i, o := range ops {
			values[i], known = o.c, known && o.known
		}
		if known && !assertionHolds(as, values) {
			e.failing++
		}
	}
	return e.addSpec(holds, first, instKey{})
}

// assertionTerm is the formula of an assertion on its operands.
func (e *encoder) assertionTerm(as *assertion, ops []sv) z3.Bool {
	holds := e.checkTerm(as, ops)
	if as.not {
		return holds.Not()
	}
	return holds
}

// checkTerm is the formula of an assertion's check kind, not negated.
func (e *encoder) checkTerm(as *assertion, ops []sv) z3.Bool {
	t := as.types[0]
	zero := e.lit(t, value{})
	rel := func(op token.Token, x, y sv) z3.Bool { return e.binary(op, x, y, t, t).t.AsBool() }
	switch as.kind {
	case "Equal":
		return rel(token.EQL, ops[0], ops[1])
	case "Greater":
		return rel(token.GTR, ops[0], ops[1])
	case "GreaterOrEqual":
		return rel(token.GEQ, ops[0], ops[1])
	case "Less":
		return rel(token.LSS, ops[0], ops[1])
	case "LessOrEqual":
		return rel(token.LEQ, ops[0], ops[1])
	case "True":
		return ops[0].t.AsBool()
	case "Empty":
		if isList(t) {
			// Nil or empty alike: the length alone.
			return e.listLenTerm(ops[0].t, t).Eq(e.z.BVInt(0, 64))
		}
		return rel(token.EQL, ops[0], zero)
	case "Zero", "Nil":
		return rel(token.EQL, ops[0], zero)
	case "Positive":
		return rel(token.GTR, ops[0], zero)
	case "Negative":
		return rel(token.LSS, ops[0], zero)
	case "InDelta":
		return e.inDelta(ops[0].t.AsFloat(), ops[1].t.AsFloat(), ops[2].t.AsFloat())
	case "ErrorIs": // the target is a sentinel: its code (errors_is.go)
		return rel(token.EQL, ops[0], ops[1])
	case "Contains":
		if isList(t) {
			return e.listContains(ops[0], ops[1], t)
		}
		return ops[0].t.AsSeq().Contains(ops[1].t.AsSeq())
	case "Len":
		n := ops[1].t.AsBV()
		if n.Bits() < 64 {
			n = n.Convert(64, true)
		}
		if isList(t) {
			return e.listLenTerm(ops[0].t, t).Eq(n)
		}
		return e.seqLen(ops[0].t.AsSeq()).Eq(n)
	}
	return e.z.False()
}

// inDelta is testify's InDelta on float64 operands: both NaN, or neither
// and -delta <= expected - actual <= delta (false when delta is NaN).
func (e *encoder) inDelta(expected, actual, delta z3.Float) z3.Bool {
	dt := expected.Sub(actual)
	return e.z.Or(
		e.z.And(expected.IsNaN(), actual.IsNaN()),
		e.z.And(expected.IsNaN().Not(), actual.IsNaN().Not(), dt.LT(delta.Neg()).Not(), delta.LT(dt).Not()))
}

// assertionHolds evaluates an assertion on the values a run had, as
// its library does.
func assertionHolds(as *assertion, v []value) bool {
	return checkHolds(as, v) != as.not
}

// checkHolds evaluates an assertion's check kind, not negated.
func checkHolds(as *assertion, v []value) bool {
	t := as.types[0]
	rel := func(op token.Token, x, y value) bool {
		r, ok := concBinary(op, x, y, t, t)
		return !ok || r.n != 0
	}
	zero := value{}
	switch as.kind {
	case "Equal":
		return rel(token.EQL, v[0], v[1])
	case "Greater":
		return rel(token.GTR, v[0], v[1])
	case "GreaterOrEqual":
		return rel(token.GEQ, v[0], v[1])
	case "Less":
		return rel(token.LSS, v[0], v[1])
	case "LessOrEqual":
		return rel(token.LEQ, v[0], v[1])
	case "True":
		return v[0].n != 0
	case "Zero", "Empty":
		return rel(token.EQL, v[0], zero)
	case "Positive":
		return rel(token.GTR, v[0], zero)
	case "Negative":
		return rel(token.LSS, v[0], zero)
	case "InDelta":
		ex, ac, d := math.Float64frombits(uint64(v[0].n)), math.Float64frombits(uint64(v[1].n)), math.Float64frombits(uint64(v[2].n))
		if math.IsNaN(ex) || math.IsNaN(ac) {
			return math.IsNaN(ex) && math.IsNaN(ac)
		}
		return !(ex-ac < -d || ex-ac > d)
	case "Nil":
		return v[0].n == 0
	case "ErrorIs":
		return v[0].n == v[1].n
	case "Contains":
		if isList(t) {
			return slices.Contains(listItems(v[0], listElem(t)), v[1])
		}
		return strings.Contains(v[0].s, v[1].s)
	case "Len":
		if isList(t) {
			return listLen(v[0], listElem(t)) == v[1].n
		}
		return int64(len(v[0].s)) == v[1].n
	}
	return true
}
