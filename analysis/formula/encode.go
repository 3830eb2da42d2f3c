//go:build cgo

package formula

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/internal/bug"

	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// instance names a dynamic instance of a site: the activation of its
// function (counted per function) and the count within that activation.
// Unlike a global count, it stays put when a forced value makes an earlier
// loop run longer.
type joinKey struct {
	site int32
	inst instrument.Instance
	v    *types.Var
}

// encoder holds the angelic formula of one failing test: every site
// instance replayed so far, shared by all the traces that reached it, so
// that refinement only adds.
type encoder struct {
	z        *z3.Context
	enum     *mcs.Enumerator[int32]
	prog     *instrument.Program
	deadline time.Time // the test's budget: a long trace stops being encoded there
	watch    *memoryWatch

	ab       map[int32]z3.Bool
	vars     map[instrument.InstKey]z3.Expr          // value of a site instance
	joins    map[joinKey]z3.Expr                     // value of a local after an if or loop instance
	results  map[instrument.InstKey]sv               // returned value of a function activation
	explored map[instrument.InstKey]uint8            // condition directions seen: 1 false, 2 true
	original map[instrument.InstKey]instrument.Value // concrete value when first seen unforced
	instOf   map[int32][]instrument.Instance         // encoded instances per site, in order seen
	skipped  map[instrument.InstKey]bool             // site instances with no term: a value too long to record
	hards    []z3.Bool                               // every hard constraint, for choosing values
	Failing  int                                     // failure-guarding conditions that failed in the first trace
	checks   int
	fresh    int
	guarded  map[instrument.InstKey]bool // panicking operations whose "must not panic" is encoded
	// earlyBound holds the (return instance, condition instance) pairs
	// whose early return is encoded, so that a replayed trace adds it once.
	earlyBound map[[2]instrument.InstKey]bool
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
	mapKeys map[string][]instrument.Value
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
	param func(s *instrument.Site, ev instrument.Event) (z3.Expr, bool)
	spec  func(spec z3.Bool, guard instrument.InstKey)
	// cause, when set, guards each specification by a literal of its
	// own, for the unsat cores of a regression explanation (cause.go).
	cause *causeHooks
}

func NewEncoder(z *z3.Context, enum *mcs.Enumerator[int32], prog *instrument.Program) *encoder {
	return &encoder{z: z, enum: enum, prog: prog, ab: map[int32]z3.Bool{}, vars: map[instrument.InstKey]z3.Expr{},
		joins: map[joinKey]z3.Expr{}, results: map[instrument.InstKey]sv{}, explored: map[instrument.InstKey]uint8{},
		original: map[instrument.InstKey]instrument.Value{}, instOf: map[int32][]instrument.Instance{}, guarded: map[instrument.InstKey]bool{},
		skipped: map[instrument.InstKey]bool{}, earlyBound: map[[2]instrument.InstKey]bool{}, concreteSeqs: true, concreteLists: true}
}

func (e *encoder) addHard(b z3.Bool) error {
	e.hards = append(e.hards, b)
	return e.enum.AddHard(b)
}

type pendingArg struct {
	target *instrument.Function
	index  int
	term   sv
}

// returned is what an activation of fn returned: its modelled results by
// index, each equal to the returned expression under the path that reached
// the return.
type returned struct {
	fn    *instrument.Function
	terms map[int]sv
}

type frame struct {
	cond    *instrument.Site
	inst    instrument.Instance
	before  z3.Bool
	escapes bool
}

// activation is one replayed call of an instrumented function.
type activation struct {
	fn     *instrument.Function
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
	operands map[*instrument.Assertion][]sv
	// early holds the returns of branches not taken that return at once
	// (if err != nil { return 0, err }): under its guard, the activation
	// returns those values instead of the one it reaches.
	early []earlyReturn
}

// earlyReturn is what an activation returns had one condition instance
// taken its other direction: the results by index, under guard (the path
// to the condition and that direction).
type earlyReturn struct {
	cond  instrument.InstKey
	guard z3.Bool
	terms map[int]sv
}

// sv is a symbolic value of the replay: its term and, when known, the
// value it had in the run being replayed (its concrete value). A value
// with no term (t unset) stands for one the formula cannot speak of, a
// string too long to record; every operation on it has none either.
type sv struct {
	t     z3.Expr
	c     instrument.Value
	known bool
}

// hasTerm reports whether v has a term.
func (v sv) hasTerm() bool { return v.t.Err() == nil }

// floatSort is the IEEE sort of a float type.
func (e *encoder) floatSort(t types.Type) z3.Sort {
	if instrument.IsFloat32(t) {
		return e.z.Float32Sort()
	}
	return e.z.Float64Sort()
}

