//go:build cgo

// Package mcs enumerates minimal correction subsets (MCSs) of a
// constraint system: hard constraints that must hold and tagged soft
// constraints that may be dropped. An MCS is a set of soft constraints
// whose removal makes the rest satisfiable while no proper subset does;
// each comes with a model of the remaining constraints. MCSs are
// delivered smallest first, one at a time, and the constraint system can
// grow between enumerations without losing what the solver has learnt.
// The package speaks only of constraints and tags: what a soft constraint
// stands for is the caller's business.
//
// # Usage
//
//	ctx, _ := z3.NewContext(z3.Config{})
//	defer ctx.Close()
//	enum, err := mcs.New[string](ctx, mcs.Options{})
//	if err != nil { ... }
//	enum.AddHard(inputs, expectation)
//	enum.AddSoft("line 3", ab3.Not())
//	for c, err := range enum.Enumerate(goctx, mcs.Bounds{MaxSize: 3, Budget: 5 * time.Second}) {
//		if err != nil { ... }       // budget exhausted, cancelled or a solver error
//		use(c.Tags, c.Model)
//		enum.Block(c)               // never report this set again
//		// or: break, AddHard/AddSoft to refine, and enumerate again
//	}
//
// Within one enumeration every reported set is excluded from the rest of
// that enumeration; Block excludes it from later ones too. An MCS is
// minimal with respect to the blocked sets: a superset of a blocked set is
// never reported. If the hard constraints alone are unsatisfiable there is
// no MCS and the enumeration yields nothing.
//
// # Algorithms
//
// Levels (the default) keeps everything in one incremental solver: for
// k = 0, 1, ... it assumes "at most k soft constraints dropped" (a native
// cardinality constraint over selector literals), takes each model as an
// MCS and blocks it, until level k is exhausted. HittingSet is an
// implicit-hitting-set enumeration: the main solver only checks candidate
// sets under assumptions and returns unsat cores, which a small Boolean
// solver turns into minimum-size candidates; the cores are kept across
// enumerations. OptimizeBlocking asks Z3's MaxSMT optimizer for one
// optimum at a time and blocks it. Levels and HittingSet run by default
// on Z3's finite-domain solver (bit-blasting into incremental SAT) and
// move to the general solver when the constraints need it (Options.Logic).
// Levels measured fastest on program-shaped formulas: 3-6x faster than
// OptimizeBlocking on chains of 12-24 statements, 6 s where Optimize did
// not finish in 90 s on 48, and on a par (tens of ms) on small random
// instances; see bench/solver.md. Cores of program formulas span whole
// data-flow chains, which makes hitting sets weak there.
package mcs

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/faultline-go/faultline/solver/z3"
)

// Algorithm selects the enumeration strategy.
type Algorithm int

const (
	Levels           Algorithm = iota // cardinality levels in one incremental solver (default)
	HittingSet                        // core-guided implicit hitting sets
	OptimizeBlocking                  // Z3 Optimize with soft constraints plus blocking
)

