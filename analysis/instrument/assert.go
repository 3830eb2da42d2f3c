package instrument

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
	quicktest      = "github.com/frankban/quicktest"
)

// check is what an assertion states, whichever library states it: a kind
// of relation on its operands, named after the testify function stating
// it (Equal, Less, True, Zero, Empty, Positive, Negative, InDelta, Nil,
// ErrorIs, Contains, Len ...), or its negation.
type check struct {
	Kind string
	Not  bool
	n    int // operands
	// want: 'n' integer or float, 'b' Boolean, 'f' float64, 's' string
	// or byte slice, 'S' string (testify's Contains on a byte slice looks
	// for an element), 'e' error, 'c' a type Go's == compares (not lists,
	// maps, byte slices, errors), 'd' a type go-cmp compares without
	// options (not byte slices or errors, no unexported field), 0 any.
	want byte
}

// checks maps the assertion functions of testify (package assert or
// require, function or *Assertions method) and the checkers of quicktest
// to what they check.
var checks = map[string]map[string]check{
	"testify": {
		"Equal":          {Kind: "Equal", n: 2},
		"Exactly":        {Kind: "Equal", n: 2},
		"NotEqual":       {Kind: "Equal", Not: true, n: 2},
		"Greater":        {Kind: "Greater", n: 2, want: 'n'},
		"GreaterOrEqual": {Kind: "GreaterOrEqual", n: 2, want: 'n'},
		"Less":           {Kind: "Less", n: 2, want: 'n'},
		"LessOrEqual":    {Kind: "LessOrEqual", n: 2, want: 'n'},
		"True":           {Kind: "True", n: 1, want: 'b'},
		"False":          {Kind: "True", Not: true, n: 1, want: 'b'},
		"Zero":           {Kind: "Zero", n: 1},
		"NotZero":        {Kind: "Zero", Not: true, n: 1},
		"Empty":          {Kind: "Empty", n: 1},
		"NotEmpty":       {Kind: "Empty", Not: true, n: 1},
		"Positive":       {Kind: "Positive", n: 1, want: 'n'},
		"Negative":       {Kind: "Negative", n: 1, want: 'n'},
		"InDelta":        {Kind: "InDelta", n: 3, want: 'f'}, // expected, actual, delta: all float64
		"Contains":       {Kind: "Contains", n: 2, want: 'S'},
		"NotContains":    {Kind: "Contains", Not: true, n: 2, want: 'S'},
		"Len":            {Kind: "Len", n: 2, want: 's'},
		"NoError":        {Kind: "Nil", n: 1, want: 'e'},
		"Nil":            {Kind: "Nil", n: 1, want: 'e'},
		"Error":          {Kind: "Nil", Not: true, n: 1, want: 'e'},
		"NotNil":         {Kind: "Nil", Not: true, n: 1, want: 'e'},
		"ErrorIs":        {Kind: "ErrorIs", n: 2, want: 'e'}, // with a sentinel as the target (errors_is.go)
		"NotErrorIs":     {Kind: "ErrorIs", Not: true, n: 2, want: 'e'},
	},
	quicktest: { // checkers: got, then the checker's arguments
		"Equals":     {Kind: "Equal", n: 2, want: 'c'},
		"DeepEquals": {Kind: "Equal", n: 2, want: 'd'},
		"IsTrue":     {Kind: "True", n: 1, want: 'b'},
		"IsFalse":    {Kind: "True", Not: true, n: 1, want: 'b'},
		"IsNil":      {Kind: "Nil", n: 1, want: 'e'},
		"IsNotNil":   {Kind: "Nil", Not: true, n: 1, want: 'e'},
		"HasLen":     {Kind: "Len", n: 2, want: 's'},
		"Contains":   {Kind: "Contains", n: 2, want: 'S'},
		"ErrorIs":    {Kind: "ErrorIs", n: 2, want: 'e'},
	},
}

// assertion is an assertion call of test code whose operands the formula
// models. A failing one reports through t.Errorf or t.FailNow inside the
// library, which is not instrumented: the call itself is the check.
type Assertion struct {
	check
	Operands []ast.Expr   // the checked values, in argument order
	Types    []types.Type // their types, untyped constants defaulted
	Last     int32        // site of the last recorded operand: its event completes the check
}

