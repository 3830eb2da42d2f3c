//go:build cgo

package mcs

import (
	"fmt"

	"github.com/faultline-go/faultline/solver/z3"
)

func negations(bs []z3.Bool) []z3.Bool {
	out := make([]z3.Bool, len(bs))
	for i, b := range bs {
		out[i] = b.Not()
	}
	return out
}

func pick(sels []z3.Bool, idx []int) []z3.Bool {
	out := make([]z3.Bool, len(idx))
	for k, i := range idx {
		out[k] = sels[i]
	}
	return out
}

// check runs one bounded solver call under assumptions.
func check(r *run, s *z3.Solver, assumptions []z3.Bool) (z3.Result, error) {
	t, err := r.timeout()
	if err != nil {
		return z3.Unknown, err
	}
	if err := s.SetTimeout(t); err != nil {
		return z3.Unknown, err
	}
	res, err := s.CheckAssumptions(assumptions...)
	if err != nil {
		// A specialised solver may also refuse constraints outside its
		// logic by an exception (the finite-domain solver on sequences).
		return z3.Unknown, fmt.Errorf("%w: %w", errOutsideLogic, err)
	}
	if res == z3.Unknown {
		return res, r.unknown(s.ReasonUnknown())
	}
	return res, nil
}

// hittingSetEngine: the main solver holds the hard constraints and the
// selector implications and is only ever asked "are these selectors
// jointly consistent?"; the hitting-set solver holds, over the selectors
// alone, one clause per unsat core learnt and one per blocked set, and
// proposes minimum-size candidates level by level.
type hittingSetEngine struct {
	ctx  *z3.Context
	main *z3.Solver
	hit  *z3.Solver
	sels *[]z3.Bool
}

func newHittingSetEngine(ctx *z3.Context, logic string, sels *[]z3.Bool) (*hittingSetEngine, error) {
	main, err := ctx.NewSolverForLogic(logic)
	if err != nil {
		return nil, err
	}
	hit, err := ctx.NewSolverForLogic("QF_FD") // Booleans and cardinalities only
	if err != nil {
		return nil, err
	}
	return &hittingSetEngine{ctx: ctx, main: main, hit: hit, sels: sels}, nil
}

func (e *hittingSetEngine) addHard(b z3.Bool) error { return e.main.Assert(b) }

func (e *hittingSetEngine) addSoft(sel, c z3.Bool) error { return e.main.Assert(sel.Implies(c)) }

func (e *hittingSetEngine) block(sels []z3.Bool) error { return e.hit.Assert(e.ctx.Or(sels...)) }

func (e *hittingSetEngine) run(r *run, emit func([]int, *z3.Model) bool) error {
	sels := *e.sels
	index := make(map[uint32]int, len(sels))
	for i, s := range sels {
		index[s.ID()] = i
	}
	negs := negations(sels)
	// Blocking clauses of this enumeration are guarded by runLit and
	// disabled for good when it ends.
	runLit := e.ctx.FreshBool("mcs_run")
	defer e.hit.Assert(runLit.Not())
	for k := 0; k <= r.maxSize; k++ {
		level := e.ctx.FreshBool("mcs_level")
		if err := e.hit.Assert(level.Implies(e.ctx.AtMost(negs, uint(k)))); err != nil {
			return err
		}
		done, err := e.level(r, runLit, level, sels, index, emit)
		if err != nil || done {
			return err
		}
		if err := e.hit.Assert(level.Not()); err != nil {
			return err
		}
	}
	return nil
}

// level enumerates the MCSs of one size; done reports that the whole
// enumeration is over.
func (e *hittingSetEngine) level(r *run, runLit, level z3.Bool, sels []z3.Bool, index map[uint32]int, emit func([]int, *z3.Model) bool) (done bool, err error) {
	for {
		hr, err := check(r, e.hit, []z3.Bool{runLit, level})
		if err != nil || hr == z3.Unsat {
			return false, err
		}
		hm, err := e.hit.Model()
		if err != nil {
			return false, err
		}
		relaxed, err := relaxedIn(hm, sels)
		if err != nil {
			return false, err
		}
		enforced := make([]z3.Bool, 0, len(sels)-len(relaxed))
		next := 0
		for i, s := range sels {
			if next < len(relaxed) && relaxed[next] == i {
				next++
				continue
			}
			enforced = append(enforced, s)
		}
		mr, err := check(r, e.main, enforced)
		if err != nil {
			return false, err
		}
		if mr == z3.Sat {
			m, err := e.main.Model()
			if err != nil {
				return false, err
			}
			if !emit(relaxed, m) || len(relaxed) == 0 {
				return true, nil
			}
			if err := e.hit.Assert(runLit.Implies(e.ctx.Or(pick(sels, relaxed)...))); err != nil {
				return false, err
			}
			continue
		}
		core, err := e.main.UnsatCore()
		if err != nil {
			return false, err
		}
		if len(core) == 0 { // the hard constraints alone are inconsistent
			return true, nil
		}
		// At least one soft constraint of the core must be dropped.
		clause := make([]z3.Bool, len(core))
		for k, c := range core {
			i, ok := index[c.ID()]
			if !ok {
				return false, fmt.Errorf("mcs: core literal %s is not a selector", c)
			}
			clause[k] = sels[i].Not()
		}
		if err := e.hit.Assert(e.ctx.Or(clause...)); err != nil {
			return false, err
		}
	}
}

