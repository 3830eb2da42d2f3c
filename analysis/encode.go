//go:build cgo

package analysis

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"time"

	"faultline/solver/mcs"
	"faultline/solver/z3"
)

// instance names a dynamic instance of a site: the activation of its
// function (counted per function) and the count within that activation.
// Unlike a global count, it stays put when a forced value makes an earlier
// loop run longer.
type joinKey struct {
	site int32
	inst instance
	v    *types.Var
}

// encoder holds the angelic formula of one failing test: every site
// instance replayed so far, shared by all the traces that reached it, so
// that refinement only adds.
type encoder struct {
	z        *z3.Context
	enum     *mcs.Enumerator[int32]
	prog     *program
	deadline time.Time // the test's budget: a long trace stops being encoded there

	ab       map[int32]z3.Bool
	vars     map[instKey]z3.Expr  // value of a site instance
	joins    map[joinKey]z3.Expr  // value of a local after an if or loop instance
	results  map[instKey]z3.Expr  // returned value of a function activation
	explored map[instKey]uint8    // condition directions seen: 1 false, 2 true
	original map[instKey]int64    // concrete value when first seen unforced
	instOf   map[int32][]instance // encoded instances per site, in order seen
	hards    []z3.Bool            // every hard constraint, for choosing values
	failing  int                  // failure-guarding conditions that failed in the first trace
	checks   int
	fresh    int
	guarded  map[instKey]bool // panicking operations whose "must not panic" is encoded
	// concrete is set by a replay of a forced run that failed a check (or
	// panicked) whatever the modelled values: the operands are recorded
	// values that hold only under that run's forced values, so the check
	// is left out of the formula and the caller excludes those values.
	concrete bool
	pending  []pendingSpec

	// Hooks of the replay with symbolic inputs (inputs.go). param, when
	// set, may give a parameter instance a term of its own (a free input)
	// instead of its recorded value; spec, when set, receives every
	// specification instead of the formula, for a caller that asks for
	// runs that violate it as well as runs that meet it.
	param func(s *site, ev event) (z3.Expr, bool)
	spec  func(spec z3.Bool, guard instKey)
	// cause, when set, guards each specification by a literal of its
	// own, for the unsat cores of a regression explanation (cause.go).
	cause *causeHooks
}

func newEncoder(z *z3.Context, enum *mcs.Enumerator[int32], prog *program) *encoder {
	return &encoder{z: z, enum: enum, prog: prog, ab: map[int32]z3.Bool{}, vars: map[instKey]z3.Expr{},
		joins: map[joinKey]z3.Expr{}, results: map[instKey]z3.Expr{}, explored: map[instKey]uint8{},
		original: map[instKey]int64{}, instOf: map[int32][]instance{}, guarded: map[instKey]bool{}}
}

func (e *encoder) addHard(b z3.Bool) error {
	e.hards = append(e.hards, b)
	return e.enum.AddHard(b)
}

type pendingArg struct {
	target *function
	index  int
	term   z3.Expr
}

// returned is what an activation of fn returned: its modelled results by
// index, each equal to the returned expression under the path that reached
// the return.
type returned struct {
	fn    *function
	terms map[int]z3.Expr
}

type frame struct {
	cond    *site
	inst    instance
	before  z3.Bool
	escapes bool
}

// activation is one replayed call of an instrumented function.
type activation struct {
	fn     *function
	env    map[*types.Var]z3.Expr
	pc     z3.Bool
	frames []frame
	leaves map[int32]z3.Expr
	args   []pendingArg
	params map[int]z3.Expr
	tags   map[int32]z3.Expr // switch tags by site, as last evaluated
	rets   map[int]z3.Expr   // this activation's results by index, once returned
	// callee is what the call that just returned to this activation
	// returned, until the call's kindResult event binds it to the call.
	callee *returned
	// calls holds the results of the calls evaluated for the site being
	// read, by call expression and result index.
	calls map[*ast.CallExpr]map[int]z3.Expr
	// parallel holds the updates of a multi-assignment until its last pair.
	parallel []func()
	// operands holds the operands of assertions replayed so far.
	operands map[*assertion][]operand
}

