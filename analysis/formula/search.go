//go:build cgo

package formula

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/types"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/replace"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// maxRefinements bounds the refinements made for one set of locations.
const maxRefinements = 4

// analyzeTest runs Algorithm 1 of AgxFaults for one failing test: encode
// the failing trace, enumerate minimal correction subsets smallest first,
// run the test with each candidate's angelic values forced, add what a
// failing forced run reaches that the formula lacks and enumerate again,
// and report the candidates whose forced run passed.
//
// Work bounds the analysis, so that it finds the same candidates however
// loaded the machine is: the runs (Options.MaxRuns) and the solver's work
// (Options.SolverWork), shared between the phases. bin.Deadline, the
// wall-clock cap, is only a safety net: no run, encoding or solver call
// goes past it, and a result it cuts short keeps the candidates verified
// so far and returns instrument.ErrBudget.
// search fills res with the candidates of one failing test.
func Search(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, opts result.Options, res *result.TestResult) error {
	first, err := bin.Run(ctx, t.Test, nil)
	if err != nil {
		return err
	}
	if first.Memory != nil {
		return fmt.Errorf("the failing run %w", first.Memory)
	}
	if first.TimedOut {
		// The trace ends at no failing check, and forced runs that still
		// hang take as long: the analysis would spend its wall-clock cap
		// on them.
		res.Notes = append(res.Notes, fmt.Sprintf("the test did not end within %s: a run that hangs reaches no failing check to explain", bin.Timeout))
		return nil
	}
	// A forced run may loop: bound it by the failing run's own duration.
	bin.Timeout = min(opts.RunTimeout, max(2*time.Second, 20*first.Elapsed))
	if first.Passed {
		res.Notes = append(res.Notes, "the test passes: nothing to fix")
		return nil
	}
	if first.Truncated {
		res.Notes = append(res.Notes, fmt.Sprintf("the failing run is longer than %d recorded events: not analysed", instrument.MaxTraceEvents))
		return nil
	}
	if len(first.Trace) == 0 {
		res.Notes = append(res.Notes, "the test recorded nothing (did it run?)")
		return nil
	}
	sliceStart := time.Now()
	failing := &FailingRun{Target: t, prog: prog, trace: first.Trace, output: first.Output,
		panic: instrument.PanicAt(prog, first), files: map[string]*fileSyntax{}}
	res.Slice = failing.Slice()
	res.SliceTime = time.Since(sliceStart)
	if !bin.Deadline.IsZero() {
		// The slice is evidence beside the search, not part of it: the
		// search keeps its whole budget.
		bin.Deadline = bin.Deadline.Add(res.SliceTime)
	}
	deadline := bin.Deadline
	formulaOpts := runShare(bin, opts, formulaShare, 4)
	reached, err := searchFormula(ctx, prog, bin, t, first, formulaOpts, res, deadline)
	cut := errors.Is(err, instrument.ErrBudget) || bin.Runs >= formulaOpts.MaxRuns
	if errors.Is(err, instrument.ErrBudget) && time.Now().Before(deadline) {
		res.Notes = append(res.Notes, fmt.Sprintf("the formula used its solver work (%d/4 of the budget's); value replacement has the runs left", formulaShare))
		err = nil
	}
	if err != nil {
		return err
	}
	if cut && !result.HasVerified(res) {
		// A formula stopped before it verified anything says nothing of
		// the sites it models: value replacement tries them too.
		reached = false
	}
	if err := fallBack(ctx, prog, bin, t, first, deadline, opts, res, reached); err != nil {
		return err
	}
	return MarkAvoiding(ctx, bin, t, CheckReachOf(prog, first), opts, res)
}

// formulaShare is the formula's share of the runs left, and of the
// budget's solver work, in quarters: when it runs out, value replacement
// and predicate switching still have the rest of the runs, which is where
// a fault the formula cannot reach is found.
const formulaShare = 3

