//go:build cgo

package analysis

import (
	"fmt"
	"github.com/faultline-go/faultline/internal/bug"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"time"

	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
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
	watch    *memoryWatch

	ab       map[int32]z3.Bool
	vars     map[instKey]z3.Expr  // value of a site instance
	joins    map[joinKey]z3.Expr  // value of a local after an if or loop instance
	results  map[instKey]sv       // returned value of a function activation
	explored map[instKey]uint8    // condition directions seen: 1 false, 2 true
	original map[instKey]value    // concrete value when first seen unforced
	instOf   map[int32][]instance // encoded instances per site, in order seen
	skipped  map[instKey]bool     // site instances with no term: a value too long to record
	hards    []z3.Bool            // every hard constraint, for choosing values
	failing  int                  // failure-guarding conditions that failed in the first trace
	checks   int
	fresh    int
	guarded  map[instKey]bool // panicking operations whose "must not panic" is encoded
	// earlyBound holds the (return instance, condition instance) pairs
	// whose early return is encoded, so that a replayed trace adds it once.
	earlyBound map[[2]instKey]bool
	// termErr is the first error met adding a constraint that defines a
	// name a term uses.
	termErr error
	// seqs says some site is a string or byte slice.
	seqs bool
	// concreteSeqs (the default) keeps strings and byte slices out of the formula: each
	// is its value in the run, and what is computed from them too (a
	// length, a byte, a comparison). The general solver sequences need is
	// much slower than the finite-domain one, so they are modelled only
	// for a test whose failing run reached a check on them.
	concreteSeqs bool
	// concreteLists, likewise, keeps lists (slices of integers) out of
	// the formula unless the failing run reached a check on one.
	concreteLists bool
	// mapKeys holds the keys met in maps, by map type, for reading a map
	// from a model.
	mapKeys map[string][]value
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
		joins: map[joinKey]z3.Expr{}, results: map[instKey]sv{}, explored: map[instKey]uint8{},
		original: map[instKey]value{}, instOf: map[int32][]instance{}, guarded: map[instKey]bool{},
		skipped: map[instKey]bool{}, earlyBound: map[[2]instKey]bool{}, concreteSeqs: true, concreteLists: true}
}

func (e *encoder) addHard(b z3.Bool) error {
	e.hards = append(e.hards, b)
	return e.enum.AddHard(b)
}

type pendingArg struct {
	target *function
	index  int
	term   sv
}

// returned is what an activation of fn returned: its modelled results by
// index, each equal to the returned expression under the path that reached
// the return.
type returned struct {
	fn    *function
	terms map[int]sv
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
	env    map[*types.Var]sv
	pc     z3.Bool
	frames []frame
	leaves map[int32]sv
	args   []pendingArg
	params map[int]sv
	tags   map[int32]sv // switch tags by site, as last evaluated
	rets   map[int]sv   // this activation's results by index, once returned
	// callee is what the call that just returned to this activation
	// returned, until the call's kindResult event binds it to the call.
	callee *returned
	// calls holds the results of the calls evaluated for the site being
	// read, by call expression and result index.
	calls map[*ast.CallExpr]map[int]sv
	// parallel holds the updates of a multi-assignment until its last pair.
	parallel []func()
	// operands holds the operands of assertions replayed so far.
	operands map[*assertion][]sv
	// early holds the returns of branches not taken that return at once
	// (if err != nil { return 0, err }): under its guard, the activation
	// returns those values instead of the one it reaches.
	early []earlyReturn
}

// earlyReturn is what an activation returns had one condition instance
// taken its other direction: the results by index, under guard (the path
// to the condition and that direction).
type earlyReturn struct {
	cond  instKey
	guard z3.Bool
	terms map[int]sv
}

// sv is a symbolic value of the replay: its term and, when known, the
// value it had in the run being replayed (its concrete value). A value
// with no term (t unset) stands for one the formula cannot speak of, a
// string too long to record; every operation on it has none either.
type sv struct {
	t     z3.Expr
	c     value
	known bool
}

// hasTerm reports whether v has a term.
func (v sv) hasTerm() bool { return v.t.Err() == nil }

// floatSort is the IEEE sort of a float type.
func (e *encoder) floatSort(t types.Type) z3.Sort {
	if isFloat32(t) {
		return e.z.Float32Sort()
	}
	return e.z.Float64Sort()
}

