package instrument

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/faultline-go/faultline/internal/bug"
)

// siteKind says what an instrumented site records.
type siteKind uint8

const (
	KindAssign    siteKind = iota // right-hand side of an assignment or var spec
	KindIncDec                    // x++ or x-- on a tracked local
	KindCond                      // condition of an if or for, or a case of an expression switch
	KindReturn                    // one returned integer or Boolean value
	KindArg                       // argument of a call to an instrumented function
	KindParam                     // parameter value on entry
	KindLeaf                      // operand the formula does not model: its concrete value
	KindDef                       // concrete value of a local declared without a value
	KindEnter                     // function entry
	KindLeave                     // function exit
	KindJoin                      // control leaves an if, for or switch statement
	KindGuard                     // an index, slice or division about to panic: the length, capacity or zero divisor
	KindAssertArg                 // operand of an assertion (testify, quicktest) in test code
	KindTag                       // tag of an expression switch, compared by its cases
	KindResult                    // a call to an instrumented function has returned: binds its results to the call
	KindValue                     // a value of any type, recorded and forced as text for value replacement
)

// guardKind says which operation a kindGuard site protects.
type guardKind uint8

const (
	GuardIndex guardKind = iota + 1 // x[i]: i < len(x), unsigned
	GuardSlice                      // x[lo:hi:max]: lo <= hi <= max <= cap(x), unsigned
	GuardDiv                        // x / y, x % y: y != 0
	guardNil                        // p.f, *p: p != nil (panic_nil.go)
	guardMap                        // m[k] = v: m != nil
	guardPanic                      // panic(v): the statement is not reached
)

// site is one instrumented point of the source.
type Site struct {
	Id   int32
	Kind siteKind
	Hard bool   // test code: never a fix location
	File string // slash path relative to the module root
	Pos  token.Position
	End  token.Position
	Text string // source text of expr (or of the statement for kindIncDec)

	Expr ast.Expr   // recorded expression
	Typ  types.Type // type of the recorded value
	Obj  *types.Var // local assigned (assign, incdec, def, param), nil if not tracked
	Op   token.Token
	Fn   *Function
	Info *types.Info
	Pkg  *types.Package // the package of the site's file, where its type and values are written

	Index  int       // parameter or argument index
	Target *Function // callee of an argument

	Stmt ast.Stmt // if, for or switch statement of a condition or join
	// lhs is the operand an assignment stores to when it is not a tracked
	// local (an element of a byte slice, say); nil otherwise.
	Lhs ast.Expr
	// indexed is the operand a guard indexes or slices when its limit is
	// its length (a string, or a byte slice indexed or sliced without a
	// high bound): the formula's length of it is the limit.
	Indexed        ast.Expr
	Tag            *Site // the tag a case of a tagged switch compares with
	FailsWhen      int8  // test condition guarding a failure report: 1 when true, 2 when false
	Guard          guardKind
	Bounds         []ast.Expr // operands a guard constrains, in order; nil for a missing slice bound
	Assertion      *Assertion // the assertion an operand belongs to
	AssignedInside []*types.Var
	Escapes        bool // the statement may leave by return, goto, labelled jump or panic
	// parallel marks a pair of a multi-assignment (a, b = b, a+b): the
	// locals change only after the last pair, marked last.
	Parallel, Last bool
	// tuple marks a site recording one result (index) of expr, a call
	// with several results: a, b := f(), var a, b = f(), return f(), g(f()).
	Tuple bool
	// recorded marks a Boolean site whose value the formula takes from
	// the run (a type switch's case, a comma-ok type assertion's ok): the
	// dynamic type is the run's, the angelic choice the branch taken.
	Recorded bool
}

// function is one instrumented function declaration or literal.
type Function struct {
	Enter, leave int32
	Name         string
	Hard         bool
	Results      []types.Type
	// Refs are the receiver and parameters through which the function
	// may change what its caller holds: pointers, slices and maps.
	Refs    []*types.Var
	Tracked map[*types.Var]bool
	// defers says the body defers a call, which may change the results
	// after a return statement has set them.
	Defers bool
}

type Instance struct{ Act, Local int32 }

type InstKey struct {
	Site int32
	Inst Instance
}

// bits is the width of an integer type the formula models, and whether it
// is signed. Asked of a type that is not basic, which no caller should do,
// it reports the bug and answers a 64-bit unsigned integer.
func Bits(t types.Type) (uint, bool) {
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
func IsFloat32(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Float32
}
