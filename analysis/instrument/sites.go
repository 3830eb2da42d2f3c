package instrument

import (
	"github.com/faultline-go/faultline/internal/bug"
	"go/ast"
	"go/token"
	"go/types"
)

// siteKind says what an instrumented site records.
type siteKind uint8

const (
	kindAssign    siteKind = iota // right-hand side of an assignment or var spec
	kindIncDec                    // x++ or x-- on a tracked local
	kindCond                      // condition of an if or for, or a case of an expression switch
	kindReturn                    // one returned integer or Boolean value
	kindArg                       // argument of a call to an instrumented function
	kindParam                     // parameter value on entry
	kindLeaf                      // operand the formula does not model: its concrete value
	kindDef                       // concrete value of a local declared without a value
	kindEnter                     // function entry
	kindLeave                     // function exit
	kindJoin                      // control leaves an if, for or switch statement
	kindGuard                     // an index, slice or division about to panic: the length, capacity or zero divisor
	kindAssertArg                 // operand of an assertion (testify, quicktest) in test code
	kindTag                       // tag of an expression switch, compared by its cases
	kindResult                    // a call to an instrumented function has returned: binds its results to the call
	kindValue                     // a value of any type, recorded and forced as text for value replacement
)

// guardKind says which operation a kindGuard site protects.
type guardKind uint8

const (
	guardIndex guardKind = iota + 1 // x[i]: i < len(x), unsigned
	guardSlice                      // x[lo:hi:max]: lo <= hi <= max <= cap(x), unsigned
	guardDiv                        // x / y, x % y: y != 0
	guardNil                        // p.f, *p: p != nil (panic_nil.go)
	guardMap                        // m[k] = v: m != nil
	guardPanic                      // panic(v): the statement is not reached
)

// site is one instrumented point of the source.
type site struct {
	id   int32
	kind siteKind
	hard bool   // test code: never a fix location
	file string // slash path relative to the module root
	pos  token.Position
	end  token.Position
	text string // source text of expr (or of the statement for kindIncDec)

	expr ast.Expr   // recorded expression
	typ  types.Type // type of the recorded value
	obj  *types.Var // local assigned (assign, incdec, def, param), nil if not tracked
	op   token.Token
	fn   *function
	info *types.Info
	pkg  *types.Package // the package of the site's file, where its type and values are written

	index  int       // parameter or argument index
	target *function // callee of an argument

	stmt ast.Stmt // if, for or switch statement of a condition or join
	// lhs is the operand an assignment stores to when it is not a tracked
	// local (an element of a byte slice, say); nil otherwise.
	lhs ast.Expr
	// indexed is the operand a guard indexes or slices when its limit is
	// its length (a string, or a byte slice indexed or sliced without a
	// high bound): the formula's length of it is the limit.
	indexed        ast.Expr
	tag            *site // the tag a case of a tagged switch compares with
	failsWhen      int8  // test condition guarding a failure report: 1 when true, 2 when false
	guard          guardKind
	bounds         []ast.Expr // operands a guard constrains, in order; nil for a missing slice bound
	assertion      *assertion // the assertion an operand belongs to
	assignedInside []*types.Var
	escapes        bool // the statement may leave by return, goto, labelled jump or panic
	// parallel marks a pair of a multi-assignment (a, b = b, a+b): the
	// locals change only after the last pair, marked last.
	parallel, last bool
	// tuple marks a site recording one result (index) of expr, a call
	// with several results: a, b := f(), var a, b = f(), return f(), g(f()).
	tuple bool
	// recorded marks a Boolean site whose value the formula takes from
	// the run (a type switch's case, a comma-ok type assertion's ok): the
	// dynamic type is the run's, the angelic choice the branch taken.
	recorded bool
}

// function is one instrumented function declaration or literal.
type function struct {
	enter, leave int32
	name         string
	hard         bool
	results      []types.Type
	tracked      map[*types.Var]bool
	// defers says the body defers a call, which may change the results
	// after a return statement has set them.
	defers bool
}

type instance struct{ act, local int32 }

type instKey struct {
	site int32
	inst instance
}

// bits is the width of an integer type the formula models, and whether it
// is signed. Asked of a type that is not basic, which no caller should do,
// it reports the bug and answers a 64-bit unsigned integer.
func bits(t types.Type) (uint, bool) {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		bug.Reportf("the width of %s, which is not a basic type", t)
		return 64, false
	}
	switch b.Kind() {
	case types.Int8:
		return 8, true
	case types.Int16:
		return 16, true
	case types.Int32:
		return 32, true
	case types.Int64, types.Int, types.UntypedInt, types.UntypedRune:
		return 64, true
	case types.Uint8:
		return 8, false
	case types.Uint16:
		return 16, false
	case types.Uint32:
		return 32, false
	}
	return 64, false
}

// isFloat32 reports whether t is float32; any other float type (an untyped
// float constant included) is encoded as a float64.
func isFloat32(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Float32
}