// floatSort is the IEEE sort of a float type.
func (e *encoder) floatSort(t types.Type) z3.Sort {
	if isFloat32(t) {
		return e.z.Float32Sort()
	}
	return e.z.Float64Sort()
}

// constant is the term of a recorded value: a float's is its IEEE bits.
func (e *encoder) constant(t types.Type, v int64) z3.Expr {
	switch valueKind(t) {
	case 'b':
		return e.z.BoolVal(v != 0).Expr
	case 'f':
		if isFloat32(t) {
			return e.z.Float32Val(math.Float32frombits(uint32(v))).Expr
		}
		return e.z.Float64Val(math.Float64frombits(uint64(v))).Expr
	}
	n, _ := bits(t)
	return e.z.BVInt(v, n).Expr
}

func (e *encoder) freshOf(t types.Type) z3.Expr {
	e.fresh++
	name := fmt.Sprintf("free%d", e.fresh)
	switch valueKind(t) {
	case 'b':
		return e.z.BoolConst(name).Expr
	case 'f':
		return e.z.FloatConst(name, e.floatSort(t)).Expr
	}
	n, _ := bits(t)
	return e.z.BVConst(name, n).Expr
}

// floatToInt is Go's conversion of a float to an integer type: it
// truncates toward zero. Out of range (NaN included) the result is
// implementation-defined; it is the integer with only the sign bit set, as
// on amd64, rather than a value the solver could choose to make a check
// pass that no run would reproduce.
func (e *encoder) floatToInt(x z3.Float, from, to types.Type) z3.Expr {
	n, signed := bits(to)
	// The truncated value is in range when low < x < high; low may round
	// to the least signed integer, a power of two, which converts exactly.
	low, high := -1.0, math.Ldexp(1, int(n))
	if signed {
		low, high = -math.Ldexp(1, int(n)-1)-1, math.Ldexp(1, int(n)-1)
	}
	lowF := e.floatVal(from, low)
	aboveLow := lowF.LT(x)
	if signed {
		aboveLow = e.z.Or(aboveLow, x.IEEEEq(e.floatVal(from, -math.Ldexp(1, int(n)-1))))
	}
	inRange := e.z.And(x.LT(e.floatVal(from, high)), aboveLow)
	indefinite := e.z.BVUint(1<<(n-1), n)
	return e.z.Ite(inRange, x.ToBV(n, signed), indefinite)
}

// floatVal is v rounded to float type t.
func (e *encoder) floatVal(t types.Type, v float64) z3.Float {
	if isFloat32(t) {
		return e.z.Float32Val(float32(v))
	}
	return e.z.Float64Val(v)
}

// floatOne is 1 in the sort of float type t, for x++ and x--.
func (e *encoder) floatOne(t types.Type) z3.Float {
	if isFloat32(t) {
		return e.z.Float32Val(1)
	}
	return e.z.Float64Val(1)
}

func (e *encoder) abOf(s *site) (z3.Bool, error) {
	if ab, ok := e.ab[s.id]; ok {
		return ab, nil
	}
	ab := e.z.BoolConst(fmt.Sprintf("ab%d", s.id))
	e.ab[s.id] = ab
	if _, err := e.enum.AddSoft(s.id, ab.Not()); err != nil {
		return ab, fmt.Errorf("adding the soft constraint of %s: %w", s.text, err)
	}
	return ab, nil
}

// siteVar returns the variable of a site instance, encoding it the first
// time: hard in test code, guarded by the statement's ab literal elsewhere.
func (e *encoder) siteVar(s *site, ev event, term z3.Expr) (z3.Expr, error) {
	k := instKey{s.id, ev.inst}
	if v, ok := e.vars[k]; ok {
		return v, nil
	}
	e.fresh++
	v := e.z.Const(fmt.Sprintf("s%d_%d_%d", s.id, ev.inst.act, ev.inst.local), term.Sort())
	e.vars[k] = v
	e.instOf[s.id] = append(e.instOf[s.id], ev.inst)
	eq := v.Eq(term)
	if s.hard {
		return v, e.addHard(eq)
	}
	ab, err := e.abOf(s)
	if err != nil {
		return v, err
	}
	return v, e.addHard(e.z.Or(ab, eq))
}