// constant is the term of a recorded integer, Boolean or float (its IEEE
// bits) of type t.
func (e *encoder) constant(t types.Type, v int64) z3.Expr { return e.term(t, value{n: v}) }

// term is the term of a value of type t.
func (e *encoder) term(t types.Type, v value) z3.Expr {
	switch valueKind(t) {
	case 's', 'y':
		return e.z.BytesVal([]byte(v.s)).Expr
	case 'l':
		return e.listTerm(t, v)
	case 'r':
		return e.recordTerm(t, v)
	case 'm':
		return e.mapTerm(t, v)
	case 'e':
		return e.z.BVInt(v.n, errorBits).Expr // its code (errors_is.go)
	case 'b':
		return e.z.BoolVal(v.n != 0).Expr
	case 'f':
		if isFloat32(t) {
			return e.z.Float32Val(math.Float32frombits(uint32(v.n))).Expr
		}
		return e.z.Float64Val(math.Float64frombits(uint64(v.n))).Expr
	}
	n, _ := bits(t)
	return e.z.BVInt(v.n, n).Expr
}

// lit is the value v of type t as a constant of the formula; a string too
// long to record has no term.
func (e *encoder) lit(t types.Type, v value) sv {
	if v.opaque {
		return sv{}
	}
	if e.concreteSeqs && isSeq(t) || e.concreteLists && (isList(t) || isMap(t)) {
		return sv{c: v, known: true}
	}
	return sv{t: e.term(t, v), c: v, known: true}
}

// concreteValue is the value of type t computed from operands that are not all
// in the formula: known when they all were, a constant then (a string
// without a term when strings are concrete).
func (e *encoder) concreteValue(t types.Type, c value, known bool) sv {
	if !known {
		return sv{}
	}
	return e.lit(t, c)
}

// sortOf is the sort of the terms of type t.
func (e *encoder) sortOf(t types.Type) z3.Sort {
	switch valueKind(t) {
	case 's', 'y':
		return e.z.ByteSeqSort()
	case 'l':
		return e.listSortOf(t)
	case 'r':
		return e.z.BVSort(recordBits(t))
	case 'm':
		return e.mapSortOf(t)
	case 'e':
		return e.z.BVSort(errorBits)
	case 'b':
		return e.z.BoolSort()
	case 'f':
		return e.floatSort(t)
	}
	n, _ := bits(t)
	return e.z.BVSort(n)
}

// freshOf is a new unconstrained term of type t, its concrete value
// unknown; no term for a type the formula does not model (a pointer, a
// struct that is no record: an error's dynamic type, say), whose values
// stay the run's.
func (e *encoder) freshOf(t types.Type) sv {
	if !hasSort(t) || e.concreteSeqs && isSeq(t) || e.concreteLists && (isList(t) || isMap(t)) {
		return sv{}
	}
	e.fresh++
	return sv{t: e.z.Const(fmt.Sprintf("free%d", e.fresh), e.sortOf(t))}
}

// hasSort reports whether sortOf knows t: a kind the formula models, or a
// basic type (taken as an integer).
func hasSort(t types.Type) bool {
	if t == nil {
		return false
	}
	_, basic := t.Underlying().(*types.Basic)
	return basic || valueKind(t) != 0
}