// constant is the term of a recorded integer, Boolean or float (its IEEE
// bits) of type t.
func (e *encoder) constant(t types.Type, v int64) z3.Expr { return e.term(t, instrument.Value{N: v}) }

// term is the term of a value of type t.
func (e *encoder) term(t types.Type, v instrument.Value) z3.Expr {
	switch instrument.ValueKind(t) {
	case 's', 'y':
		return e.z.BytesVal([]byte(v.S)).Expr
	case 'l':
		return e.listTerm(t, v)
	case 'r':
		return e.recordTerm(t, v)
	case 'm':
		return e.mapTerm(t, v)
	case 'e':
		return e.z.BVInt(v.N, instrument.ErrorBits).Expr // its code (errors_is.go)
	case 'b':
		return e.z.BoolVal(v.N != 0).Expr
	case 'f':
		if instrument.IsFloat32(t) {
			return e.z.Float32Val(math.Float32frombits(uint32(v.N))).Expr
		}
		return e.z.Float64Val(math.Float64frombits(uint64(v.N))).Expr
	}
	n, _ := instrument.Bits(t)
	return e.z.BVInt(v.N, n).Expr
}

// lit is the value v of type t as a constant of the formula; a string too
// long to record has no term.
func (e *encoder) lit(t types.Type, v instrument.Value) sv {
	if v.Opaque {
		return sv{}
	}
	if e.concreteSeqs && instrument.IsSeq(t) || e.concreteLists && (instrument.IsList(t) || instrument.IsMap(t)) {
		return sv{c: v, known: true}
	}
	return sv{t: e.term(t, v), c: v, known: true}
}

// concreteValue is the value of type t computed from operands that are not all
// in the formula: known when they all were, a constant then (a string
// without a term when strings are concrete).
func (e *encoder) concreteValue(t types.Type, c instrument.Value, known bool) sv {
	if !known {
		return sv{}
	}
	return e.lit(t, c)
}

// sortOf is the sort of the terms of type t.
func (e *encoder) sortOf(t types.Type) z3.Sort {
	switch instrument.ValueKind(t) {
	case 's', 'y':
		return e.z.ByteSeqSort()
	case 'l':
		return e.listSortOf(t)
	case 'r':
		return e.z.BVSort(instrument.RecordBits(t))
	case 'm':
		return e.mapSortOf(t)
	case 'e':
		return e.z.BVSort(instrument.ErrorBits)
	case 'b':
		return e.z.BoolSort()
	case 'f':
		return e.floatSort(t)
	}
	n, _ := instrument.Bits(t)
	return e.z.BVSort(n)
}