// novel reports whether a trace reaches a site instance or condition
// direction the formula does not encode yet, or panics at an operation
// (trace[panicAt], -1 for none) it does not constrain yet.
func (e *encoder) novel(trace []event, panicAt int) bool {
	if panicAt >= 0 && !e.guarded[instKey{trace[panicAt].site, trace[panicAt].inst}] {
		return true
	}
	for _, ev := range trace {
		if int(ev.site) >= len(e.prog.sites) {
			continue
		}
		s := e.prog.sites[ev.site]
		switch s.kind {
		case kindAssign, kindIncDec, kindReturn, kindArg, kindTag:
			if !s.hard {
				if _, ok := e.vars[instKey{s.id, ev.inst}]; !ok {
					return true
				}
			}
		case kindCond:
			if e.explored[instKey{s.id, ev.inst}]&direction(ev.value) == 0 {
				return true
			}
		}
	}
	return false
}

func direction(v int64) uint8 {
	if v != 0 {
		return 2
	}
	return 1
}

// replay adds a trace to the formula. forced tells which instances carried
// forced values, whose recorded value is not the program's; panicAt is the
// index of the guard event at which the run panicked, or -1.
func (e *encoder) replay(trace []event, forced map[instKey]bool, first bool, panicAt int) error {
	var stack []*activation
	for i, ev := range trace {
		if i%1024 == 0 && !e.deadline.IsZero() && time.Now().After(e.deadline) {
			return errBudget
		}
		if ev.site < 0 || int(ev.site) >= len(e.prog.sites) {
			return fmt.Errorf("trace names unknown site %d", ev.site)
		}
		s := e.prog.sites[ev.site]
		if e.cause != nil {
			e.cause.event = i
		}
		k := instKey{s.id, ev.inst}
		if _, ok := e.original[k]; !ok && !forced[k] {
			e.original[k] = ev.value
		}
		if s.kind == kindEnter {
			a := &activation{fn: s.fn, env: map[*types.Var]z3.Expr{}, pc: e.z.True(), leaves: map[int32]z3.Expr{}, params: map[int]z3.Expr{},
				tags: map[int32]z3.Expr{}, rets: map[int]z3.Expr{}, calls: map[*ast.CallExpr]map[int]z3.Expr{}}
			if len(stack) > 0 {
				caller := stack[len(stack)-1]
				for _, p := range caller.args {
					if p.target == s.fn {
						a.params[p.index] = p.term
					}
				}
				caller.args = nil
			}
			stack = append(stack, a)
			continue
		}
		if len(stack) == 0 || stack[len(stack)-1].fn != s.fn {
			continue // another goroutine, or code outside any replayed call
		}
		a := stack[len(stack)-1]
		// A call's results are bound only by the event right after its
		// return: one whose result is ignored must not feed a later call.
		callee := a.callee
		a.callee = nil
		switch s.kind {
		case kindResult:
			call := s.expr.(*ast.CallExpr)
			terms := map[int]z3.Expr{}
			if callee != nil && callee.fn == e.prog.callee(s.info, call) {
				terms = callee.terms
			} else if s.typ != nil {
				terms[0] = e.constant(s.typ, ev.value) // the callee was not replayed
			}
			a.calls[call] = terms
		case kindLeave:
			// Statements still open are left by a return or a panic: no
			// code of this activation runs after them, so their joins are
			// not bound. Binding them under the path so far would claim
			// the values for every run that shares that path's prefix.
			a.frames = nil
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && len(a.rets) > 0 {
				stack[len(stack)-1].callee = &returned{a.fn, a.rets}
			}
		case kindParam:
			term, ok := a.params[s.index]
			if !ok || term.Sort().String() != e.constant(s.typ, 0).Sort().String() {
				term = e.constant(s.typ, ev.value)
			}
			if e.param != nil {
				if input, ok := e.param(s, ev); ok {
					term = input
				}
			}
			if s.obj != nil {
				a.env[s.obj] = term
			}
		case kindLeaf:
			a.leaves[s.id] = e.constant(s.typ, ev.value)
		case kindAssertArg:
			if err := e.assertOperand(a, s, ev, first); err != nil {
				return fmt.Errorf("encoding the assertion on %s at %s: %w", s.text, s.pos, err)
			}
		case kindGuard:
			if i == panicAt {
				if err := e.mustNotPanic(a, s, ev, first); err != nil {
					return err
				}
			}
		case kindDef:
			if s.obj != nil {
				a.env[s.obj] = e.constant(s.typ, ev.value)
			}
		case kindArg, kindAssign, kindReturn, kindCond, kindIncDec, kindTag:
			var term z3.Expr
			if s.tag != nil {
				term = e.caseTerm(a, s)
			} else if s.kind == kindIncDec {
				old, ok := a.env[s.obj]
				if !ok {
					old = e.freshOf(s.typ)
				}
				n, _ := bits(s.typ)
				if valueKind(s.typ) == 'f' {
					if s.op == token.INC {
						term = old.AsFloat().Add(e.floatOne(s.typ)).Expr
					} else {
						term = old.AsFloat().Sub(e.floatOne(s.typ)).Expr
					}
				} else if s.op == token.INC {
					term = old.AsBV().Add(e.z.BVInt(1, n)).Expr
				} else {
					term = old.AsBV().Sub(e.z.BVInt(1, n)).Expr
				}
			} else if s.tuple {
				term = e.component(a, s, ev.value)
			} else {
				term = e.sym(a, s, s.expr, ev.value, true)
			}
			if err := term.Err(); err != nil {
				return fmt.Errorf("encoding %s at %s: %w", s.text, s.pos, err)
			}
			v, err := e.siteVar(s, ev, term)
			if err != nil {
				return err
			}
			if s.kind != kindArg && (!s.tuple || s.last) {
				// An argument is recorded in the middle of its caller's
				// expression, whose other operands are still to be read;
				// a result of a call with several, before the others.
				a.leaves = map[int32]z3.Expr{}
				a.calls = map[*ast.CallExpr]map[int]z3.Expr{}
			}
			switch s.kind {
			case kindArg:
				a.args = append(a.args, pendingArg{s.target, s.index, v})
			case kindAssign, kindIncDec:
				if s.obj != nil {
					var next z3.Expr
					if s.op == token.ASSIGN || s.op == token.DEFINE || s.kind == kindIncDec {
						next = v
					} else if old, ok := a.env[s.obj]; ok {
						next = e.binary(opOfAssign(s.op), old, v, s.obj.Type(), s.obj.Type())
					} else {
						next = e.freshOf(s.obj.Type())
					}
					obj := s.obj
					a.parallel = append(a.parallel, func() { a.env[obj] = next })
				}
				if !s.parallel || s.last {
					for _, f := range a.parallel {
						f()
					}
					a.parallel = nil
				}
			case kindReturn:
				rk := instKey{s.id, ev.inst}
				r, ok := e.results[rk]
				if !ok {
					r = e.freshOf(s.typ)
					e.results[rk] = r
				}
				if err := e.addHard(a.pc.Implies(r.Eq(v))); err != nil {
					return err
				}
				a.rets[s.index] = r
			case kindCond:
				if err := e.branch(a, s, ev, v.AsBool(), first); err != nil {
					return err
				}
			case kindTag:
				a.tags[s.id] = v
			}
		case kindJoin:
			// The outermost frame of the statement: a switch pushes one
			// per case evaluated.
			outer := -1
			for i := len(a.frames) - 1; i >= 0; i-- {
				if a.frames[i].cond.stmt == s.stmt {
					outer = i
				}
			}
			for outer >= 0 && len(a.frames) > outer {
				if err := e.reconverge(a); err != nil {
					return err
				}
			}
		}
	}
	if !first {
		return e.settleSpecs()
	}
	return nil
}

