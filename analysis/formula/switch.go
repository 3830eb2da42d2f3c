package formula

import (
	"context"
	"time"
)

// switchPredicates is the fallback when the formula cannot reach the
// failing check (it compares strings, structs or errors, or the test
// panicked): it flips one recorded Boolean value of non-test code at a
// time, conditions and Boolean results and assignments, latest first since
// they are nearest the failure, and keeps each flip whose forced run
// passes. Every such candidate is verified by construction.
func switchPredicates(ctx context.Context, prog *program, bin *testBinary, t Target, first *runResult, deadline time.Time, opts Options, res *TestResult) error {
	type flip struct {
		s    *site
		inst instance
		was  int64
	}
	var flips []flip
	for i := len(first.trace) - 1; i >= 0; i-- {
		ev := first.trace[i]
		if ev.site < 0 || int(ev.site) >= len(prog.sites) {
			continue
		}
		s := prog.sites[ev.site]
		switch s.kind {
		case kindCond, kindReturn, kindAssign, kindArg:
		default:
			continue
		}
		if s.hard || valueKind(s.typ) != 'b' {
			continue
		}
		flips = append(flips, flip{s, ev.inst, ev.value})
	}
	reach := checkReachOf(prog, first)
	tried, cut := 0, false
	fixed := map[int32]bool{} // one candidate per site is enough
	for _, f := range flips {
		if fixed[f.s.id] {
			continue
		}
		if bin.runs >= opts.MaxRuns || time.Now().After(deadline) {
			cut = true
			break
		}
		tried++
		angelic := 1 - f.was
		force := []forcedValue{{Site: f.s.id, Act: f.inst.act, Local: f.inst.local, Value: angelic}}
		run, err := bin.run(ctx, t.Test, force)
		if err != nil {
			return err
		}
		if !run.passed {
			continue
		}
		fixed[f.s.id] = true
		res.Switched++
		res.Candidates = append(res.Candidates, Candidate{Verified: true, Found: FoundBySwitching, Avoids: reach.steers(force, run), force: force, Locations: []Location{{
			File: f.s.file, Line: f.s.pos.Line, Col: f.s.pos.Column, EndLine: f.s.end.Line, EndCol: f.s.end.Column,
			Expr: f.s.text, Original: render(f.s, f.was), Angelic: render(f.s, angelic),
		}}})
	}
	// The notes in the order things happened: the fallback, then its cut.
	if tried > 0 {
		res.Notes = append(res.Notes, "fell back to predicate switching: one recorded Boolean flipped per run")
	}
	if cut {
		res.Notes = append(res.Notes, "predicate switching cut by the run or time bound")
	}
	return nil
}