// assertionCall recognises an assertion call (testifyCall, quicktestCall)
// on operands of the types the formula models for its check, and returns
// the check and its operands.
func assertionCall(info *types.Info, call *ast.CallExpr) (check, []ast.Expr, bool) {
	fn := calledFunc(info, call)
	if fn == nil {
		return check{}, nil, false
	}
	var (
		c   check
		ops []ast.Expr
		ok  bool
	)
	switch fn.Pkg().Path() {
	case testifyAssert, testifyRequire:
		c, ops, ok = testifyCall(fn, call)
	case quicktest:
		c, ops, ok = quicktestCall(info, fn, call)
	}
	if !ok || !operandsFit(info, c, ops) {
		return check{}, nil, false
	}
	return c, ops, true
}

// testifyCall returns the check and operands of a call of testify's
// assertion function or *Assertions method fn.
func testifyCall(fn *types.Func, call *ast.CallExpr) (check, []ast.Expr, bool) {
	first := 1 // the TestingT
	if fn.Signature().Recv() != nil {
		first = 0
	}
	c, ok := checks["testify"][fn.Name()]
	if !ok || len(call.Args) < first+c.n || (call.Ellipsis.IsValid() && len(call.Args) == first+c.n) {
		return check{}, nil, false
	}
	return c, call.Args[first : first+c.n], true
}

// operandsFit reports whether the operands of check c have types the
// formula models for it, compared as the library compares them: testify
// compares floats with Go's operators (Equal through reflect.DeepEqual)
// and byte slices by their contents (bytes.Equal, so nil equals empty, as
// in the formula); quicktest's Equals is Go's == on interfaces, its
// DeepEquals go-cmp's Diff.
func operandsFit(info *types.Info, c check, ops []ast.Expr) bool {
	t0 := types.Default(info.TypeOf(ops[0]))
	k := ValueKind(t0)
	switch {
	case k == 0,
		(k == 'y' || k == 'l' || k == 'm') && c.Kind == "Zero", // reflect.DeepEqual: nil is not empty
		(c.want == 'b' || c.want == 'f') && k != c.want,
		c.want == 'n' && !numeric(t0),
		c.want == 's' && !IsSeq(t0) && k != 'l',
		c.want == 'S' && k != 's' && !(k == 'l' && types.Identical(ListElem(t0), types.Default(info.TypeOf(ops[1])))),
		c.want == 'c' && (k == 'l' || k == 'm' || k == 'y'), // not comparable: quicktest's Equals fails
		c.want == 'd' && (k == 'y' || !cmpExported(t0)),     // go-cmp tells nil from empty, panics on unexported fields
		(c.want == 'e') != (k == 'e'):                       // of an error, its nil-ness alone
		return false
	}
	if k == 'l' && c.Kind == "Contains" {
		return true // an element of the list's type
	}
	if c.Kind == "Len" {
		// The length: an integer, any type.
		return ValueKind(info.TypeOf(ops[1])) == 'i'
	}
	for _, o := range ops[1:] {
		// testify and quicktest compare dynamic types too: int(1) is not
		// int64(1).
		if !types.Identical(t0, types.Default(info.TypeOf(o))) {
			return false
		}
	}
	return true
}

// assertion instruments an assertion statement of test code: each
// operand that is not a constant is recorded, the last one completing the
// check.
func (fi *fileInstrumenter) assertion(fn *Function, call *ast.CallExpr) {
	c, ops, ok := assertionCall(fi.info, call)
	if !ok {
		return
	}
	if c.Kind == "ErrorIs" && fi.prog.sentinelCode(targetObject(fi.info, ops[1])) == 0 {
		return // errors.Is against an error that is no sentinel: not modelled
	}
	as := &Assertion{check: c, Operands: ops, Last: -1}
	for _, o := range ops {
		as.Types = append(as.Types, types.Default(fi.info.TypeOf(o)))
	}
	for i, o := range ops {
		if fi.info.Types[o].Value != nil {
			continue
		}
		st := fi.site(KindAssertArg, fn, o, as.Types[i])
		st.Index, st.Assertion = i, as
		as.Last = st.Id
		fi.model(fn, o, true)
		fi.wrap(o, st.Id, as.Types[i])
	}
}

// isEqualCall recognises reflect.DeepEqual(x, y) and go-cmp's
// cmp.Equal(x, y) on operands of one integer or Boolean type: ==.
func IsEqualCall(info *types.Info, call *ast.CallExpr) bool {
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
	return ValueKind(a) != 0 && ValueKind(a) != 'y' && ValueKind(a) != 'e' && ValueKind(a) == ValueKind(b) && types.Identical(a, b)
}

// diffOperands recognises a comparison of a cmp.Diff result with "", the
// call written in place or assigned in the if statement's init
// (if d := cmp.Diff(x, y); d != ""), and returns the compared operands.
func (p *Program) DiffOperands(info *types.Info, e *ast.BinaryExpr) (x, y ast.Expr, ok bool) {
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