// component is the term of one result of a call with several: what the
// callee returned at that index, or the recorded value when it was not
// replayed or the result is not modelled there.
func (e *encoder) component(a *activation, s *site, recorded int64) z3.Expr {
	if r, ok := a.calls[s.expr.(*ast.CallExpr)][s.index]; ok && r.Sort().String() == e.constant(s.typ, 0).Sort().String() {
		return r
	}
	return e.constant(s.typ, recorded)
}

// caseTerm is the condition of a case of a tagged switch: the tag, as the
// switch last evaluated it, equals the case value.
func (e *encoder) caseTerm(a *activation, s *site) z3.Expr {
	tag, ok := a.tags[s.tag.id]
	if !ok {
		tag = e.freshOf(s.tag.typ)
	}
	return e.binary(token.EQL, tag, e.sym(a, s, s.expr, 0, false), s.tag.typ, s.info.TypeOf(s.expr))
}

// branch records a condition instance: its direction guards what follows,
// and a failure-guarding test condition must take the passing direction.
func (e *encoder) branch(a *activation, s *site, ev event, v z3.Bool, first bool) error {
	k := instKey{s.id, ev.inst}
	e.explored[k] |= direction(ev.value)
	guard := v
	if ev.value == 0 {
		guard = v.Not()
	}
	if s.failsWhen != 0 {
		pass := s.failsWhen == 2
		if first {
			e.checks++
			if (ev.value != 0) != pass {
				e.failing++
			}
		}
		if err := e.addSpec(v.Eq(e.z.BoolVal(pass).Expr), first, instKey{}); err != nil {
			return err
		}
	}
	top := -1
	for i := len(a.frames) - 1; i >= 0; i-- {
		if a.frames[i].cond == s {
			top = i
			break
		}
	}
	if _, loop := s.stmt.(*ast.ForStmt); loop && top >= 0 {
		for len(a.frames) > top+1 {
			if err := e.reconverge(a); err != nil {
				return err
			}
		}
	} else {
		a.frames = append(a.frames, frame{cond: s, inst: ev.inst, before: a.pc, escapes: s.escapes})
	}
	a.pc = e.z.And(a.pc, guard)
	return nil
}