// searchFormula encodes the failing run and enumerates and verifies its
// corrections until its solver work (formulaShare/4 of the budget's) or
// its runs are spent, reporting whether the formula reached the failing
// check (found a correction to try); deadline is the wall-clock cap. Its
// solver context, and the
// memory it holds, is freed when it returns, before the fallbacks run.
func searchFormula(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, first *instrument.RunResult, opts result.Options, res *result.TestResult, deadline time.Time) (bool, error) {
	z, err := z3.NewContext(z3.Config{Timeout: max(time.Until(deadline), time.Millisecond), Work: opts.SolverWork() * formulaShare / 4, Hold: true})
	if err != nil {
		return false, err
	}
	defer z.Close()
	watch := WatchSolverMemory(z, uint64(max(opts.SolverMemory, 0)))
	defer watch.Stop() // before z.Close
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		return false, err
	}
	enc := NewEncoder(z, enum, prog)
	reach := CheckReachOf(prog, first)
	enc.deadline = deadline
	enc.watch = watch
	if t.Test == opts.PanicIn() {
		panic("a panic injected into the encoding of " + t.Test)
	}
	seqsChecked := checksSeqs(prog, first.Trace, instrument.PanicAt(prog, first))
	enc.concreteSeqs = !opts.Strings || !seqsChecked
	res.StringsConcrete = !opts.Strings && seqsChecked
	enc.concreteLists = !checksLists(prog, first.Trace)
	// outgrown ends the search when the formula passed the memory bound:
	// once the watch tripped, an error or answer of the solver may come
	// from an interrupted check and says nothing about the formula.
	outgrown := func() bool {
		if !watch.Tripped() {
			return false
		}
		res.Notes = append(res.Notes, watch.Note())
		return true
	}
	if err := enc.Replay(first.Trace, nil, true, instrument.PanicAt(prog, first)); err != nil && !watch.Tripped() {
		return false, err
	}
	if outgrown() {
		return false, nil
	}
	if enc.Failing == 0 {
		res.Notes = append(res.Notes, "no recognised check failed (recognised: `if cond { t.Error/Fatal... }` and testify and quicktest assertions on integers, floats, Booleans, strings and errors in test code, index, slice, division, nil pointer, nil map and panic-call panics in non-test code)")
		return false, nil
	}
	enumerated := 0
	stopped := false            // by the memory bound: the formula's search was not complete
	refined := map[string]int{} // refinements per candidate location set
	for {
		if stopped = outgrown(); stopped {
			break
		}
		left := time.Until(deadline)
		if left <= 0 {
			return enumerated > 0, instrument.ErrBudget
		}
		solveStart := time.Now()
		var pending []mcs.Correction[int32]
		var lastErr error
		for c, err := range enum.Enumerate(ctx, mcs.Bounds{MaxSize: opts.MaxSize, Budget: left}) {
			if err != nil {
				lastErr = err
				break
			}
			pending = append(pending, c)
			break // one at a time: a refinement changes the formula
		}
		res.Solve += time.Since(solveStart)
		if stopped = outgrown(); stopped {
			break
		}
		if lastErr != nil {
			if errors.Is(lastErr, mcs.ErrBudgetExhausted) {
				return enumerated > 0, instrument.ErrBudget
			}
			if ctx.Err() != nil {
				return enumerated > 0, lastErr
			}
			// One solver call out of its time (a hard float formula, say)
			// bounds this test's analysis like the budget, not the others'.
			res.Notes = append(res.Notes, fmt.Sprintf("enumeration stopped: %v", lastErr))
			break
		}
		if len(pending) == 0 {
			if enumerated == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("no fix of at most %d locations: the failing check does not depend on modelled values, or needs more locations", opts.MaxSize))
			}
			break
		}
		enumerated++
		c := pending[0]
		if len(c.Soft) == 0 {
			res.Notes = append(res.Notes, "the formula is satisfiable without a fix: the failure is outside what is modelled")
			break
		}
		if bin.Runs >= opts.MaxRuns {
			res.Notes = append(res.Notes, fmt.Sprintf("run bound (%d) reached", opts.MaxRuns))
			break
		}
		solveStart = time.Now()
		m, err := enc.closestModel(c, max(time.Until(deadline), time.Millisecond))
		if err == nil && m != nil {
			c.Model = m
		}
		if err == nil {
			m, err = enc.narrow(c, c.Model, deadline)
		}
		res.Solve += time.Since(solveStart)
		if stopped = outgrown(); stopped {
			break
		}
		if err != nil {
			return enumerated > 0, err
		}
		c.Model = m
		cand, force, err := enc.candidate(c)
		if err != nil {
			return enumerated > 0, err
		}
		cand.Force, cand.Found = force, result.FoundBySolver
		run, err := bin.Run(ctx, t.Test, force)
		if err != nil {
			return enumerated > 0, err
		}
		// Refining the same locations again and again means their angelic
		// path keeps unrolling a loop: bound it like the paper bounds loops.
		tags := fmt.Sprint(c.Tags)
		// A failing run that reaches what the formula lacks refines it; one
		// that does not, or fails on values the formula does not model,
		// excludes its values so that the next nearest are tried.
		if !run.Passed && !run.Truncated && refined[tags] < maxRefinements {
			refined[tags]++
			panicked := instrument.PanicAt(prog, run)
			novel := enc.novel(run.Trace, panicked)
			enc.concrete = false
			if novel {
				forced := map[instrument.InstKey]bool{}
				for _, f := range force {
					forced[instrument.InstKey{Site: f.Site, Inst: instrument.Instance{Act: f.Act, Local: f.Local}}] = true
				}
				if err := enc.Replay(run.Trace, forced, false, panicked); err != nil {
					if stopped = outgrown(); stopped {
						break
					}
					return enumerated > 0, err
				}
			}
			if !novel || enc.concrete {
				if err := enc.excludeValues(c.Tags, force); err != nil {
					return enumerated > 0, err
				}
			}
		} else {
			if refined[tags] >= maxRefinements && !run.Passed {
				res.Notes = append(res.Notes, fmt.Sprintf("refinement bound (%d) reached for %s", maxRefinements, result.Describe(cand)))
			}
			cand.Verified = run.Passed
			cand.Avoids = reach.steers(force, run)
			if cand.Verified || opts.KeepUnverified {
				res.Candidates = append(res.Candidates, cand)
			}
			if err := enum.Block(c); err != nil {
				return enumerated > 0, err
			}
		}
	}
	return enumerated > 0 && !stopped, nil
}

