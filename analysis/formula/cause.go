//go:build cgo

package formula

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// causeHooks let the encoder guard each specification by a literal of its
// own, so that an unsat core can leave the specifications out (the cause
// of a critical predicate) and name the one that failed.
type causeHooks struct {
	event int // trace index of the event being replayed
	specs []specLit
}

type specLit struct {
	lit   z3.Bool
	event int
}

func (h *causeHooks) guardSpec(e *encoder, spec z3.Bool) z3.Bool {
	lit := e.z.BoolConst(fmt.Sprintf("spec%d", len(h.specs)))
	h.specs = append(h.specs, specLit{lit, h.event})
	return lit.Implies(spec)
}

// semanticState is the formula of the failing run for cores: the trace
// replayed by the angelic encoder (each statement of non-test code under
// its own literal, test code and recorded operands hard), each condition
// instance's recorded direction under a path literal, and each
// specification under its own literal.
type semanticState struct {
	z      *z3.Context
	enc    *encoder
	solver *z3.Solver
	hooks  *causeHooks
	paths  map[int]z3.Bool // trace index of a condition instance -> its path literal
	order  []int           // those indices, in trace order
	stmts  []z3.Bool       // "statement holds" literal (not ab) of each site
	siteOf map[uint32]int32
	flips  map[int]z3.Bool // trace index -> literal of "the instance took the other direction"
	// deadline ends the search for cores: Z3's timeout bounds each check
	// alone, and a core takes a check per statement.
	deadline time.Time
}

// pastDeadline reports whether the search for cores is out of time.
func (st *semanticState) pastDeadline() bool {
	return !st.deadline.IsZero() && time.Now().After(st.deadline)
}

// interruptAtDeadline interrupts the solver's checks once the deadline
// has passed, until the returned stop is called: a check under way when
// it passes ends then, not at its own timeout.
func (st *semanticState) interruptAtDeadline() (stop func()) {
	return interruptAt(st.z, st.deadline)
}