// reconverge pops the innermost frame: each local the statement may assign
// gets a join variable that equals its current value only under the path
// taken, so that other directions leave it free until they are explored.
func (e *encoder) reconverge(a *activation) error {
	f := a.frames[len(a.frames)-1]
	a.frames = a.frames[:len(a.frames)-1]
	for _, v := range f.cond.assignedInside {
		cur, ok := a.env[v]
		if !ok {
			continue
		}
		jk := joinKey{f.cond.id, f.inst, v}
		j, ok := e.joins[jk]
		if !ok {
			j = e.freshOf(v.Type())
			e.joins[jk] = j
		}
		if err := e.addHard(a.pc.Implies(j.Eq(cur))); err != nil {
			return err
		}
		a.env[v] = j
	}
	if !f.escapes {
		a.pc = f.before
	}
	return nil
}

func opOfAssign(op token.Token) token.Token {
	switch op {
	case token.ADD_ASSIGN:
		return token.ADD
	case token.SUB_ASSIGN:
		return token.SUB
	case token.MUL_ASSIGN:
		return token.MUL
	case token.QUO_ASSIGN:
		return token.QUO
	case token.REM_ASSIGN:
		return token.REM
	case token.AND_ASSIGN:
		return token.AND
	case token.OR_ASSIGN:
		return token.OR
	case token.XOR_ASSIGN:
		return token.XOR
	case token.SHL_ASSIGN:
		return token.SHL
	case token.SHR_ASSIGN:
		return token.SHR
	case token.AND_NOT_ASSIGN:
		return token.AND_NOT
	}
	return token.ILLEGAL
}