// candidate reads the angelic values of a correction from its model: every
// encoded instance of each location is forced to its model value.
func (e *encoder) candidate(c mcs.Correction[int32]) (result.Candidate, []instrument.ForcedValue, error) {
	var cand result.Candidate
	var force []instrument.ForcedValue
	for _, id := range c.Tags {
		s := e.prog.Sites[id]
		var orig, angelic []string
		far := false
		for _, inst := range e.instOf[id] {
			k := instrument.InstKey{Site: id, Inst: inst}
			var v instrument.Value
			var err error
			if instrument.IsMap(s.Typ) {
				v, err = e.mapModel(c.Model, e.vars[k], s.Typ)
			} else {
				v, err = modelValue(c.Model, e.vars[k], s)
			}
			if err != nil {
				return cand, nil, fmt.Errorf("reading the angelic value of %s: %w", s.Text, err)
			}
			f := instrument.ForcedValue{Site: id, Act: inst.Act, Local: inst.Local, Value: v.N}
			if instrument.IsSeq(s.Typ) || instrument.IsList(s.Typ) || instrument.IsRecord(s.Typ) || instrument.IsMap(s.Typ) {
				f.Value, f.Str = 0, &v.S
			}
			force = append(force, f)
			o, seen := e.original[k]
			if seen && instrument.SameValue(s.Typ, o, v) && len(e.instOf[id]) > 1 {
				continue
			}
			if seen {
				orig = append(orig, e.prog.Render(s, o))
			} else {
				orig = append(orig, "?")
			}
			angelic = append(angelic, e.prog.Render(s, v))
			far = far || extreme(s, v.N)
		}
		cand.Locations = append(cand.Locations, result.Location{File: s.File, Line: s.Pos.Line, Col: s.Pos.Column,
			EndLine: s.End.Line, EndCol: s.End.Column, Expr: s.Text,
			Original: strings.Join(orig, ", "), Angelic: strings.Join(angelic, ", "), Extreme: far})
	}
	sort.Slice(cand.Locations, func(i, j int) bool { return result.LessLocation(cand.Locations[i], cand.Locations[j]) })
	return cand, force, nil
}