// interruptAt interrupts z's work from deadline on (none when it is zero)
// until the returned stop is called.
func interruptAt(z *z3.Context, deadline time.Time) (stop func()) {
	if deadline.IsZero() {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		select {
		case <-done:
			return
		case <-timer.C:
		}
		// Z3 does not remember an interrupt: a check that starts
		// afterwards needs another.
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			z.Interrupt()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// Close releases the solver.
func (r *FailingRun) Close() {
	if r.semantic != nil {
		r.semantic.z.Close()
		r.semantic = nil
	}
}

// SetDeadline moves the time at which the semantic questions (Cause,
// PredicateCause) stop: a caller that alternates them with other work
// gives them what is left of their share each time, rather than a
// deadline that the other work uses up.
func (r *FailingRun) SetDeadline(t time.Time) {
	r.deadline = t
	if r.semantic != nil {
		r.semantic.deadline = t
		r.semantic.enc.deadline = t
	}
}

// state encodes the failing run the first time it is asked for.
func (r *FailingRun) state() (*semanticState, error) {
	if r.semantic != nil {
		return r.semantic, nil
	}
	if err := Available(); err != nil {
		return nil, err
	}
	left := time.Until(r.deadline)
	if left <= 0 {
		return nil, instrument.ErrBudget
	}
	z, err := z3.NewContext(z3.Config{Timeout: min(10*time.Second, left)})
	if err != nil {
		return nil, err
	}
	stop := interruptAt(z, r.deadline) // encoding the run checks flows too
	st, err := r.encodeState(z)
	stop()
	if !r.deadline.IsZero() && time.Now().After(r.deadline) && !instrument.BudgetExhausted(err) {
		// Interrupted, the encoding is not to be trusted: whatever it
		// says, the budget ended it.
		err = fmt.Errorf("encoding the failing run: %w", instrument.ErrBudget)
	}
	if err != nil {
		z.Close()
		return nil, err
	}
	r.semantic = st
	return st, nil
}

func (r *FailingRun) encodeState(z *z3.Context) (*semanticState, error) {
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		return nil, err
	}
	hooks := &causeHooks{}
	enc := NewEncoder(z, enum, r.prog)
	enc.cause = hooks
	enc.deadline = r.deadline
	if err := enc.Replay(r.trace, nil, true, r.panic); err != nil {
		return nil, fmt.Errorf("encoding the failing run: %w", err)
	}
	st := &semanticState{z: z, enc: enc, hooks: hooks, paths: map[int]z3.Bool{}, siteOf: map[uint32]int32{}, flips: map[int]z3.Bool{}, deadline: r.deadline}
	st.solver, err = z.NewSolver()
	if err != nil {
		return nil, err
	}
	if err := st.solver.Assert(enc.hards...); err != nil {
		return nil, err
	}
	for i, ev := range r.trace {
		// A check's direction is what the specification is about: it is
		// not part of the path.
		if ev.Site < 0 || int(ev.Site) >= len(r.prog.Sites) || r.prog.Sites[ev.Site].Kind != instrument.KindCond || r.prog.Sites[ev.Site].FailsWhen != 0 {
			continue
		}
		v, ok := enc.vars[instrument.InstKey{Site: ev.Site, Inst: ev.Inst}]
		if !ok {
			continue
		}
		guard := v.AsBool()
		if ev.Value == 0 {
			guard = guard.Not()
		}
		lit := z.BoolConst(fmt.Sprintf("path%d", i))
		if err := st.solver.Assert(lit.Implies(guard)); err != nil {
			return nil, err
		}
		st.paths[i] = lit
		st.order = append(st.order, i)
	}
	ids := make([]int32, 0, len(enc.ab))
	for id := range enc.ab {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		holds := enc.ab[id].Not()
		st.stmts = append(st.stmts, holds)
		st.siteOf[holds.ID()] = id
	}
	return st, nil
}

// Cause returns the statements of non-test code whose effects, along the
// recorded path and with the recorded inputs, force the failed check: a
// minimal unsat core of the formula over the statements' literals. It
// returns an error wrapping ErrNoCheck when the run failed no check the
// formula models, or when the check does not follow from the modelled
// values. A run that panicked in code it does not record (a call into the
// standard library) gives the cause of the last statement recorded before
// the panic, with no statements of its own.
func (r *FailingRun) Cause() (*Cause, error) {
	sink := r.failedCheck()
	if sink < 0 {
		if j := r.unguardedPanic(); j >= 0 {
			// Nothing the formula models failed: the cause is the
			// statement the panic came from, whose critical predicates
			// say why the run got there.
			return &Cause{Outcome: r.statement(j, "the run panicked after this, in code it calls that is not recorded"), Statements: []Statement{}}, nil
		}
		return nil, ErrNoCheck
	}
	st, err := r.state()
	if err != nil {
		return nil, err
	}
	if st.enc.Failing == 0 {
		return nil, ErrNoCheck
	}
	fixed := st.pathLits(-1)
	for _, s := range st.hooks.specs {
		fixed = append(fixed, s.lit)
	}
	core, err := st.minimalCore(fixed)
	if err != nil {
		return nil, err
	}
	if core == nil {
		return nil, fmt.Errorf("%w: the failed check compares values the formula does not model", ErrNoCheck)
	}
	c := &Cause{Outcome: r.statement(sink, "the check fails")}
	c.Statements = r.statementsOf(st, core, sink)
	return c, nil
}

// PredicateCause returns the statements that force the direction the
// predicate's instance took, with the run's other directions and inputs
// fixed: the cause of a critical predicate. A direction that does not
// follow from modelled values gives a cause of the predicate alone.
func (r *FailingRun) PredicateCause(p Predicate) (*Cause, error) {
	st, err := r.state()
	if err != nil {
		return nil, err
	}
	k := p.event
	c := &Cause{Outcome: p.Statement, Predicate: &p}
	if _, ok := st.paths[k]; !ok {
		c.Statements = []Statement{p.Statement}
		return c, nil
	}
	flip, ok := st.flips[k]
	if !ok {
		flip = st.z.BoolConst(fmt.Sprintf("flip%d", k))
		// path -> guard is asserted; the flipped direction is ¬guard.
		v := st.enc.vars[instrument.InstKey{Site: r.trace[k].Site, Inst: r.trace[k].Inst}].AsBool()
		other := v
		if r.trace[k].Value != 0 {
			other = v.Not()
		}
		if err := st.solver.Assert(flip.Implies(other)); err != nil {
			return nil, err
		}
		st.flips[k] = flip
	}
	fixed := append(st.pathLits(k), flip)
	core, err := st.minimalCore(fixed)
	if err != nil {
		return nil, err
	}
	c.Statements = r.statementsOf(st, core, k)
	if !slices.ContainsFunc(c.Statements, func(s Statement) bool { return s.site == p.site }) {
		c.Statements = append(c.Statements, p.Statement)
	}
	return c, nil
}

// pathLits returns the path literals of every condition instance but the
// one at trace index except.
func (st *semanticState) pathLits(except int) []z3.Bool {
	out := make([]z3.Bool, 0, len(st.order))
	for _, i := range st.order {
		if i != except {
			out = append(out, st.paths[i])
		}
	}
	return out
}

// minimalCore returns an irreducible set of statement literals that,
// with the fixed assumptions, is unsatisfiable; nil when even all of them
// are satisfiable.
func (st *semanticState) minimalCore(fixed []z3.Bool) ([]z3.Bool, error) {
	defer st.interruptAtDeadline()()
	check := func(stmts []z3.Bool) (z3.Result, []z3.Bool, error) {
		if st.pastDeadline() {
			return z3.Unknown, nil, fmt.Errorf("the cause's core: %w", instrument.ErrBudget)
		}
		res, err := st.solver.CheckAssumptions(append(slices.Clone(fixed), stmts...)...)
		if err != nil || res != z3.Unsat {
			if err == nil && res == z3.Unknown {
				err = fmt.Errorf("the solver gave up on the cause: %s", st.solver.ReasonUnknown())
				if st.pastDeadline() {
					err = fmt.Errorf("the cause's core: %w", instrument.ErrBudget)
				}
			}
			return res, nil, err
		}
		core, err := st.solver.UnsatCore()
		if err != nil {
			return res, nil, err
		}
		in := map[uint32]bool{}
		for _, b := range core {
			in[b.ID()] = true
		}
		var out []z3.Bool
		for _, b := range stmts {
			if in[b.ID()] {
				out = append(out, b)
			}
		}
		return res, out, nil
	}
	res, cur, err := check(st.stmts)
	if err != nil {
		return nil, err
	}
	if res == z3.Sat {
		return nil, nil
	}
	for i := 0; i < len(cur); {
		trial := append(slices.Clone(cur[:i]), cur[i+1:]...)
		res, smaller, err := check(trial)
		if err != nil {
			return nil, err
		}
		if res == z3.Sat {
			i++
			continue
		}
		cur = smaller
	}
	if cur == nil {
		cur = []z3.Bool{}
	}
	return cur, nil
}

// statementsOf names the sites of a core by their last instance before
// the outcome at trace index before, in the order of the run.
func (r *FailingRun) statementsOf(st *semanticState, core []z3.Bool, before int) []Statement {
	last := map[int32]int{}
	for i, ev := range r.trace {
		if i > before && before >= 0 {
			break
		}
		last[ev.Site] = i
	}
	var idx []int
	for _, b := range core {
		site := st.siteOf[b.ID()]
		i, ok := last[site]
		if !ok {
			continue
		}
		idx = append(idx, i)
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	out := make([]Statement, 0, len(idx))
	for _, i := range idx {
		out = append(out, r.statement(i, ""))
	}
	return out
}

// failedCheck returns the trace index of the run's first failed check: a
// test condition that took its failing direction, the last operand of an
// assertion that did not hold, or the operation that panicked; -1 when
// none is recognised.
func (r *FailingRun) failedCheck() int {
	if r.panic >= 0 {
		return r.panic
	}
	ops := map[*instrument.Assertion][]instrument.Value{}
	for i, ev := range r.trace {
		s := r.prog.SiteOf(ev)
		if s == nil {
			continue
		}
		switch {
		case s.Kind == instrument.KindCond && s.FailsWhen != 0:
			pass := s.FailsWhen == 2
			if (ev.Value != 0) != pass {
				return i
			}
		case s.Kind == instrument.KindAssertArg && s.Assertion != nil:
			as := s.Assertion
			values := ops[as]
			if values == nil {
				values = make([]instrument.Value, len(as.Operands))
				for j, o := range as.Operands {
					if tv := s.Info.Types[o]; tv.Value != nil {
						values[j], _ = instrument.ConstantValue(tv.Value, as.Types[j])
					}
				}
				ops[as] = values
			}
			if s.Index < len(values) {
				values[s.Index] = instrument.ValueOf(ev)
			}
			if s.Id == as.Last {
				delete(ops, as)
				if !assertionHolds(as, values) {
					return i
				}
			}
		}
	}
	return -1
}
