package analysis

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
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
// require, function or *Assertions method) on integer, float, Boolean,
// string or byte slice operands of one type, and returns its name and
// operands. testify compares floats with Go's operators (Equal through
// reflect.DeepEqual) and byte slices by their contents (bytes.Equal, so
// nil equals empty, as in the formula).
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
	// want: 'n' integer or float, 'b' Boolean, 'f' float64, 's' string or
	// byte slice, 'S' string (testify's Contains on a byte slice looks
	// for an element), 0 any.
	var want byte
	switch fn.Name() {
	case "Equal", "NotEqual", "Exactly":
		n = 2
	case "Greater", "GreaterOrEqual", "Less", "LessOrEqual":
		n, want = 2, 'n'
	case "True", "False":
		n, want = 1, 'b'
	case "Zero", "NotZero", "Empty", "NotEmpty":
		n = 1
	case "Positive", "Negative":
		n, want = 1, 'n'
	case "InDelta":
		n, want = 3, 'f' // expected, actual, delta: all float64
	case "Contains", "NotContains":
		n, want = 2, 'S'
	case "Len":
		n, want = 2, 's'
	case "NoError", "Error", "Nil", "NotNil":
		n, want = 1, 'e'
	case "ErrorIs", "NotErrorIs": // with a sentinel as the target (errors_is.go)
		n, want = 2, 'e'
	default:
		return "", nil, false
	}
	if len(call.Args) < first+n || (call.Ellipsis.IsValid() && len(call.Args) == first+n) {
		return "", nil, false
	}
	ops := call.Args[first : first+n]
	t0 := types.Default(info.TypeOf(ops[0]))
	k := valueKind(t0)
	switch {
	case k == 0,
		(k == 'y' || k == 'l' || k == 'm') && (fn.Name() == "Zero" || fn.Name() == "NotZero"), // reflect.DeepEqual: nil is not empty
		(want == 'b' || want == 'f') && k != want,
		want == 'n' && !numeric(t0),
		want == 's' && !isSeq(t0) && k != 'l',
		want == 'S' && k != 's' && !(k == 'l' && types.Identical(listElem(t0), types.Default(info.TypeOf(ops[1])))),
		(want == 'e') != (k == 'e'): // of an error, its nil-ness alone
		return "", nil, false
	}
	if k == 'l' && (fn.Name() == "Contains" || fn.Name() == "NotContains") {
		return fn.Name(), ops, true // an element of the list's type
	}
	if fn.Name() == "Len" {
		// The length: an integer, any type.
		return fn.Name(), ops, valueKind(info.TypeOf(ops[1])) == 'i'
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
	if (name == "ErrorIs" || name == "NotErrorIs") && fi.prog.sentinelCode(targetObject(fi.info, ops[1])) == 0 {
		return // errors.Is against an error that is no sentinel: not modelled
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

// sameModelledType reports whether x and y have one type the formula
// models and compares as reflect.DeepEqual and cmp.Equal do (not byte
// slices: both tell nil from empty).
func sameModelledType(info *types.Info, x, y ast.Expr) bool {
	a, b := types.Default(info.TypeOf(x)), types.Default(info.TypeOf(y))
	return valueKind(a) != 0 && valueKind(a) != 'y' && valueKind(a) != 'e' && valueKind(a) == valueKind(b) && types.Identical(a, b)
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

// isNotedDiff reports whether lhs is the d of if d := cmp.Diff(x, y).
func (fi *fileInstrumenter) isNotedDiff(lhs ast.Expr) bool {
	id, ok := lhs.(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := fi.info.Defs[id].(*types.Var)
	return ok && fi.prog.diffs[v] != nil
}