// levelsEngine: one solver; level k assumes "at most k selectors false"
// and each model found is blocked inside a scope.
type levelsEngine struct {
	ctx  *z3.Context
	s    *z3.Solver
	sels *[]z3.Bool
}

func newLevelsEngine(ctx *z3.Context, logic string, sels *[]z3.Bool) (*levelsEngine, error) {
	s, err := ctx.NewSolverForLogic(logic)
	if err != nil {
		return nil, err
	}
	return &levelsEngine{ctx: ctx, s: s, sels: sels}, nil
}

func (e *levelsEngine) addHard(b z3.Bool) error { return e.s.Assert(b) }

func (e *levelsEngine) addSoft(sel, c z3.Bool) error { return e.s.Assert(sel.Implies(c)) }

func (e *levelsEngine) block(sels []z3.Bool) error { return e.s.Assert(e.ctx.Or(sels...)) }

func (e *levelsEngine) run(r *run, emit func([]int, *z3.Model) bool) error {
	sels := *e.sels
	negs := negations(sels)
	// Clauses of this enumeration are guarded by runLit rather than put in
	// a scope, so what the solver learns survives the enumeration.
	runLit := e.ctx.FreshBool("mcs_run")
	defer e.s.Assert(runLit.Not())
	for k := 0; k <= r.maxSize; k++ {
		level := e.ctx.FreshBool("mcs_level")
		if err := e.s.Assert(level.Implies(e.ctx.AtMost(negs, uint(k)))); err != nil {
			return err
		}
		for {
			res, err := check(r, e.s, []z3.Bool{runLit, level})
			if err != nil {
				return err
			}
			if res == z3.Unsat {
				core, err := e.s.UnsatCore()
				if err != nil {
					return err
				}
				if len(core) == 0 || (len(core) == 1 && core[0].ID() == runLit.ID()) {
					return nil // inconsistent without the size bound: nothing left
				}
				break
			}
			m, err := e.s.Model()
			if err != nil {
				return err
			}
			relaxed, err := relaxedIn(m, sels)
			if err != nil {
				return err
			}
			if !emit(relaxed, m) || len(relaxed) == 0 {
				return nil
			}
			if err := e.s.Assert(runLit.Implies(e.ctx.Or(pick(sels, relaxed)...))); err != nil {
				return err
			}
		}
		if err := e.s.Assert(level.Not()); err != nil {
			return err
		}
	}
	return nil
}

// optimizeEngine: Z3's MaxSMT optimizer with one unit-weight soft
// constraint per selector; each optimum is blocked inside a scope.
type optimizeEngine struct {
	ctx  *z3.Context
	o    *z3.Optimize
	sels *[]z3.Bool
}

func newOptimizeEngine(ctx *z3.Context, sels *[]z3.Bool) (*optimizeEngine, error) {
	o, err := ctx.NewOptimize()
	if err != nil {
		return nil, err
	}
	return &optimizeEngine{ctx: ctx, o: o, sels: sels}, nil
}

func (e *optimizeEngine) addHard(b z3.Bool) error { return e.o.Assert(b) }

func (e *optimizeEngine) addSoft(sel, c z3.Bool) error {
	if err := e.o.Assert(sel.Implies(c)); err != nil {
		return err
	}
	return e.o.AssertSoft(sel, 1, "mcs")
}

func (e *optimizeEngine) block(sels []z3.Bool) error { return e.o.Assert(e.ctx.Or(sels...)) }

func (e *optimizeEngine) run(r *run, emit func([]int, *z3.Model) bool) error {
	sels := *e.sels
	if err := e.o.Push(); err != nil {
		return err
	}
	defer e.o.Pop()
	for {
		t, err := r.timeout()
		if err != nil {
			return err
		}
		if err := e.o.SetTimeout(t); err != nil {
			return err
		}
		res, err := e.o.Check()
		if err != nil {
			return err
		}
		switch res {
		case z3.Unsat:
			return nil
		case z3.Unknown:
			return r.unknown(e.o.ReasonUnknown())
		}
		m, err := e.o.Model()
		if err != nil {
			return err
		}
		relaxed, err := relaxedIn(m, sels)
		if err != nil {
			return err
		}
		if len(relaxed) > r.maxSize || !emit(relaxed, m) || len(relaxed) == 0 {
			return nil
		}
		if err := e.o.Assert(e.ctx.Or(pick(sels, relaxed)...)); err != nil {
			return err
		}
	}
}
