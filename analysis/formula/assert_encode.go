//go:build cgo

package formula

import (
	"go/token"
	"math"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// assertOperand replays one recorded operand of an assertion; the last
// one adds the check: the assertion holds.
func (e *encoder) assertOperand(a *activation, s *instrument.Site, ev instrument.Event, first bool) error {
	as := s.Assertion
	term := e.checked(s.Typ, e.sym(a, s, s.Expr, &ev), ev, false)
	if term.hasTerm() {
		if err := term.t.Err(); err != nil {
			return err
		}
	}
	a.leaves = map[int32]sv{}
	if a.operands == nil {
		a.operands = map[*instrument.Assertion][]sv{}
	}
	ops := a.operands[as]
	if ops == nil {
		ops = make([]sv, len(as.Operands))
		for i, o := range as.Operands {
			if tv := s.Info.Types[o]; tv.Value != nil {
				ops[i] = e.constValue(tv.Value, as.Types[i])
			}
		}
	}
	ops[s.Index] = term
	a.operands[as] = ops
	if s.Id != as.Last {
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
		values := make([]instrument.Value, len(ops))
		known := true
		for i, o := range ops {
			values[i], known = o.c, known && o.known
		}
		if known && !assertionHolds(as, values) {
			e.Failing++
		}
	}
	return e.addSpec(holds, first, instrument.InstKey{})
}

// assertionTerm is the formula of an assertion on its operands.
func (e *encoder) assertionTerm(as *instrument.Assertion, ops []sv) z3.Bool {
	holds := e.checkTerm(as, ops)
	if as.Not {
		return holds.Not()
	}
	return holds
}

// comparisonChecks are the check kinds that compare their two operands,
// by the operator that holds when the check passes.
var comparisonChecks = map[string]token.Token{
	"Equal":          token.EQL,
	"Greater":        token.GTR,
	"GreaterOrEqual": token.GEQ,
	"Less":           token.LSS,
	"LessOrEqual":    token.LEQ,
}

// checkTerm is the formula of an assertion's check kind, not negated.
func (e *encoder) checkTerm(as *instrument.Assertion, ops []sv) z3.Bool {
	t := as.Types[0]
	zero := e.lit(t, instrument.Value{})
	rel := func(op token.Token, x, y sv) z3.Bool { return e.binary(op, x, y, t, t).t.AsBool() }
	if op, ok := comparisonChecks[as.Kind]; ok {
		return rel(op, ops[0], ops[1])
	}
	switch as.Kind {
	case "True":
		return ops[0].t.AsBool()
	case "Empty":
		if instrument.IsList(t) {
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
		if instrument.IsList(t) {
			return e.listContains(ops[0], ops[1], t)
		}
		return ops[0].t.AsSeq().Contains(ops[1].t.AsSeq())
	case "Len":
		n := ops[1].t.AsBV()
		if n.Bits() < 64 {
			n = n.Convert(64, true)
		}
		if instrument.IsList(t) {
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
func assertionHolds(as *instrument.Assertion, v []instrument.Value) bool {
	return checkHolds(as, v) != as.Not
}

// checkHolds evaluates an assertion's check kind, not negated.
func checkHolds(as *instrument.Assertion, v []instrument.Value) bool {
	t := as.Types[0]
	rel := func(op token.Token, x, y instrument.Value) bool {
		r, ok := instrument.ConcBinary(op, x, y, t, t)
		return !ok || r.N != 0
	}
	zero := instrument.Value{}
	if op, ok := comparisonChecks[as.Kind]; ok {
		return rel(op, v[0], v[1])
	}
	switch as.Kind {
	case "True":
		return v[0].N != 0
	case "Zero", "Empty":
		return rel(token.EQL, v[0], zero)
	case "Positive":
		return rel(token.GTR, v[0], zero)
	case "Negative":
		return rel(token.LSS, v[0], zero)
	case "InDelta":
		ex, ac, d := math.Float64frombits(uint64(v[0].N)), math.Float64frombits(uint64(v[1].N)), math.Float64frombits(uint64(v[2].N))
		if math.IsNaN(ex) || math.IsNaN(ac) {
			return math.IsNaN(ex) && math.IsNaN(ac)
		}
		return !(ex-ac < -d || ex-ac > d)
	case "Nil":
		return v[0].N == 0
	case "ErrorIs":
		return v[0].N == v[1].N
	case "Contains":
		if instrument.IsList(t) {
			return slices.Contains(instrument.ListItems(v[0], instrument.ListElem(t)), v[1])
		}
		return strings.Contains(v[0].S, v[1].S)
	case "Len":
		if instrument.IsList(t) {
			return instrument.ListLen(v[0], instrument.ListElem(t)) == v[1].N
		}
		return int64(len(v[0].S)) == v[1].N
	}
	return true
}
