package formula

import (
	"context"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// switchPredicates is the fallback when the formula cannot reach the
// failing check (it compares strings, structs or errors, or the test
// panicked): it flips one recorded Boolean value of non-test code at a
// time, conditions and Boolean results and assignments, latest first since
// they are nearest the failure, and keeps each flip whose forced run
// passes. Every such candidate is verified by construction.
func switchPredicates(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, first *instrument.RunResult, deadline time.Time, opts result.Options, res *result.TestResult) error {
	type flip struct {
		s    *instrument.Site
		inst instrument.Instance
		was  int64
	}
	var flips []flip
	for i := len(first.Trace) - 1; i >= 0; i-- {
		ev := first.Trace[i]
		s := prog.SiteOf(ev)
		if s == nil {
			continue
		}
		switch s.Kind {
		case instrument.KindCond, instrument.KindReturn, instrument.KindAssign, instrument.KindArg:
		default:
			continue
		}
		if s.Hard || instrument.ValueKind(s.Typ) != 'b' {
			continue
		}
		flips = append(flips, flip{s, ev.Inst, ev.Value})
	}
	reach := CheckReachOf(prog, first)
	tried, cut, capped := 0, false, false
	fixed := map[int32]bool{} // one candidate per site is enough
	for _, f := range flips {
		if fixed[f.s.Id] {
			continue
		}
		if bin.Runs >= opts.MaxRuns {
			cut = true
			break
		}
		if time.Now().After(deadline) {
			capped = true // the wall-clock cap: the caller notes it
			break
		}
		tried++
		angelic := 1 - f.was
		force := []instrument.ForcedValue{{Site: f.s.Id, Act: f.inst.Act, Local: f.inst.Local, Value: angelic}}
		run, err := bin.Run(ctx, t.Test, force)
		if err != nil {
			return err
		}
		if !run.Passed {
			continue
		}
		fixed[f.s.Id] = true
		res.Switched++
		res.Candidates = append(res.Candidates, result.Candidate{Verified: true, Found: result.FoundBySwitching, Avoids: reach.steers(force, run), Force: force, Locations: []result.Location{{
			File: f.s.File, Line: f.s.Pos.Line, Col: f.s.Pos.Column, EndLine: f.s.End.Line, EndCol: f.s.End.Column,
			Expr: f.s.Text, Original: instrument.Render(f.s, f.was), Angelic: instrument.Render(f.s, angelic),
		}}})
	}
	// The notes in the order things happened: the fallback, then its cut.
	if tried > 0 {
		res.Notes = append(res.Notes, "fell back to predicate switching: one recorded Boolean flipped per run")
	}
	if cut {
		res.Notes = append(res.Notes, "predicate switching cut by the run or time bound")
	}
	if capped {
		return instrument.ErrBudget
	}
	return nil
}