// modelValue reads a site's value from a model in the trace's encoding:
// Booleans as 0 or 1, floats as their IEEE bits, strings as their bytes.
func modelValue(m *z3.Model, v z3.Expr, s *instrument.Site) (instrument.Value, error) {
	switch instrument.ValueKind(s.Typ) {
	case 'b':
		b, err := m.Bool(v.AsBool())
		return instrument.BoolValue(b), err
	case 'e': // its code (errors_is.go)
		u, err := m.Uint64(v.AsBV())
		return instrument.Value{N: int64(u)}, err
	case 'f':
		if instrument.IsFloat32(s.Typ) {
			f, err := m.Float32(v.AsFloat())
			return instrument.Value{N: int64(math.Float32bits(f))}, err
		}
		f, err := m.Float64(v.AsFloat())
		return instrument.Value{N: int64(math.Float64bits(f))}, err
	case 's', 'y':
		b, err := m.Bytes(v.AsSeq())
		return instrument.Value{S: string(b)}, err
	case 'l':
		return listModel(m, v, s.Typ)
	case 'r':
		x, err := m.Big(v)
		if err != nil {
			return instrument.Value{}, err
		}
		return scalarsOf(x, s.Typ), nil
	}
	if _, signed := instrument.Bits(s.Typ); signed {
		n, err := m.Int64(v.AsBV())
		return instrument.Value{N: n}, err
	}
	u, err := m.Uint64(v.AsBV())
	return instrument.Value{N: int64(u)}, err
}

// checksSeqs reports whether a run reached a check on strings or byte
// slices: a test condition guarding a failure report or an assertion with
// such an operand, or a panic indexing or slicing one (trace[panicAt]).
func checksSeqs(prog *instrument.Program, trace []instrument.Event, panicAt int) bool {
	if panicAt >= 0 && prog.Sites[trace[panicAt].Site].Indexed != nil {
		return true
	}
	return checksKind(prog, trace, instrument.IsSeq)
}

// checksKind reports whether a run reached a test condition guarding a
// failure report, or an assertion, with an operand of a type kind accepts.
func checksKind(prog *instrument.Program, trace []instrument.Event, kind func(types.Type) bool) bool {
	seen := map[int32]bool{}
	for _, ev := range trace {
		s := prog.SiteOf(ev)
		if s == nil {
			continue
		}
		if seen[s.Id] || s.Expr == nil || s.FailsWhen == 0 && s.Kind != instrument.KindAssertArg {
			continue
		}
		seen[s.Id] = true
		found := false
		ast.Inspect(s.Expr, func(n ast.Node) bool {
			if x, ok := n.(ast.Expr); ok && kind(s.Info.TypeOf(x)) {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// fallBack is what follows the formula. When the formula could not reach
// the failing check (reached false), value replacement tries every site
// and predicate switching follows with at least a third of the time and
// of the runs left; when it could but verified nothing, value replacement
// tries the sites the formula does not model, and predicate switching
// follows if that verifies nothing either; when it verified a fix,
// replacement still tries the integer values the formula does not see
// (indices, slice bounds, literal operands), where an off-by-one hides
// from a formula that can only move the expressions around them.
func fallBack(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, first *instrument.RunResult, deadline time.Time, opts result.Options, res *result.TestResult, reached bool) error {
	scope := replace.ScopeEvery
	switch {
	case reached && result.HasVerified(res):
		scope = replace.ScopeIntegerValues
	case reached:
		scope = replace.ScopeUnmodelled
	}
	share := opts
	if scope != replace.ScopeIntegerValues {
		// Predicate switching follows: it keeps a third of the runs left.
		share = runShare(bin, opts, 2, 3)
	}
	err := replace.ReplaceValues(ctx, prog, bin, t, share, scope, res)
	if err != nil || scope == replace.ScopeIntegerValues || scope == replace.ScopeUnmodelled && result.HasVerified(res) {
		return err
	}
	return switchPredicates(ctx, prog, bin, t, first, deadline, opts, res)
}

// runShare is num/den of the runs left: the options bounding that many
// more runs. Phases share runs, not time, so that a loaded machine does
// not shift work from one phase to the next.
func runShare(b *instrument.TestBinary, opts result.Options, num, den int) result.Options {
	opts.MaxRuns = b.Runs + max(opts.MaxRuns-b.Runs, 0)*num/den
	return opts
}
