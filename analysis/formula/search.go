//go:build cgo

package formula

import (
	"context"
	"errors"
	"fmt"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
	"go/ast"
	"go/types"
	"math"
	"sort"
	"strings"
	"time"
)

// maxRefinements bounds the refinements made for one set of locations.
const maxRefinements = 4

// analyzeTest runs Algorithm 1 of AgxFaults for one failing test: encode
// the failing trace, enumerate minimal correction subsets smallest first,
// run the test with each candidate's angelic values forced, add what a
// failing forced run reaches that the formula lacks and enumerate again,
// and report the candidates whose forced run passed.
//
// The budget bounds the whole analysis, whatever phase the time goes to:
// no run, encoding or solver call goes past it, and a result cut short
// keeps the candidates verified so far, with a note.
// search fills res with the candidates of one failing test.
func search(ctx context.Context, prog *program, bin *testBinary, t Target, opts Options, res *TestResult) error {
	first, err := bin.run(ctx, t.Test, nil)
	if err != nil {
		return err
	}
	if first.memory != nil {
		return fmt.Errorf("the failing run %w", first.memory)
	}
	// A forced run may loop: bound it by the failing run's own duration.
	bin.timeout = min(opts.RunTimeout, max(2*time.Second, 20*first.elapsed))
	if first.passed {
		res.Notes = append(res.Notes, "the test passes: nothing to fix")
		return nil
	}
	if first.truncated {
		res.Notes = append(res.Notes, fmt.Sprintf("the failing run is longer than %d recorded events: not analysed", maxTraceEvents))
		return nil
	}
	if len(first.trace) == 0 {
		res.Notes = append(res.Notes, "the test recorded nothing (did it run?)")
		return nil
	}
	deadline := bin.deadline
	formulaOpts, formulaEnd := bin.share(opts, deadline, formulaShare, 4)
	reached, err := searchFormula(ctx, prog, bin, t, first, formulaOpts, res, formulaEnd)
	cut := errors.Is(err, errBudget) || bin.runs >= formulaOpts.MaxRuns
	if errors.Is(err, errBudget) && time.Now().Before(deadline) {
		res.Notes = append(res.Notes, fmt.Sprintf("the formula used its share (%d/4) of the time budget; value replacement has the rest", formulaShare))
		err = nil
	}
	if err != nil {
		return err
	}
	if cut && !hasVerified(res) {
		// A formula stopped before it verified anything says nothing of
		// the sites it models: value replacement tries them too.
		reached = false
	}
	if err := fallBack(ctx, prog, bin, t, first, deadline, opts, res, reached); err != nil {
		return err
	}
	return markAvoiding(ctx, bin, t, checkReachOf(prog, first), opts, res)
}

// formulaShare is the formula's share of the time and of the runs left,
// in quarters: when it runs out, value replacement and predicate
// switching still have the rest, which is where a fault the formula
// cannot reach is found.
const formulaShare = 3

