package z3

/*
#include "z3api.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// Result is the outcome of a satisfiability check.
type Result int8

const (
	Unknown Result = iota // timeout, cancellation or incompleteness
	Sat
	Unsat
)

func (r Result) String() string {
	switch r {
	case Sat:
		return "sat"
	case Unsat:
		return "unsat"
	}
	return "unknown"
}

func resultOf(b C.Z3_lbool) Result {
	switch b {
	case C.Z3_L_TRUE:
		return Sat
	case C.Z3_L_FALSE:
		return Unsat
	}
	return Unknown
}

// Solver is an incremental SMT solver (assertions, scopes, checks under
// assumptions, unsat cores, models).
type Solver struct {
	ctx       *Context
	h         *handle
	checkWork uint64 // SetCheckWork's bound
	spent     bool   // the last check was refused or stopped by a work bound
}

func (s *Solver) ptr() C.Z3_solver { return C.Z3_solver(s.h.ptr) }

// NewSolver makes a general-purpose incremental solver bounded by the
// context's timeout.
func (ctx *Context) NewSolver() (*Solver, error) { return ctx.NewSolverForLogic("") }

// NewSolverForLogic makes a solver specialised for an SMT-LIB logic, or a
// general one for "". "QF_FD" (Booleans, bit-vectors and cardinality
// constraints, no arrays or floats) bit-blasts into Z3's incremental SAT
// solver, which is much faster on such formulas under assumptions.
func (ctx *Context) NewSolverForLogic(logic string) (*Solver, error) {
	if err := ctx.enter(); err != nil {
		return nil, err
	}
	var p C.Z3_solver
	if logic == "" {
		p = C.Z3_mk_solver(ctx.c)
	} else {
		cl := C.CString(logic)
		p = C.Z3_mk_solver_for_logic(ctx.c, C.Z3_mk_string_symbol(ctx.c, cl))
		C.free(unsafe.Pointer(cl))
	}
	if err := ctx.lastError("NewSolver"); err != nil {
		return nil, err
	}
	C.Z3_solver_inc_ref(ctx.c, p)
	s := &Solver{ctx: ctx, h: ctx.own(kindSolver, unsafe.Pointer(p))}
	if ctx.timeout > 0 {
		if err := s.SetTimeout(ctx.timeout); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// SetParams sets solver parameters (see Z3's documentation), e.g.
// {"core.minimize": true}. Values: bool, int, uint, float64, string,
// time.Duration (as milliseconds).
func (s *Solver) SetParams(kv map[string]any) error {
	if err := s.ctx.enter(); err != nil {
		return err
	}
	p, err := s.ctx.params(kv)
	if err != nil {
		return err
	}
	defer C.Z3_params_dec_ref(s.ctx.c, p)
	C.Z3_solver_set_params(s.ctx.c, s.ptr(), p)
	return s.ctx.lastError("Solver.SetParams")
}

// SetTimeout bounds each following Check; zero removes the bound.
func (s *Solver) SetTimeout(d time.Duration) error {
	return s.SetParams(map[string]any{"timeout": timeoutParam(d)})
}

// timeoutParam maps "no timeout" to Z3's maximal value (its default).
func timeoutParam(d time.Duration) uint {
	if d <= 0 {
		return 1<<32 - 1
	}
	return uint(durationMillis(d))
}

// Assert adds constraints. It returns the construction error of any of
// them (nothing is asserted then).
func (s *Solver) Assert(bs ...Bool) error {
	if err := s.ctx.ready(boolExprs(bs)...); err != nil {
		return fmt.Errorf("z3: Solver.Assert: %w", err)
	}
	for _, b := range bs {
		C.Z3_solver_assert(s.ctx.c, s.ptr(), b.ast())
		if err := s.ctx.lastError("Solver.Assert"); err != nil {
			return err
		}
	}
	return nil
}

// Push opens a scope; Pop(n) discards the assertions of the n innermost.
func (s *Solver) Push() error {
	if err := s.ctx.enter(); err != nil {
		return err
	}
	C.Z3_solver_push(s.ctx.c, s.ptr())
	return s.ctx.lastError("Solver.Push")
}

// Pop discards the n innermost scopes.
func (s *Solver) Pop(n uint) error {
	if err := s.ctx.enter(); err != nil {
		return err
	}
	if n > s.NumScopes() {
		return fmt.Errorf("z3: Solver.Pop(%d): only %d scopes open", n, s.NumScopes())
	}
	C.Z3_solver_pop(s.ctx.c, s.ptr(), C.uint(n))
	return s.ctx.lastError("Solver.Pop")
}

// NumScopes is the number of open scopes.
func (s *Solver) NumScopes() uint {
	if s.ctx.enter() != nil {
		return 0
	}
	return uint(C.Z3_solver_get_num_scopes(s.ctx.c, s.ptr()))
}

// Check decides the conjunction of the assertions.
func (s *Solver) Check() (Result, error) { return s.CheckAssumptions() }

// CheckAssumptions decides the assertions together with the assumption
// literals (Boolean constants or their negations). After Unsat, UnsatCore
// returns a subset of the assumptions that is inconsistent with the
// assertions. Unknown comes with a nil error: ReasonUnknown says why.
func (s *Solver) CheckAssumptions(assumptions ...Bool) (Result, error) {
	if err := s.ctx.ready(boolExprs(assumptions)...); err != nil {
		return Unknown, fmt.Errorf("z3: Solver.Check: %w", err)
	}
	w, err := s.ctx.limitWork(s.checkWork, s.SetParams)
	s.spent = w.spent
	if err != nil || w.spent {
		return Unknown, err
	}
	var r C.Z3_lbool
	if len(assumptions) == 0 {
		r = C.Z3_solver_check(s.ctx.c, s.ptr())
	} else {
		arr := astArray(assumptions)
		defer C.free(unsafe.Pointer(arr))
		r = C.Z3_solver_check_assumptions(s.ctx.c, s.ptr(), C.uint(len(assumptions)), arr)
	}
	if err := s.ctx.lastError("Solver.Check"); err != nil {
		return Unknown, err
	}
	s.spent = r == C.Z3_L_UNDEF && s.ctx.reached(w)
	return resultOf(r), nil
}

// astArray copies terms into a C array (the caller frees it).
func astArray(bs []Bool) *C.Z3_ast {
	mem := C.malloc(C.size_t(len(bs)) * C.size_t(unsafe.Sizeof(C.Z3_ast(nil))))
	arr := unsafe.Slice((*C.Z3_ast)(mem), len(bs))
	for i, b := range bs {
		arr[i] = b.ast()
	}
	return (*C.Z3_ast)(mem)
}

// ReasonUnknown explains the last Unknown result (e.g. "timeout",
// "canceled").
func (s *Solver) ReasonUnknown() string {
	if s.ctx.enter() != nil {
		return ErrClosed.Error()
	}
	if s.spent {
		return ReasonWorkSpent
	}
	return C.GoString(C.Z3_solver_get_reason_unknown(s.ctx.c, s.ptr()))
}

// UnsatCore returns, after an Unsat CheckAssumptions, the assumptions in
// the core. Z3 does not guarantee the core is minimal.
func (s *Solver) UnsatCore() ([]Bool, error) {
	if err := s.ctx.enter(); err != nil {
		return nil, err
	}
	v := C.Z3_solver_get_unsat_core(s.ctx.c, s.ptr())
	if err := s.ctx.lastError("Solver.UnsatCore"); err != nil {
		return nil, err
	}
	return s.ctx.vectorBools(v, "Solver.UnsatCore")
}

// vectorBools copies an AST vector into owned terms and releases it.
func (ctx *Context) vectorBools(v C.Z3_ast_vector, op string) ([]Bool, error) {
	C.Z3_ast_vector_inc_ref(ctx.c, v)
	defer C.Z3_ast_vector_dec_ref(ctx.c, v)
	n := int(C.Z3_ast_vector_size(ctx.c, v))
	out := make([]Bool, n)
	for i := range n {
		out[i] = Bool{ctx.wrap(op, C.Z3_ast_vector_get(ctx.c, v, C.uint(i)))}
		if err := out[i].err; err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Model returns the model of the last Sat check.
func (s *Solver) Model() (*Model, error) {
	if err := s.ctx.enter(); err != nil {
		return nil, err
	}
	return s.ctx.wrapModel("Solver.Model", C.Z3_solver_get_model(s.ctx.c, s.ptr()))
}

// String prints the assertions in SMT-LIB syntax.
func (s *Solver) String() string {
	if s.ctx.enter() != nil {
		return ErrClosed.Error()
	}
	return C.GoString(C.Z3_solver_to_string(s.ctx.c, s.ptr()))
}

// Optimize is Z3's optimizing solver, used here for weighted soft
// constraints (MaxSMT).
type Optimize struct {
	ctx       *Context
	h         *handle
	checkWork uint64 // SetCheckWork's bound
	spent     bool   // the last check was refused or stopped by a work bound
}

func (o *Optimize) ptr() C.Z3_optimize { return C.Z3_optimize(o.h.ptr) }

// NewOptimize makes an optimizing solver bounded by the context's timeout.
func (ctx *Context) NewOptimize() (*Optimize, error) {
	if err := ctx.enter(); err != nil {
		return nil, err
	}
	p := C.Z3_mk_optimize(ctx.c)
	if err := ctx.lastError("NewOptimize"); err != nil {
		return nil, err
	}
	C.Z3_optimize_inc_ref(ctx.c, p)
	o := &Optimize{ctx: ctx, h: ctx.own(kindOptimize, unsafe.Pointer(p))}
	if ctx.timeout > 0 {
		if err := o.SetTimeout(ctx.timeout); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// SetParams sets optimizer parameters; value types as in Solver.SetParams.
func (o *Optimize) SetParams(kv map[string]any) error {
	if err := o.ctx.enter(); err != nil {
		return err
	}
	p, err := o.ctx.params(kv)
	if err != nil {
		return err
	}
	defer C.Z3_params_dec_ref(o.ctx.c, p)
	C.Z3_optimize_set_params(o.ctx.c, o.ptr(), p)
	return o.ctx.lastError("Optimize.SetParams")
}

// SetTimeout bounds each following Check; zero removes the bound.
func (o *Optimize) SetTimeout(d time.Duration) error {
	return o.SetParams(map[string]any{"timeout": timeoutParam(d)})
}

// Assert adds hard constraints.
func (o *Optimize) Assert(bs ...Bool) error {
	if err := o.ctx.ready(boolExprs(bs)...); err != nil {
		return fmt.Errorf("z3: Optimize.Assert: %w", err)
	}
	for _, b := range bs {
		C.Z3_optimize_assert(o.ctx.c, o.ptr(), b.ast())
		if err := o.ctx.lastError("Optimize.Assert"); err != nil {
			return err
		}
	}
	return nil
}

// AssertSoft adds a soft constraint of positive weight to the objective
// group (soft constraints of one group are minimised together; "" is a
// valid group name).
func (o *Optimize) AssertSoft(b Bool, weight uint64, group string) error {
	if err := o.ctx.ready(b.Expr); err != nil {
		return fmt.Errorf("z3: Optimize.AssertSoft: %w", err)
	}
	if weight == 0 {
		return errors.New("z3: Optimize.AssertSoft: zero weight")
	}
	cw := C.CString(fmt.Sprint(weight))
	defer C.free(unsafe.Pointer(cw))
	cg := C.CString(group)
	defer C.free(unsafe.Pointer(cg))
	C.Z3_optimize_assert_soft(o.ctx.c, o.ptr(), b.ast(), cw, C.Z3_mk_string_symbol(o.ctx.c, cg))
	return o.ctx.lastError("Optimize.AssertSoft")
}

// Push opens a scope (soft constraints are scoped too).
func (o *Optimize) Push() error {
	if err := o.ctx.enter(); err != nil {
		return err
	}
	C.Z3_optimize_push(o.ctx.c, o.ptr())
	return o.ctx.lastError("Optimize.Push")
}

// Pop discards the innermost scope.
func (o *Optimize) Pop() error {
	if err := o.ctx.enter(); err != nil {
		return err
	}
	C.Z3_optimize_pop(o.ctx.c, o.ptr())
	return o.ctx.lastError("Optimize.Pop")
}

// Check finds an optimal model under the hard constraints and the
// assumptions.
func (o *Optimize) Check(assumptions ...Bool) (Result, error) {
	if err := o.ctx.ready(boolExprs(assumptions)...); err != nil {
		return Unknown, fmt.Errorf("z3: Optimize.Check: %w", err)
	}
	w, err := o.ctx.limitWork(o.checkWork, o.SetParams)
	o.spent = w.spent
	if err != nil || w.spent {
		return Unknown, err
	}
	var arr *C.Z3_ast
	if len(assumptions) > 0 {
		arr = astArray(assumptions)
		defer C.free(unsafe.Pointer(arr))
	}
	r := C.Z3_optimize_check(o.ctx.c, o.ptr(), C.uint(len(assumptions)), arr)
	if err := o.ctx.lastError("Optimize.Check"); err != nil {
		return Unknown, err
	}
	o.spent = r == C.Z3_L_UNDEF && o.ctx.reached(w)
	return resultOf(r), nil
}

// ReasonUnknown explains the last Unknown result.
func (o *Optimize) ReasonUnknown() string {
	if o.ctx.enter() != nil {
		return ErrClosed.Error()
	}
	if o.spent {
		return ReasonWorkSpent
	}
	return C.GoString(C.Z3_optimize_get_reason_unknown(o.ctx.c, o.ptr()))
}

// Model returns the optimal model of the last Sat check.
func (o *Optimize) Model() (*Model, error) {
	if err := o.ctx.enter(); err != nil {
		return nil, err
	}
	return o.ctx.wrapModel("Optimize.Model", C.Z3_optimize_get_model(o.ctx.c, o.ptr()))
}

// MinimalCore shrinks an unsat core (a set of assumption literals that is
// inconsistent with the assertions) to an irreducible one by deletion:
// each literal is dropped in turn and kept out if the rest is still
// inconsistent, reusing the smaller core Z3 returns. Z3's own cores are
// not minimal; fault localisation by unsat cores wants them to be.
func (s *Solver) MinimalCore(core []Bool) ([]Bool, error) {
	cur := append([]Bool(nil), core...)
	for i := 0; i < len(cur); {
		trial := append(append([]Bool(nil), cur[:i]...), cur[i+1:]...)
		r, err := s.CheckAssumptions(trial...)
		if err != nil {
			return nil, fmt.Errorf("z3: MinimalCore: %w", err)
		}
		switch r {
		case Sat: // cur[i] is needed
			i++
		case Unsat:
			smaller, err := s.UnsatCore()
			if err != nil {
				return nil, fmt.Errorf("z3: MinimalCore: %w", err)
			}
			cur = keepOrder(trial, smaller)
		default:
			return nil, fmt.Errorf("z3: MinimalCore: solver gave up: %s", s.ReasonUnknown())
		}
	}
	return cur, nil
}

// keepOrder returns the literals of all that are in sub, in all's order,
// so that the deletion loop's position stays meaningful.
func keepOrder(all, sub []Bool) []Bool {
	in := make(map[uint32]bool, len(sub))
	for _, b := range sub {
		in[b.ID()] = true
	}
	out := all[:0:0]
	for _, b := range all {
		if in[b.ID()] {
			out = append(out, b)
		}
	}
	return out
}