// freshLike is a new unconstrained term of the sort of v, with v's
// concrete value: the join of a local whose value v had on the path taken.
func (e *encoder) freshLike(v sv) sv {
	e.fresh++
	return sv{t: e.z.Const(fmt.Sprintf("join%d", e.fresh), v.t.Sort()), c: v.c, known: v.known}
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

// siteVar returns the value of a site instance, encoding its variable the
// first time: equal to term, hard in test code, guarded by the statement's
// ab literal elsewhere. Its concrete value is the recorded one. A term
// that is not there (a string too long to record) leaves the instance out
// of the formula.
func (e *encoder) siteVar(s *site, ev event, term sv) (sv, error) {
	k := instKey{s.id, ev.inst}
	out := sv{c: valueOf(ev), known: !ev.opaque}
	if v, ok := e.vars[k]; ok {
		out.t = v
		return out, nil
	}
	if !term.hasTerm() {
		e.skipped[k] = true
		return sv{c: valueOf(ev), known: !ev.opaque}, nil
	}
	if !hasSort(s.typ) || term.t.Sort().String() != e.sortOf(s.typ).String() {
		// The term is not of the site's type: the encoder took an
		// expression for another kind. The site stays concrete.
		bug.Reportf("site %s (%s) of type %s encoded as a term of sort %s", s.text, s.pos, s.typ, term.t.Sort())
		e.skipped[k] = true
		return sv{c: valueOf(ev), known: !ev.opaque}, nil
	}
	v := e.z.Const(fmt.Sprintf("s%d_%d_%d", s.id, ev.inst.act, ev.inst.local), term.t.Sort())
	e.seqs = e.seqs || isSeq(s.typ) || isList(s.typ) || isMap(s.typ)
	e.vars[k] = v
	e.instOf[s.id] = append(e.instOf[s.id], ev.inst)
	out.t = v
	eq := v.Eq(term.t)
	if s.hard {
		return out, e.addHard(eq)
	}
	ab, err := e.abOf(s)
	if err != nil {
		return out, err
	}
	if valueKind(s.typ) == 'e' {
		if err := e.addHard(e.errorCodes(v)); err != nil {
			return out, err
		}
	}
	return out, e.addHard(e.z.Or(ab, eq))
}

// checked is the term a site's value is equal to: the modelled term, or
// the recorded value when the modelled one had another value in this run
// (something the formula does not model made the difference) or has no
// term. A forced instance's recorded value is the forced one, so its term
// is not checked.
func (e *encoder) checked(t types.Type, term sv, ev event, forced bool) sv {
	rec := e.lit(t, valueOf(ev))
	if !term.hasTerm() {
		return rec
	}
	if forced || !term.known || ev.opaque {
		return term
	}
	if !sameValue(t, term.c, valueOf(ev)) {
		return rec
	}
	return term
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
				k := instKey{s.id, ev.inst}
				if _, ok := e.vars[k]; !ok && !e.skipped[k] {
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
			e.original[k] = valueOf(ev)
		}
		if s.kind == kindEnter {
			a := &activation{fn: s.fn, env: map[*types.Var]sv{}, pc: e.z.True(), leaves: map[int32]sv{}, params: map[int]sv{},
				tags: map[int32]sv{}, rets: map[int]sv{}, calls: map[*ast.CallExpr]map[int]sv{}}
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
			terms := map[int]sv{}
			if callee != nil && callee.fn == e.prog.callee(s.info, call) {
				terms = callee.terms
			} else if s.typ != nil {
				terms[0] = e.lit(s.typ, valueOf(ev)) // the callee was not replayed
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
			if !ok || !sameSort(term, e.sortOf(s.typ)) {
				term = e.lit(s.typ, valueOf(ev))
			} else {
				term = e.checked(s.typ, term, ev, forced[k])
			}
			if e.param != nil {
				if input, ok := e.param(s, ev); ok {
					term = sv{t: input}
				}
			}
			if s.obj != nil {
				a.env[s.obj] = term
			}
		case kindLeaf:
			a.leaves[s.id] = e.lit(s.typ, valueOf(ev))
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
				a.env[s.obj] = e.lit(s.typ, valueOf(ev))
			}
		case kindArg, kindAssign, kindReturn, kindCond, kindIncDec, kindTag:
			var term sv
			if s.tag != nil {
				term = e.caseTerm(a, s)
			} else if s.kind == kindIncDec {
				old, ok := a.env[s.obj]
				if !ok {
					old = e.freshOf(s.typ)
				}
				op := token.ADD
				if s.op == token.DEC {
					op = token.SUB
				}
				term = e.binary(op, old, e.lit(s.typ, e.one(s.typ)), s.typ, s.typ)
			} else if s.recorded {
				term = e.lit(s.typ, valueOf(ev)) // the run's dynamic type decides
			} else if s.tuple {
				term = e.component(a, s, ev)
			} else {
				term = e.sym(a, s, s.expr, &ev)
			}
			if term.hasTerm() {
				if err := term.t.Err(); err != nil {
					return fmt.Errorf("encoding %s at %s: %w", s.text, s.pos, err)
				}
			}
			term = e.checked(s.typ, term, ev, forced[k])
			v, err := e.siteVar(s, ev, term)
			if err != nil {
				return err
			}
			var target *seqTarget
			if s.kind == kindAssign && s.lhs != nil {
				target = e.lvalue(a, s, s.lhs)
			}
			if s.kind != kindArg && (!s.tuple || s.last) {
				// An argument is recorded in the middle of its caller's
				// expression, whose other operands are still to be read;
				// a result of a call with several, before the others.
				a.leaves = map[int32]sv{}
				a.calls = map[*ast.CallExpr]map[int]sv{}
			}
			switch s.kind {
			case kindArg:
				a.args = append(a.args, pendingArg{s.target, s.index, v})
			case kindAssign, kindIncDec:
				if s.obj != nil {
					var next sv
					if s.op == token.ASSIGN || s.op == token.DEFINE || s.kind == kindIncDec {
						next = v
					} else if old, ok := a.env[s.obj]; ok {
						next = e.binary(opOfAssign(s.op), old, v, s.obj.Type(), s.typ)
					} else {
						next = e.freshOf(s.obj.Type())
					}
					obj := s.obj
					a.parallel = append(a.parallel, func() { a.env[obj] = next })
				} else if target != nil {
					op := s.op
					a.parallel = append(a.parallel, func() { e.storeTo(a, target, op, v) })
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
				if !ok && v.hasTerm() {
					r = e.freshLike(v)
					e.results[rk] = r
					ok = true
				}
				if ok && v.hasTerm() {
					if err := e.addHard(a.pc.Implies(r.t.Eq(v.t))); err != nil {
						return err
					}
					if err := e.bindEarly(a, rk, s.index, r); err != nil {
						return err
					}
				}
				r.c, r.known = v.c, v.known
				a.rets[s.index] = r
			case kindCond:
				b := v
				if !b.hasTerm() {
					b = e.lit(s.typ, valueOf(ev))
				}
				if err := e.branch(a, s, ev, b.t.AsBool(), first); err != nil {
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
	if e.termErr != nil {
		return e.termErr
	}
	if !first {
		return e.settleSpecs()
	}
	return nil
}

// sameSort reports whether v has a term of sort s.
func sameSort(v sv, s z3.Sort) bool {
	return v.hasTerm() && v.t.Sort().String() == s.String()
}

// one is 1 in type t, for x++ and x--.
func (e *encoder) one(t types.Type) value {
	if valueKind(t) == 'f' {
		return floatValue(t, 1)
	}
	return value{n: 1}
}

// component is the term of one result of a call with several: what the
// callee returned at that index, or the recorded value when it was not
// replayed or the result is not modelled there.
func (e *encoder) component(a *activation, s *site, ev event) sv {
	if r, ok := a.calls[s.expr.(*ast.CallExpr)][s.index]; ok && sameSort(r, e.sortOf(s.typ)) {
		return r
	}
	return e.lit(s.typ, valueOf(ev))
}

// caseTerm is the condition of a case of a tagged switch: the tag, as the
// switch last evaluated it, equals the case value.
func (e *encoder) caseTerm(a *activation, s *site) sv {
	tag, ok := a.tags[s.tag.id]
	if !ok {
		tag = e.freshOf(s.tag.typ)
	}
	return e.binary(token.EQL, tag, e.sym(a, s, s.expr, nil), s.tag.typ, s.info.TypeOf(s.expr))
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
	if r, ok := e.earlyReturn(a, s, ev.value != 0); ok {
		r.cond, r.guard = k, e.z.And(a.pc, guard.Not())
		a.early = append(a.early, r)
	}
	a.pc = e.z.And(a.pc, guard)
	return nil
}

// earlyReturn gives the results of the branch an if condition did not take
// when that branch is a return statement alone, of expressions the formula
// can evaluate where the condition was: without it, the results of every
// path that leaves the recorded one are free, and any value change that
// reaches an if err != nil { return ... } makes its function return
// whatever the check needs, a correction that only a forced run disproves.
// A function that defers a call is left out (the call may change its
// results after the return), and so are results the formula does not
// model. taken is the direction the run took.
func (e *encoder) earlyReturn(a *activation, s *site, taken bool) (earlyReturn, bool) {
	ifs, ok := s.stmt.(*ast.IfStmt)
	if !ok || ifs.Cond != s.expr || a.fn.defers {
		return earlyReturn{}, false
	}
	var other ast.Stmt = ifs.Body
	if taken {
		other = ifs.Else
	}
	block, ok := other.(*ast.BlockStmt)
	if !ok || len(block.List) == 0 {
		return earlyReturn{}, false
	}
	ret, ok := block.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != len(a.fn.results) || len(ret.Results) == 0 {
		return earlyReturn{}, false // a bare return, or return f() of several results
	}
	// Nothing of the recorded path is read there: only the locals, as
	// they were at the condition.
	scratch := &activation{fn: a.fn, env: a.env, leaves: map[int32]sv{}, calls: map[*ast.CallExpr]map[int]sv{}}
	terms := map[int]sv{}
	for i, x := range ret.Results {
		t := a.fn.results[i]
		if valueKind(t) == 0 {
			continue
		}
		v := e.sym(scratch, s, x, nil)
		if !sameSort(v, e.sortOf(t)) {
			continue
		}
		terms[i] = v
	}
	return earlyReturn{terms: terms}, len(terms) > 0
}

// bindEarly binds a returned value r (the return instance rk, result index)
// to what each early return of the activation so far would have returned
// under its guard; the guards exclude the path that reached rk.
func (e *encoder) bindEarly(a *activation, rk instKey, index int, r sv) error {
	for _, er := range a.early {
		v, ok := er.terms[index]
		if !ok || e.earlyBound[[2]instKey{rk, er.cond}] {
			continue
		}
		if err := e.addHard(er.guard.Implies(r.t.Eq(v.t))); err != nil {
			return err
		}
	}
	for _, er := range a.early {
		e.earlyBound[[2]instKey{rk, er.cond}] = true
	}
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
		if !cur.hasTerm() {
			delete(a.env, v)
			continue
		}
		jk := joinKey{f.cond.id, f.inst, v}
		j, ok := e.joins[jk]
		if !ok {
			j = e.freshLike(cur).t
			e.joins[jk] = j
		}
		if err := e.addHard(a.pc.Implies(j.Eq(cur.t))); err != nil {
			return err
		}
		a.env[v] = sv{t: j, c: cur.c, known: cur.known}
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

// mustNotPanic is the specification of a run that failed by a runtime
// panic: under the path that reached the panicking operation, its operands
// are in range (index below the length, slice bounds ordered up to the
// capacity, divisor non-zero). Operands the formula does not model are
// recorded values that panic, so there the path itself must change.
func (e *encoder) mustNotPanic(a *activation, s *site, ev event, first bool) error {
	k := instKey{s.id, ev.inst}
	limit := e.z.BVInt(ev.value, 64)
	// A string or byte slice the formula models gives its length as a term.
	if s.guard != guardDiv && len(s.bounds) > 0 {
		if x, ok := e.complete(a, s, s.indexed); ok && isSeq(s.info.TypeOf(s.indexed)) {
			limit = e.seqLen(x.t.AsSeq())
		}
	}
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
		bv := t.t.AsBV()
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
	// Each check is bounded by what is left of the test's budget too: a
	// forced run can bring many specifications, and 5 s each would overrun
	// the budget many times over.
	timeout := 5 * time.Second
	if !e.deadline.IsZero() {
		timeout = min(timeout, time.Until(e.deadline))
		if timeout <= 0 {
			return errBudget
		}
	}
	if err := s.SetTimeout(timeout); err != nil {
		return err
	}
	if err := s.Assert(e.hards...); err != nil {
		return err
	}
	for _, p := range specs {
		if !e.deadline.IsZero() && time.Now().After(e.deadline) {
			return errBudget
		}
		r, err := s.CheckAssumptions(p.spec)
		if err != nil {
			return fmt.Errorf("checking a specification: %w", err)
		}
		if r == z3.Unknown && e.watch.tripped() {
			return errSolverMemory // interrupted: the specification is neither met nor unmet
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
func (e *encoder) complete(a *activation, s *site, x ast.Expr) (sv, bool) {
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
			v, isVar := info.ObjectOf(x).(*types.Var)
			_, bound := a.env[v]
			return isVar && bound
		case *ast.UnaryExpr:
			return ok(x.X)
		case *ast.BinaryExpr:
			return ok(x.X) && ok(x.Y)
		case *ast.IndexExpr:
			return ok(x.X) && ok(x.Index)
		case *ast.SliceExpr:
			for _, b := range []ast.Expr{x.X, x.Low, x.High, x.Max} {
				if b != nil && !ok(b) {
					return false
				}
			}
			return true
		case *ast.CallExpr:
			if _, bound := a.calls[x][0]; bound {
				return true
			}
			for _, arg := range x.Args {
				if !ok(arg) {
					return false
				}
			}
			return e.prog.callee(info, x) == nil
		}
		return false
	}
	if x == nil || !ok(x) {
		return sv{}, false
	}
	v := e.sym(a, s, x, nil)
	return v, v.hasTerm()
}