// freshOf is a new unconstrained term of type t, its concrete value
// unknown; no term for a type the formula does not model (a pointer, a
// struct that is no record: an error's dynamic type, say), whose values
// stay the run's.
func (e *encoder) freshOf(t types.Type) sv {
	if !hasSort(t) || e.concreteSeqs && instrument.IsSeq(t) || e.concreteLists && (instrument.IsList(t) || instrument.IsMap(t)) {
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
	return basic || instrument.ValueKind(t) != 0
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
	n, signed := instrument.Bits(to)
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
	if instrument.IsFloat32(t) {
		return e.z.Float32Val(float32(v))
	}
	return e.z.Float64Val(v)
}

func (e *encoder) abOf(s *instrument.Site) (z3.Bool, error) {
	if ab, ok := e.ab[s.Id]; ok {
		return ab, nil
	}
	ab := e.z.BoolConst(fmt.Sprintf("ab%d", s.Id))
	e.ab[s.Id] = ab
	if _, err := e.enum.AddSoft(s.Id, ab.Not()); err != nil {
		return ab, fmt.Errorf("adding the soft constraint of %s: %w", s.Text, err)
	}
	return ab, nil
}

// siteVar returns the value of a site instance, encoding its variable the
// first time: equal to term, hard in test code, guarded by the statement's
// ab literal elsewhere. Its concrete value is the recorded one. A term
// that is not there (a string too long to record) leaves the instance out
// of the formula.
func (e *encoder) siteVar(s *instrument.Site, ev instrument.Event, term sv) (sv, error) {
	k := instrument.InstKey{Site: s.Id, Inst: ev.Inst}
	out := sv{c: instrument.ValueOf(ev), known: !ev.Opaque}
	if v, ok := e.vars[k]; ok {
		out.t = v
		return out, nil
	}
	if !term.hasTerm() {
		e.skipped[k] = true
		return sv{c: instrument.ValueOf(ev), known: !ev.Opaque}, nil
	}
	if !hasSort(s.Typ) || term.t.Sort().String() != e.sortOf(s.Typ).String() {
		// The term is not of the site's type: the encoder took an
		// expression for another kind. The site stays concrete.
		bug.Reportf("site %s (%s) of type %s encoded as a term of sort %s", s.Text, s.Pos, s.Typ, term.t.Sort())
		e.skipped[k] = true
		return sv{c: instrument.ValueOf(ev), known: !ev.Opaque}, nil
	}
	v := e.z.Const(fmt.Sprintf("s%d_%d_%d", s.Id, ev.Inst.Act, ev.Inst.Local), term.t.Sort())
	e.seqs = e.seqs || instrument.IsSeq(s.Typ) || instrument.IsList(s.Typ) || instrument.IsMap(s.Typ)
	e.vars[k] = v
	e.instOf[s.Id] = append(e.instOf[s.Id], ev.Inst)
	out.t = v
	eq := v.Eq(term.t)
	if s.Hard {
		return out, e.addHard(eq)
	}
	ab, err := e.abOf(s)
	if err != nil {
		return out, err
	}
	if instrument.ValueKind(s.Typ) == 'e' {
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
func (e *encoder) checked(t types.Type, term sv, ev instrument.Event, forced bool) sv {
	rec := e.lit(t, instrument.ValueOf(ev))
	if !term.hasTerm() {
		return rec
	}
	if forced || !term.known || ev.Opaque {
		return term
	}
	if !instrument.SameValue(t, term.c, instrument.ValueOf(ev)) {
		return rec
	}
	return term
}

// novel reports whether a trace reaches a site instance or condition
// direction the formula does not encode yet, or panics at an operation
// (trace[panicAt], -1 for none) it does not constrain yet.
func (e *encoder) novel(trace []instrument.Event, panicAt int) bool {
	if panicAt >= 0 && !e.guarded[instrument.InstKey{Site: trace[panicAt].Site, Inst: trace[panicAt].Inst}] {
		return true
	}
	for _, ev := range trace {
		if int(ev.Site) >= len(e.prog.Sites) {
			continue
		}
		s := e.prog.Sites[ev.Site]
		switch s.Kind {
		case instrument.KindAssign, instrument.KindIncDec, instrument.KindReturn, instrument.KindArg, instrument.KindTag:
			if !s.Hard {
				k := instrument.InstKey{Site: s.Id, Inst: ev.Inst}
				if _, ok := e.vars[k]; !ok && !e.skipped[k] {
					return true
				}
			}
		case instrument.KindCond:
			if e.explored[instrument.InstKey{Site: s.Id, Inst: ev.Inst}]&direction(ev.Value) == 0 {
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
func (e *encoder) Replay(trace []instrument.Event, forced map[instrument.InstKey]bool, first bool, panicAt int) error {
	var stack []*activation
	for i, ev := range trace {
		if i%1024 == 0 && !e.deadline.IsZero() && time.Now().After(e.deadline) {
			return instrument.ErrBudget
		}
		s := e.prog.SiteOf(ev)
		if s == nil {
			return fmt.Errorf("trace names unknown site %d", ev.Site)
		}
		if e.cause != nil {
			e.cause.event = i
		}
		k := instrument.InstKey{Site: s.Id, Inst: ev.Inst}
		if _, ok := e.original[k]; !ok && !forced[k] {
			e.original[k] = instrument.ValueOf(ev)
		}
		if s.Kind == instrument.KindEnter {
			a := &activation{fn: s.Fn, env: map[*types.Var]sv{}, pc: e.z.True(), leaves: map[int32]sv{}, params: map[int]sv{},
				tags: map[int32]sv{}, rets: map[int]sv{}, calls: map[*ast.CallExpr]map[int]sv{}}
			if len(stack) > 0 {
				caller := stack[len(stack)-1]
				for _, p := range caller.args {
					if p.target == s.Fn {
						a.params[p.index] = p.term
					}
				}
				caller.args = nil
			}
			stack = append(stack, a)
			continue
		}
		if len(stack) == 0 || stack[len(stack)-1].fn != s.Fn {
			continue // another goroutine, or code outside any replayed call
		}
		a := stack[len(stack)-1]
		// A call's results are bound only by the event right after its
		// return: one whose result is ignored must not feed a later call.
		callee := a.callee
		a.callee = nil
		switch s.Kind {
		case instrument.KindResult:
			call := s.Expr.(*ast.CallExpr)
			terms := map[int]sv{}
			if callee != nil && callee.fn == e.prog.Callee(s.Info, call) {
				terms = callee.terms
			} else if s.Typ != nil {
				terms[0] = e.lit(s.Typ, instrument.ValueOf(ev)) // the callee was not replayed
			}
			a.calls[call] = terms
		case instrument.KindLeave:
			// Statements still open are left by a return or a panic: no
			// code of this activation runs after them, so their joins are
			// not bound. Binding them under the path so far would claim
			// the values for every run that shares that path's prefix.
			a.frames = nil
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && len(a.rets) > 0 {
				stack[len(stack)-1].callee = &returned{a.fn, a.rets}
			}
		case instrument.KindParam:
			term, ok := a.params[s.Index]
			if !ok || !sameSort(term, e.sortOf(s.Typ)) {
				term = e.lit(s.Typ, instrument.ValueOf(ev))
			} else {
				term = e.checked(s.Typ, term, ev, forced[k])
			}
			if e.param != nil {
				if input, ok := e.param(s, ev); ok {
					term = sv{t: input}
				}
			}
			if s.Obj != nil {
				a.env[s.Obj] = term
			}
		case instrument.KindLeaf:
			a.leaves[s.Id] = e.lit(s.Typ, instrument.ValueOf(ev))
		case instrument.KindAssertArg:
			if err := e.assertOperand(a, s, ev, first); err != nil {
				return fmt.Errorf("encoding the assertion on %s at %s: %w", s.Text, s.Pos, err)
			}
		case instrument.KindGuard:
			if i == panicAt {
				if err := e.mustNotPanic(a, s, ev, first); err != nil {
					return err
				}
			}
		case instrument.KindDef:
			if s.Obj != nil {
				a.env[s.Obj] = e.lit(s.Typ, instrument.ValueOf(ev))
			}
		case instrument.KindArg, instrument.KindAssign, instrument.KindReturn, instrument.KindCond, instrument.KindIncDec, instrument.KindTag:
			var term sv
			if s.Tag != nil {
				term = e.caseTerm(a, s)
			} else if s.Kind == instrument.KindIncDec {
				old, ok := a.env[s.Obj]
				if !ok {
					old = e.freshOf(s.Typ)
				}
				op := token.ADD
				if s.Op == token.DEC {
					op = token.SUB
				}
				term = e.binary(op, old, e.lit(s.Typ, e.one(s.Typ)), s.Typ, s.Typ)
			} else if s.Recorded {
				term = e.lit(s.Typ, instrument.ValueOf(ev)) // the run's dynamic type decides
			} else if s.Tuple {
				term = e.component(a, s, ev)
			} else {
				term = e.sym(a, s, s.Expr, &ev)
			}
			if term.hasTerm() {
				if err := term.t.Err(); err != nil {
					return fmt.Errorf("encoding %s at %s: %w", s.Text, s.Pos, err)
				}
			}
			term = e.checked(s.Typ, term, ev, forced[k])
			v, err := e.siteVar(s, ev, term)
			if err != nil {
				return err
			}
			var target *seqTarget
			if s.Kind == instrument.KindAssign && s.Lhs != nil {
				target = e.lvalue(a, s, s.Lhs)
			}
			if s.Kind != instrument.KindArg && (!s.Tuple || s.Last) {
				// An argument is recorded in the middle of its caller's
				// expression, whose other operands are still to be read;
				// a result of a call with several, before the others.
				a.leaves = map[int32]sv{}
				a.calls = map[*ast.CallExpr]map[int]sv{}
			}
			switch s.Kind {
			case instrument.KindArg:
				a.args = append(a.args, pendingArg{s.Target, s.Index, v})
			case instrument.KindAssign, instrument.KindIncDec:
				if s.Obj != nil {
					var next sv
					if s.Op == token.ASSIGN || s.Op == token.DEFINE || s.Kind == instrument.KindIncDec {
						next = v
					} else if old, ok := a.env[s.Obj]; ok {
						next = e.binary(opOfAssign(s.Op), old, v, s.Obj.Type(), s.Typ)
					} else {
						next = e.freshOf(s.Obj.Type())
					}
					obj := s.Obj
					a.parallel = append(a.parallel, func() { a.env[obj] = next })
				} else if target != nil {
					op := s.Op
					a.parallel = append(a.parallel, func() { e.storeTo(a, target, op, v) })
				}
				if !s.Parallel || s.Last {
					for _, f := range a.parallel {
						f()
					}
					a.parallel = nil
				}
			case instrument.KindReturn:
				rk := instrument.InstKey{Site: s.Id, Inst: ev.Inst}
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
					if err := e.bindEarly(a, rk, s.Index, r); err != nil {
						return err
					}
				}
				r.c, r.known = v.c, v.known
				a.rets[s.Index] = r
			case instrument.KindCond:
				b := v
				if !b.hasTerm() {
					b = e.lit(s.Typ, instrument.ValueOf(ev))
				}
				if err := e.branch(a, s, ev, b.t.AsBool(), first); err != nil {
					return err
				}
			case instrument.KindTag:
				a.tags[s.Id] = v
			}
		case instrument.KindJoin:
			// The outermost frame of the statement: a switch pushes one
			// per case evaluated.
			outer := -1
			for i := len(a.frames) - 1; i >= 0; i-- {
				if a.frames[i].cond.Stmt == s.Stmt {
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