func (a Algorithm) String() string {
	switch a {
	case HittingSet:
		return "hitting-set"
	case Levels:
		return "levels"
	case OptimizeBlocking:
		return "optimize"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// Options configures an Enumerator.
type Options struct {
	Algorithm Algorithm
	// Logic selects the solver behind HittingSet and Levels. The default,
	// AutoLogic, starts with FiniteDomainLogic (Booleans and bit-vectors
	// bit-blasted into Z3's incremental SAT solver, several times faster
	// on such constraints) and switches to GeneralLogic, replaying the
	// constraints, as soon as they leave that fragment (floats, arrays,
	// integers...). Any other value is an SMT-LIB logic name passed to
	// z3.Context.NewSolverForLogic.
	Logic string
}

// Solver logics for Options.Logic.
const (
	AutoLogic         = ""
	FiniteDomainLogic = "QF_FD"
	GeneralLogic      = "ALL"
)

// Bounds limits one enumeration.
type Bounds struct {
	// MaxSize is the largest MCS reported; 0 means no limit.
	MaxSize int
	// Budget bounds the enumeration's wall-clock time, solver calls
	// included; 0 means no limit. Each solver call also respects the
	// z3.Context's timeout.
	Budget time.Duration
}

// ErrBudgetExhausted is yielded when the budget (or the context's
// deadline, or the z3.Context's work bound) runs out before the
// enumeration is complete.
var ErrBudgetExhausted = errors.New("mcs: time budget exhausted")

// Correction is one minimal correction subset.
type Correction[T any] struct {
	// Tags of the soft constraints to drop, in the order they were added.
	Tags []T
	// Soft holds the indices of those constraints (0 = first AddSoft).
	Soft []int
	// Model satisfies the hard constraints and every other soft one.
	Model *z3.Model
}

// Enumerator holds a growing constraint system and enumerates its MCSs.
// Like its z3.Context, it must be used by one goroutine at a time.
type Enumerator[T any] struct {
	ctx     *z3.Context
	opts    Options
	logic   string // the solver logic in use
	tags    []T
	sels    []z3.Bool // selector per soft constraint: true means enforced
	soft    []z3.Bool // the soft constraints, kept for replay
	hard    []z3.Bool // kept for replay when the solver changes
	blocked [][]int
	running bool
	pending [][]int // Block calls made during an enumeration
	eng     engine
}

// engine is one enumeration algorithm. Soft constraint i is represented
// by the selector sels[i], with sels[i] → constraint asserted by addSoft.
type engine interface {
	addHard(b z3.Bool) error
	addSoft(sel, constraint z3.Bool) error
	block(sels []z3.Bool) error
	run(r *run, emit func(relaxed []int, m *z3.Model) bool) error
}

// New makes an empty Enumerator over ctx.
func New[T any](ctx *z3.Context, opts Options) (*Enumerator[T], error) {
	e := &Enumerator[T]{ctx: ctx, opts: opts, logic: opts.Logic}
	if e.logic == AutoLogic {
		e.logic = FiniteDomainLogic
	}
	eng, err := e.newEngine()
	if err != nil {
		return nil, err
	}
	e.eng = eng
	return e, nil
}

func (e *Enumerator[T]) newEngine() (engine, error) {
	var eng engine
	var err error
	logic := e.logic
	if logic == GeneralLogic {
		logic = ""
	}
	switch e.opts.Algorithm {
	case HittingSet:
		eng, err = newHittingSetEngine(e.ctx, logic, &e.sels)
	case Levels:
		eng, err = newLevelsEngine(e.ctx, logic, &e.sels)
	case OptimizeBlocking:
		eng, err = newOptimizeEngine(e.ctx, &e.sels)
	default:
		return nil, fmt.Errorf("mcs: unknown algorithm %v", e.opts.Algorithm)
	}
	if err != nil {
		return nil, fmt.Errorf("mcs: new %v enumerator: %w", e.opts.Algorithm, err)
	}
	return eng, nil
}

// switchToGeneral rebuilds the engine on the general solver and replays
// the constraint system (learnt cores are lost, nothing else).
func (e *Enumerator[T]) switchToGeneral() error {
	e.logic = GeneralLogic
	eng, err := e.newEngine()
	if err != nil {
		return err
	}
	for _, h := range e.hard {
		if err := eng.addHard(h); err != nil {
			return fmt.Errorf("mcs: replay hard constraint: %w", err)
		}
	}
	for i, sel := range e.sels {
		if err := eng.addSoft(sel, e.soft[i]); err != nil {
			return fmt.Errorf("mcs: replay soft constraint: %w", err)
		}
	}
	for _, set := range e.blocked {
		if err := eng.block(e.selectors(set)); err != nil {
			return fmt.Errorf("mcs: replay block: %w", err)
		}
	}
	e.eng = eng
	return nil
}

// Algorithm reports the strategy in use.
func (e *Enumerator[T]) Algorithm() Algorithm { return e.opts.Algorithm }

// Logic reports the solver logic in use (FiniteDomainLogic or
// GeneralLogic under AutoLogic).
func (e *Enumerator[T]) Logic() string { return e.logic }

// NumSoft is the number of soft constraints added so far.
func (e *Enumerator[T]) NumSoft() int { return len(e.sels) }

var errRunning = errors.New("mcs: constraints cannot change during an enumeration; break out of the loop first")

// AddHard adds constraints that every reported model satisfies.
func (e *Enumerator[T]) AddHard(bs ...z3.Bool) error {
	if e.running {
		return errRunning
	}
	for _, b := range bs {
		if err := e.eng.addHard(b); err != nil {
			return fmt.Errorf("mcs: add hard constraint: %w", err)
		}
		e.hard = append(e.hard, b)
	}
	return nil
}

// AddSoft adds a soft constraint standing for tag and returns its index.
func (e *Enumerator[T]) AddSoft(tag T, b z3.Bool) (int, error) {
	if e.running {
		return 0, errRunning
	}
	if err := b.Err(); err != nil {
		return 0, fmt.Errorf("mcs: add soft constraint %v: %w", tag, err)
	}
	sel := e.ctx.FreshBool("mcs_sel")
	if err := sel.Err(); err != nil {
		return 0, fmt.Errorf("mcs: add soft constraint %v: %w", tag, err)
	}
	if err := e.eng.addSoft(sel, b); err != nil {
		return 0, fmt.Errorf("mcs: add soft constraint %v: %w", tag, err)
	}
	e.tags = append(e.tags, tag)
	e.sels = append(e.sels, sel)
	e.soft = append(e.soft, b)
	return len(e.sels) - 1, nil
}

// Block excludes c (and its supersets) from every later enumeration: at
// least one of its soft constraints will hold. During an enumeration it
// takes effect when the enumeration ends (c is already excluded from the
// rest of it).
func (e *Enumerator[T]) Block(c Correction[T]) error { return e.BlockSoft(c.Soft) }

// BlockSoft is Block by soft-constraint indices.
func (e *Enumerator[T]) BlockSoft(soft []int) error {
	for _, i := range soft {
		if i < 0 || i >= len(e.sels) {
			return fmt.Errorf("mcs: block: no soft constraint %d (have %d)", i, len(e.sels))
		}
	}
	set := append([]int(nil), soft...)
	if e.running {
		e.pending = append(e.pending, set)
		return nil
	}
	return e.block(set)
}

func (e *Enumerator[T]) block(set []int) error {
	if err := e.eng.block(e.selectors(set)); err != nil {
		return fmt.Errorf("mcs: block %v: %w", set, err)
	}
	e.blocked = append(e.blocked, set)
	return nil
}

func (e *Enumerator[T]) selectors(idx []int) []z3.Bool {
	out := make([]z3.Bool, len(idx))
	for k, i := range idx {
		out[k] = e.sels[i]
	}
	return out
}

// Enumerate yields the MCSs of the current constraint system not yet
// blocked, by increasing size, until none is left, MaxSize is passed, the
// budget runs out (ErrBudgetExhausted) or the caller stops. An error is
// always the last item.
func (e *Enumerator[T]) Enumerate(goctx context.Context, b Bounds) iter.Seq2[Correction[T], error] {
	return func(yield func(Correction[T], error) bool) {
		if e.running {
			yield(Correction[T]{}, errors.New("mcs: Enumerate called during an enumeration"))
			return
		}
		if b.MaxSize < 0 || b.Budget < 0 {
			yield(Correction[T]{}, fmt.Errorf("mcs: invalid bounds %+v", b))
			return
		}
		r := newRun(goctx, b, e.ctx.Timeout(), len(e.sels))
		e.running = true
		defer func() { e.running = false }() // also when the loop body panics
		var stopped, emitted bool
		emit := func(relaxed []int, m *z3.Model) bool {
			c := Correction[T]{Soft: relaxed, Model: m, Tags: make([]T, len(relaxed))}
			for k, i := range relaxed {
				c.Tags[k] = e.tags[i]
			}
			emitted = true
			stopped = !yield(c, nil)
			return !stopped
		}
		err := e.eng.run(r, emit)
		// The constraints left the finite-domain fragment: the first
		// check of the enumeration says so, before anything is reported.
		if errors.Is(err, errOutsideLogic) && e.opts.Logic == AutoLogic && !emitted {
			if err = e.switchToGeneral(); err == nil {
				err = e.eng.run(r, emit)
			}
		}
		e.running = false
		pending := e.pending
		e.pending = nil
		for _, set := range pending {
			if berr := e.block(set); berr != nil && err == nil {
				err = berr
			}
		}
		if err != nil && !stopped {
			yield(Correction[T]{}, err)
		}
	}
}

// run carries the limits of one enumeration to the engines.
type run struct {
	goctx       context.Context
	deadline    time.Time
	hasDeadline bool
	callTimeout time.Duration
	maxSize     int
}

func newRun(goctx context.Context, b Bounds, callTimeout time.Duration, numSoft int) *run {
	r := &run{goctx: goctx, callTimeout: callTimeout, maxSize: b.MaxSize}
	if r.maxSize == 0 || r.maxSize > numSoft {
		r.maxSize = numSoft
	}
	if b.Budget > 0 {
		r.deadline, r.hasDeadline = time.Now().Add(b.Budget), true
	}
	if d, ok := goctx.Deadline(); ok && (!r.hasDeadline || d.Before(r.deadline)) {
		r.deadline, r.hasDeadline = d, true
	}
	return r
}

// timeout is the bound for the next solver call, or an error when the
// enumeration must stop.
func (r *run) timeout() (time.Duration, error) {
	if err := r.goctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, ErrBudgetExhausted
		}
		return 0, fmt.Errorf("mcs: %w", err)
	}
	t := r.callTimeout
	if r.hasDeadline {
		left := time.Until(r.deadline)
		if left <= 0 {
			return 0, ErrBudgetExhausted
		}
		if t == 0 || left < t {
			t = left
		}
	}
	return t, nil
}

// errOutsideLogic marks a specialised solver's refusal of constraints
// outside its logic.
var errOutsideLogic = errors.New("mcs: constraints outside the solver's logic")

// unknown explains an Unknown solver answer.
func (r *run) unknown(reason string) error {
	if r.hasDeadline && !time.Now().Before(r.deadline) || reason == z3.ReasonWorkSpent {
		return ErrBudgetExhausted
	}
	if strings.Contains(reason, "sat.giveup") { // Z3's finite-domain solver
		return fmt.Errorf("%w: %s", errOutsideLogic, reason)
	}
	return fmt.Errorf("mcs: solver gave up: %s", reason)
}

// relaxedIn lists the soft constraints whose selector is false in m.
func relaxedIn(m *z3.Model, sels []z3.Bool) ([]int, error) {
	var out []int
	for i, s := range sels {
		v, err := m.Bool(s)
		if err != nil {
			return nil, fmt.Errorf("mcs: read selector %d: %w", i, err)
		}
		if !v {
			out = append(out, i)
		}
	}
	return out, nil
}
