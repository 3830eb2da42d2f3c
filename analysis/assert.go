//go:build cgo

package analysis

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"

	"faultline/solver/z3"
)

// Import paths of the assertion libraries whose checks the formula reads.
const (
	testifyAssert  = "github.com/stretchr/testify/assert"
	testifyRequire = "github.com/stretchr/testify/require"
	goCmp          = "github.com/google/go-cmp/cmp"
)

// assertion is a testify assertion call of test code whose operands the
// formula models. A failing one reports through t.Errorf or t.FailNow
// inside testify, which is not instrumented: the call itself is the check.
type assertion struct {
	name     string       // Equal, True, Less, ...
	operands []ast.Expr   // the checked values, in argument order
	types    []types.Type // their types, untyped constants defaulted
	last     int32        // site of the last recorded operand: its event completes the check
}

// testifyCall recognises a call of a testify assertion (package assert or
// require, function or *Assertions method) on integer, float or Boolean
// operands of one type, and returns its name and operands. testify
// compares floats with Go's operators (Equal through reflect.DeepEqual).
func testifyCall(info *types.Info, call *ast.CallExpr) (string, []ast.Expr, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", nil, false
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || (fn.Pkg().Path() != testifyAssert && fn.Pkg().Path() != testifyRequire) {
		return "", nil, false
	}
	first := 1 // the TestingT
	if fn.Type().(*types.Signature).Recv() != nil {
		first = 0
	}
	var n int
	var want byte // 'n' integer or float, 'b' Boolean, 0 any
	switch fn.Name() {
	case "Equal", "NotEqual", "Exactly":
		n = 2
	case "Greater", "GreaterOrEqual", "Less", "LessOrEqual":
		n, want = 2, 'n'
	case "True", "False":
		n, want = 1, 'b'
	case "Zero", "NotZero":
		n = 1
	case "Positive", "Negative":
		n, want = 1, 'n'
	case "InDelta":
		n, want = 3, 'f' // expected, actual, delta: all float64
	default:
		return "", nil, false
	}
	if len(call.Args) < first+n || (call.Ellipsis.IsValid() && len(call.Args) == first+n) {
		return "", nil, false
	}
	ops := call.Args[first : first+n]
	t0 := types.Default(info.TypeOf(ops[0]))
	k := valueKind(t0)
	if k == 0 || (want == 'b' || want == 'f') && k != want || (want == 'n' && !numeric(t0)) {
		return "", nil, false
	}
	for _, o := range ops[1:] {
		// testify compares dynamic types too: int(1) is not int64(1).
		if !types.Identical(t0, types.Default(info.TypeOf(o))) {
			return "", nil, false
		}
	}
	return fn.Name(), ops, true
}

// assertion instruments a testify assertion statement of test code: each
// operand that is not a constant is recorded, the last one completing the
// check.
func (fi *fileInstrumenter) assertion(fn *function, call *ast.CallExpr) {
	name, ops, ok := testifyCall(fi.info, call)
	if !ok {
		return
	}
	as := &assertion{name: name, operands: ops, last: -1}
	for _, o := range ops {
		as.types = append(as.types, types.Default(fi.info.TypeOf(o)))
	}
	for i, o := range ops {
		if fi.info.Types[o].Value != nil {
			continue
		}
		st := fi.site(kindAssertArg, fn, o, as.types[i])
		st.index, st.assertion = i, as
		as.last = st.id
		fi.model(fn, o, true)
		fi.wrap(o, st.id, as.types[i])
	}
}

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

// isEqualCall recognises reflect.DeepEqual(x, y) and go-cmp's
// cmp.Equal(x, y) on operands of one integer or Boolean type: ==.
func isEqualCall(info *types.Info, call *ast.CallExpr) bool {
	fn := calledFunc(info, call)
	if fn == nil || len(call.Args) != 2 {
		return false
	}
	if !(fn.Pkg().Path() == "reflect" && fn.Name() == "DeepEqual") && !(fn.Pkg().Path() == goCmp && fn.Name() == "Equal") {
		return false
	}
	return sameModelledType(info, call.Args[0], call.Args[1])
}

// isDiffCall recognises cmp.Diff(x, y) on operands of one integer or
// Boolean type: it is "" exactly when x == y.
func isDiffCall(info *types.Info, call *ast.CallExpr) bool {
	fn := calledFunc(info, call)
	return fn != nil && len(call.Args) == 2 && fn.Pkg().Path() == goCmp && fn.Name() == "Diff" &&
		sameModelledType(info, call.Args[0], call.Args[1])
}

func calledFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil
	}
	return fn
}

func sameModelledType(info *types.Info, x, y ast.Expr) bool {
	a, b := types.Default(info.TypeOf(x)), types.Default(info.TypeOf(y))
	return valueKind(a) != 0 && valueKind(a) == valueKind(b) && types.Identical(a, b)
}

// diffOperands recognises a comparison of a cmp.Diff result with "", the
// call written in place or assigned in the if statement's init
// (if d := cmp.Diff(x, y); d != ""), and returns the compared operands.
func (p *program) diffOperands(info *types.Info, e *ast.BinaryExpr) (x, y ast.Expr, ok bool) {
	if e.Op != token.EQL && e.Op != token.NEQ {
		return nil, nil, false
	}
	other := e.X
	if !isEmptyString(info, e.Y) {
		if !isEmptyString(info, e.X) {
			return nil, nil, false
		}
		other = e.Y
	}
	var call *ast.CallExpr
	switch o := ast.Unparen(other).(type) {
	case *ast.CallExpr:
		call = o
	case *ast.Ident:
		if v, isVar := info.Uses[o].(*types.Var); isVar {
			call = p.diffs[v]
		}
	}
	if call == nil || !isDiffCall(info, call) {
		return nil, nil, false
	}
	return call.Args[0], call.Args[1], true
}

func isEmptyString(info *types.Info, e ast.Expr) bool {
	v := info.Types[e].Value
	return v != nil && v.Kind() == constant.String && constant.StringVal(v) == ""
}

// noteDiff remembers d in an if statement's init d := cmp.Diff(x, y).
func (fi *fileInstrumenter) noteDiff(init ast.Stmt) {
	as, ok := init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	call, isCall := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok || !isCall || !isDiffCall(fi.info, call) {
		return
	}
	if v, ok := fi.info.Defs[id].(*types.Var); ok {
		fi.prog.diffs[v] = call
	}
}