// sym builds the term of e in activation a. The root of a site that the
// formula does not model is the site's recorded value.
func (e *encoder) sym(a *activation, s *site, x ast.Expr, rootValue int64, root bool) z3.Expr {
	info := s.info
	t := info.TypeOf(x)
	if tv := info.Types[x]; tv.Value != nil {
		return e.constValue(tv.Value, t)
	}
	leaf := func() z3.Expr {
		if root {
			return e.constant(s.typ, rootValue)
		}
		if id, ok := e.prog.leafOf[x]; ok {
			if v, ok := a.leaves[id]; ok {
				return v
			}
		}
		return e.freshOf(t)
	}
	if !modelled(e.prog, info, a.fn, x) {
		return leaf()
	}
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.sym(a, s, x.X, rootValue, root)
	case *ast.Ident:
		v := info.ObjectOf(x).(*types.Var)
		if term, ok := a.env[v]; ok {
			return term
		}
		return e.freshOf(t)
	case *ast.UnaryExpr:
		y := e.sym(a, s, x.X, 0, false)
		switch x.Op {
		case token.NOT:
			return y.AsBool().Not().Expr
		case token.SUB:
			if valueKind(t) == 'f' {
				return y.AsFloat().Neg().Expr
			}
			return y.AsBV().Neg().Expr
		case token.XOR:
			return y.AsBV().Not().Expr
		}
		return y
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND:
			return e.z.And(e.sym(a, s, x.X, 0, false).AsBool(), e.sym(a, s, x.Y, 0, false).AsBool()).Expr
		case token.LOR:
			return e.z.Or(e.sym(a, s, x.X, 0, false).AsBool(), e.sym(a, s, x.Y, 0, false).AsBool()).Expr
		}
		if l, r, ok := e.prog.diffOperands(info, x); ok {
			lt := info.TypeOf(l)
			return e.binary(x.Op, e.sym(a, s, l, 0, false), e.sym(a, s, r, 0, false), lt, lt)
		}
		l := e.sym(a, s, x.X, 0, false)
		r := e.sym(a, s, x.Y, 0, false)
		return e.binary(x.Op, l, r, info.TypeOf(x.X), info.TypeOf(x.Y))
	case *ast.CallExpr:
		if isConversion(info, x) {
			return e.convert(e.sym(a, s, x.Args[0], 0, false), info.TypeOf(x.Args[0]), t)
		}
		if isEqualCall(info, x) {
			// == on the operands: IEEE equality for floats, as DeepEqual and cmp.Equal.
			lt := types.Default(info.TypeOf(x.Args[0]))
			return e.binary(token.EQL, e.sym(a, s, x.Args[0], 0, false), e.sym(a, s, x.Args[1], 0, false), lt, lt)
		}
		if isMathAbs(info, x) {
			return e.sym(a, s, x.Args[0], 0, false).AsFloat().Abs().Expr
		}
		if r, ok := a.calls[x][0]; ok {
			return r
		}
		return leaf()
	}
	return leaf()
}

// convert is Go's conversion of a numeric term between integer and float
// types: integers wrap or extend, floats round to nearest even, and a float
// converted to an integer truncates toward zero.
func (e *encoder) convert(y z3.Expr, from, to types.Type) z3.Expr {
	switch {
	case valueKind(from) == 'f' && valueKind(to) == 'f':
		if isFloat32(from) == isFloat32(to) {
			return y
		}
		return y.AsFloat().Convert(e.floatSort(to)).Expr
	case valueKind(to) == 'f':
		_, signed := bits(from)
		return e.z.FloatFromBV(y.AsBV(), signed || isUntypedNumber(from), e.floatSort(to)).Expr
	case valueKind(from) == 'f':
		return e.floatToInt(y.AsFloat(), from, to)
	}
	x := y.AsBV()
	n, signed := bits(from)
	to2, _ := bits(to)
	if n == to2 {
		return x.Expr
	}
	return x.Convert(to2, signed).Expr
}

func (e *encoder) constValue(v constant.Value, t types.Type) z3.Expr {
	if v.Kind() == constant.Bool {
		return e.z.BoolVal(constant.BoolVal(v)).Expr
	}
	if valueKind(t) == 'f' {
		if b := t.Underlying().(*types.Basic); b.Info()&types.IsUntyped != 0 {
			// An untyped float left so is a shift count (x << 2.0): an integer.
			if i := constant.ToInt(v); i.Kind() == constant.Int {
				return e.constValue(i, types.Typ[types.UntypedInt])
			}
		}
		return e.constant(t, floatBits(v, t))
	}
	if i, ok := constant.Int64Val(v); ok {
		return e.constant(t, i)
	}
	if u, ok := constant.Uint64Val(v); ok {
		n, _ := bits(t)
		return e.z.BVUint(u, n).Expr
	}
	return e.freshOf(t)
}