// searchFormula encodes the failing run and enumerates and verifies its
// corrections until deadline, reporting whether the formula reached the
// failing check (found a correction to try). Its solver context, and the
// memory it holds, is freed when it returns, before the fallbacks run.
func searchFormula(ctx context.Context, prog *program, bin *testBinary, t Target, first *runResult, opts Options, res *TestResult, deadline time.Time) (bool, error) {
	z, err := z3.NewContext(z3.Config{Timeout: min(10*time.Second, max(time.Until(deadline), time.Millisecond))})
	if err != nil {
		return false, err
	}
	defer z.Close()
	watch := watchSolverMemory(z, uint64(max(opts.SolverMemory, 0)))
	defer watch.stop() // before z.Close
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		return false, err
	}
	enc := newEncoder(z, enum, prog)
	reach := checkReachOf(prog, first)
	enc.deadline = deadline
	enc.watch = watch
	if t.Test == opts.panicIn {
		panic("a panic injected into the encoding of " + t.Test)
	}
	seqsChecked := checksSeqs(prog, first.trace, panicAt(prog, first))
	enc.concreteSeqs = !opts.Strings || !seqsChecked
	res.StringsConcrete = !opts.Strings && seqsChecked
	enc.concreteLists = !checksLists(prog, first.trace)
	// outgrown ends the search when the formula passed the memory bound:
	// once the watch tripped, an error or answer of the solver may come
	// from an interrupted check and says nothing about the formula.
	outgrown := func() bool {
		if !watch.tripped() {
			return false
		}
		res.Notes = append(res.Notes, watch.note())
		return true
	}
	if err := enc.replay(first.trace, nil, true, panicAt(prog, first)); err != nil && !watch.tripped() {
		return false, err
	}
	if outgrown() {
		return false, nil
	}
	if enc.failing == 0 {
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
			return enumerated > 0, errBudget
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
				return enumerated > 0, errBudget
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
		if bin.runs >= opts.MaxRuns {
			res.Notes = append(res.Notes, fmt.Sprintf("run bound (%d) reached", opts.MaxRuns))
			break
		}
		solveStart = time.Now()
		m, err := enc.closestModel(c, min(enc.optimizeBound(), max(time.Until(deadline), time.Millisecond)))
		if err == nil && m != nil {
			c.Model = m
		}
		if err == nil {
			m, err = enc.narrow(c, c.Model, time.Now().Add(min(time.Second, time.Until(deadline)/4)))
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
		cand.force, cand.Found = force, FoundBySolver
		run, err := bin.run(ctx, t.Test, force)
		if err != nil {
			return enumerated > 0, err
		}
		// Refining the same locations again and again means their angelic
		// path keeps unrolling a loop: bound it like the paper bounds loops.
		tags := fmt.Sprint(c.Tags)
		// A failing run that reaches what the formula lacks refines it; one
		// that does not, or fails on values the formula does not model,
		// excludes its values so that the next nearest are tried.
		if !run.passed && !run.truncated && refined[tags] < maxRefinements {
			refined[tags]++
			panicked := panicAt(prog, run)
			novel := enc.novel(run.trace, panicked)
			enc.concrete = false
			if novel {
				forced := map[instKey]bool{}
				for _, f := range force {
					forced[instKey{f.Site, instance{f.Act, f.Local}}] = true
				}
				if err := enc.replay(run.trace, forced, false, panicked); err != nil {
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
			if refined[tags] >= maxRefinements && !run.passed {
				res.Notes = append(res.Notes, fmt.Sprintf("refinement bound (%d) reached for %s", maxRefinements, describe(cand)))
			}
			cand.Verified = run.passed
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
func (e *encoder) candidate(c mcs.Correction[int32]) (Candidate, []forcedValue, error) {
	var cand Candidate
	var force []forcedValue
	for _, id := range c.Tags {
		s := e.prog.sites[id]
		var orig, angelic []string
		far := false
		for _, inst := range e.instOf[id] {
			k := instKey{id, inst}
			var v value
			var err error
			if isMap(s.typ) {
				v, err = e.mapModel(c.Model, e.vars[k], s.typ)
			} else {
				v, err = modelValue(c.Model, e.vars[k], s)
			}
			if err != nil {
				return cand, nil, fmt.Errorf("reading the angelic value of %s: %w", s.text, err)
			}
			f := forcedValue{Site: id, Act: inst.act, Local: inst.local, Value: v.n}
			if isSeq(s.typ) || isList(s.typ) || isRecord(s.typ) || isMap(s.typ) {
				f.Value, f.Str = 0, &v.s
			}
			force = append(force, f)
			o, seen := e.original[k]
			if seen && sameValue(s.typ, o, v) && len(e.instOf[id]) > 1 {
				continue
			}
			if seen {
				orig = append(orig, e.prog.render(s, o))
			} else {
				orig = append(orig, "?")
			}
			angelic = append(angelic, e.prog.render(s, v))
			far = far || extreme(s, v.n)
		}
		cand.Locations = append(cand.Locations, Location{File: s.file, Line: s.pos.Line, Col: s.pos.Column,
			EndLine: s.end.Line, EndCol: s.end.Column, Expr: s.text,
			Original: strings.Join(orig, ", "), Angelic: strings.Join(angelic, ", "), Extreme: far})
	}
	sort.Slice(cand.Locations, func(i, j int) bool { return lessLocation(cand.Locations[i], cand.Locations[j]) })
	return cand, force, nil
}

// modelValue reads a site's value from a model in the trace's encoding:
// Booleans as 0 or 1, floats as their IEEE bits, strings as their bytes.
func modelValue(m *z3.Model, v z3.Expr, s *site) (value, error) {
	switch valueKind(s.typ) {
	case 'b':
		b, err := m.Bool(v.AsBool())
		return boolValue(b), err
	case 'e': // its code (errors_is.go)
		u, err := m.Uint64(v.AsBV())
		return value{n: int64(u)}, err
	case 'f':
		if isFloat32(s.typ) {
			f, err := m.Float32(v.AsFloat())
			return value{n: int64(math.Float32bits(f))}, err
		}
		f, err := m.Float64(v.AsFloat())
		return value{n: int64(math.Float64bits(f))}, err
	case 's', 'y':
		b, err := m.Bytes(v.AsSeq())
		return value{s: string(b)}, err
	case 'l':
		return listModel(m, v, s.typ)
	case 'r':
		x, err := m.Big(v)
		if err != nil {
			return value{}, err
		}
		return scalarsOf(x, s.typ), nil
	}
	if _, signed := bits(s.typ); signed {
		n, err := m.Int64(v.AsBV())
		return value{n: n}, err
	}
	u, err := m.Uint64(v.AsBV())
	return value{n: int64(u)}, err
}

// checksSeqs reports whether a run reached a check on strings or byte
// slices: a test condition guarding a failure report or an assertion with
// such an operand, or a panic indexing or slicing one (trace[panicAt]).
func checksSeqs(prog *program, trace []event, panicAt int) bool {
	if panicAt >= 0 && prog.sites[trace[panicAt].site].indexed != nil {
		return true
	}
	return checksKind(prog, trace, isSeq)
}

// checksKind reports whether a run reached a test condition guarding a
// failure report, or an assertion, with an operand of a type kind accepts.
func checksKind(prog *program, trace []event, kind func(types.Type) bool) bool {
	seen := map[int32]bool{}
	for _, ev := range trace {
		if ev.site < 0 || int(ev.site) >= len(prog.sites) {
			continue
		}
		s := prog.sites[ev.site]
		if seen[s.id] || s.expr == nil || s.failsWhen == 0 && s.kind != kindAssertArg {
			continue
		}
		seen[s.id] = true
		found := false
		ast.Inspect(s.expr, func(n ast.Node) bool {
			if x, ok := n.(ast.Expr); ok && kind(s.info.TypeOf(x)) {
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