// binary applies a Go operator with Go's semantics; lt and rt are the
// operand types (they differ only for shifts).
func (e *encoder) binary(op token.Token, l, r z3.Expr, lt, rt types.Type) z3.Expr {
	if valueKind(lt) == 'b' {
		switch op {
		case token.EQL:
			return l.AsBool().Iff(r.AsBool()).Expr
		case token.NEQ:
			return l.AsBool().Xor(r.AsBool()).Expr
		}
		return e.freshOf(types.Typ[types.Bool])
	}
	if (valueKind(lt) == 'f' || valueKind(rt) == 'f') && op != token.SHL && op != token.SHR {
		return e.floatBinary(op, l, r, lt, rt)
	}
	if isUntypedNumber(lt) {
		n, _ := bits(rt)
		if r.Sort().String() != l.Sort().String() {
			l = l.AsBV().Convert(n, true).Expr
		}
	}
	_, signed := bits(lt)
	x, y := l.AsBV(), r.AsBV()
	if op != token.SHL && op != token.SHR && x.Bits() != y.Bits() {
		if x.Bits() < y.Bits() {
			x = x.Convert(y.Bits(), signed)
		} else {
			y = y.Convert(x.Bits(), signed)
		}
	}
	switch op {
	case token.ADD:
		return x.Add(y).Expr
	case token.SUB:
		return x.Sub(y).Expr
	case token.MUL:
		return x.Mul(y).Expr
	case token.QUO:
		return x.Div(y, signed).Expr
	case token.REM:
		return x.Rem(y, signed).Expr
	case token.AND:
		return x.And(y).Expr
	case token.OR:
		return x.Or(y).Expr
	case token.XOR:
		return x.Xor(y).Expr
	case token.AND_NOT:
		return x.AndNot(y).Expr
	case token.SHL:
		return x.GoShl(y).Expr
	case token.SHR:
		return x.GoShr(y, signed).Expr
	case token.EQL:
		return x.Eq(y.Expr).Expr
	case token.NEQ:
		return x.NotEq(y.Expr).Expr
	case token.LSS:
		return x.Less(y, signed).Expr
	case token.LEQ:
		return x.LessEq(y, signed).Expr
	case token.GTR:
		return y.Less(x, signed).Expr
	case token.GEQ:
		return y.LessEq(x, signed).Expr
	}
	return e.freshOf(lt)
}

// floatBinary applies a Go operator to floats: IEEE arithmetic rounding to
// nearest even, comparisons false on NaN and -0 == +0.
func (e *encoder) floatBinary(op token.Token, l, r z3.Expr, lt, rt types.Type) z3.Expr {
	// An operand of another kind is an untyped integer constant left so.
	if valueKind(lt) != 'f' {
		l = e.convert(l, lt, rt)
	} else if valueKind(rt) != 'f' {
		r = e.convert(r, rt, lt)
	}
	x, y := l.AsFloat(), r.AsFloat()
	switch op {
	case token.ADD:
		return x.Add(y).Expr
	case token.SUB:
		return x.Sub(y).Expr
	case token.MUL:
		return x.Mul(y).Expr
	case token.QUO:
		return x.Div(y).Expr
	case token.EQL:
		return x.IEEEEq(y).Expr
	case token.NEQ:
		return x.IEEEEq(y).Not().Expr
	case token.LSS:
		return x.LT(y).Expr
	case token.LEQ:
		return x.LE(y).Expr
	case token.GTR:
		return y.LT(x).Expr
	case token.GEQ:
		return y.LE(x).Expr
	}
	return e.freshOf(lt)
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

// mustNotPanic is the specification of a run that failed by a runtime
// panic: under the path that reached the panicking operation, its operands
// are in range (index below the length, slice bounds ordered up to the
// capacity, divisor non-zero). Operands the formula does not model are
// recorded values that panic, so there the path itself must change.
func (e *encoder) mustNotPanic(a *activation, s *site, ev event, first bool) error {
	k := instKey{s.id, ev.inst}
	limit := e.z.BVInt(ev.value, 64)
	// The operands in order, widened to 64 bits; unsigned comparison also
	// rules out negative values.
	var terms []z3.BV
	modelledAll := true
	for j, b := range s.bounds {
		if b == nil {
			if j == 0 && s.guard == guardSlice {
				terms = append(terms, e.z.BVInt(0, 64)) // x[:hi]
			}
			continue // x[lo:]: the runtime recorded len(x) as the limit
		}
		t, ok := e.complete(a, s, b)
		if !ok {
			modelledAll = false
			break
		}
		_, signed := bits(s.info.TypeOf(b))
		if isUntypedNumber(s.info.TypeOf(b)) {
			signed = true
		}
		bv := t.AsBV()
		if bv.Bits() != 64 {
			bv = bv.Convert(64, signed)
		}
		terms = append(terms, bv)
	}
	safe := e.z.False()
	if modelledAll && len(terms) > 0 {
		switch s.guard {
		case guardIndex:
			safe = terms[0].ULT(limit)
		case guardSlice:
			var chain []z3.Bool
			for j := 0; j+1 < len(terms); j++ {
				chain = append(chain, terms[j].ULE(terms[j+1]))
			}
			safe = e.z.And(append(chain, terms[len(terms)-1].ULE(limit))...)
		case guardDiv:
			safe = terms[0].NotEq(e.z.BVInt(0, 64).Expr)
		}
	}
	spec := a.pc.Implies(safe)
	if err := spec.Err(); err != nil {
		return fmt.Errorf("encoding the panic at %s: %w", s.pos, err)
	}
	if first {
		e.checks++
		e.failing++
	}
	return e.addSpec(spec, first, k)
}

// pendingSpec is a specification met while replaying a forced run.
type pendingSpec struct {
	spec  z3.Bool
	guard instKey // the panicking operation it constrains, if any
}

// addSpec adds a specification. Those of the failing run are hard facts;
// those of a forced run wait until the replay ends (settleSpecs), since
// its recorded operands hold only under its forced values.
func (e *encoder) addSpec(spec z3.Bool, first bool, guard instKey) error {
	if e.spec != nil {
		e.spec(spec, guard)
		return nil
	}
	if e.cause != nil {
		spec = e.cause.guardSpec(e, spec)
	}
	if !first {
		e.pending = append(e.pending, pendingSpec{spec, guard})
		return nil
	}
	if guard != (instKey{}) {
		e.guarded[guard] = true
	}
	return e.addHard(spec)
}

// settleSpecs adds the specifications of a replayed forced run that the
// formula can meet. One it cannot meet whatever the locations' values
// fails on recorded, unmodelled operands: adding it would leave no
// correction at all, so it is left out and concrete is set for the caller
// to exclude the run's forced values instead.
func (e *encoder) settleSpecs() error {
	specs := e.pending
	e.pending = nil
	if len(specs) == 0 {
		return nil
	}
	s, err := e.z.NewSolver()
	if err != nil {
		return fmt.Errorf("creating solver: %w", err)
	}
	if err := s.SetTimeout(5 * time.Second); err != nil {
		return err
	}
	if err := s.Assert(e.hards...); err != nil {
		return err
	}
	for _, p := range specs {
		r, err := s.CheckAssumptions(p.spec)
		if err != nil {
			return fmt.Errorf("checking a specification: %w", err)
		}
		if r == z3.Unsat {
			e.concrete = true
			continue
		}
		if err := s.Assert(p.spec); err != nil {
			return err
		}
		if err := e.addSpec(p.spec, true, p.guard); err != nil {
			return err
		}
	}
	return nil
}

// complete builds the term of a guarded operand, or reports false when an
// operand it does not model was not recorded (its term would be free).
func (e *encoder) complete(a *activation, s *site, x ast.Expr) (z3.Expr, bool) {
	var ok func(x ast.Expr) bool
	ok = func(x ast.Expr) bool {
		info := s.info
		if info.Types[x].Value != nil {
			return true
		}
		if !modelled(e.prog, info, a.fn, x) {
			id, wrapped := e.prog.leafOf[x]
			if !wrapped {
				return false
			}
			_, recorded := a.leaves[id]
			return recorded
		}
		switch x := x.(type) {
		case *ast.ParenExpr:
			return ok(x.X)
		case *ast.Ident:
			_, bound := a.env[info.ObjectOf(x).(*types.Var)]
			return bound
		case *ast.UnaryExpr:
			return ok(x.X)
		case *ast.BinaryExpr:
			return ok(x.X) && ok(x.Y)
		case *ast.CallExpr:
			if isConversion(info, x) || isEqualCall(info, x) || isMathAbs(info, x) {
				for _, arg := range x.Args {
					if !ok(arg) {
						return false
					}
				}
				return true
			}
			_, bound := a.calls[x][0]
			return bound
		}
		return false
	}
	if !ok(x) {
		return z3.Expr{}, false
	}
	return e.sym(a, s, x, 0, false), true
}
