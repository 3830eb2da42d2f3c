//go:build cgo

package formula

import (
	"context"
	"errors"
	"go/ast"
	"go/token"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// checkReach tells whether a fix steers a run around the check the
// failing run failed at. A test condition or assertion is recorded
// whenever it is evaluated, so its own site shows it reached. A guarded
// operation (index, division, nil dereference...) is recorded only when it
// panics: the condition of the innermost if or for whose branch holds it
// stands in, taking that branch (the operation may be reached), or, with
// none, any site of its function. want maps each such site to the value
// that counts (-1: any); empty when the check is not recognised, and
// whether a run reaches it is unknown.
type checkReach struct {
	prog *instrument.Program
	want map[int32]int64
}

// anyValue is a want that any recorded value satisfies.
const anyValue = -1

// checkReachOf finds the failed check of a failing run.
func CheckReachOf(prog *instrument.Program, failing *instrument.RunResult) checkReach {
	c := checkReach{prog: prog, want: map[int32]int64{}}
	run := &FailingRun{prog: prog, trace: failing.Trace, panic: instrument.PanicAt(prog, failing)}
	i := run.failedCheck()
	if i < 0 {
		return c
	}
	id := failing.Trace[i].Site
	g := prog.Sites[id]
	if g.Kind != instrument.KindGuard {
		c.want[id] = anyValue
		return c
	}
	inner := token.Position{}
	for _, o := range prog.Sites {
		if o.Kind != instrument.KindCond || o.File != g.File || o.Stmt == nil {
			continue
		}
		var branch ast.Node
		taken := int64(1)
		switch st := o.Stmt.(type) {
		case *ast.IfStmt:
			branch = st.Body
			if !c.holds(st.Body, g) && st.Else != nil {
				branch, taken = st.Else, 0
			}
		case *ast.ForStmt:
			branch = st.Body
		}
		if branch == nil || !c.holds(branch, g) {
			continue
		}
		if start := prog.Fset.Position(branch.Pos()); before(inner, start) {
			inner = start
			clear(c.want)
			c.want[o.Id] = taken
		}
	}
	if len(c.want) == 0 {
		for _, o := range prog.Sites {
			if o.Fn == g.Fn && o.Kind != instrument.KindGuard {
				c.want[o.Id] = anyValue
			}
		}
	}
	return c
}

// holds reports whether a syntax node holds a site.
func (c checkReach) holds(n ast.Node, s *instrument.Site) bool {
	start, end := c.prog.Fset.Position(n.Pos()), c.prog.Fset.Position(n.End())
	return !before(s.Pos, start) && !before(end, s.End)
}

// steers reports whether a fix, its values forced, steers the run around
// the failed check rather than making what the check compares right: every
// value it forces is a branch condition (of an if, a loop, a case, or an
// operand of one), and the passing run never reached the check. A run whose
// trace was cut, or a check that cannot be told, counts as reached; so
// does a check on a line the passing run still ran, though not at the
// failing instance.
func (c checkReach) steers(force []instrument.ForcedValue, run *instrument.RunResult) bool {
	if !c.maySteer(force) || !run.Passed || run.Truncated {
		return false
	}
	for _, ev := range run.Trace {
		if w, ok := c.want[ev.Site]; ok && (w == anyValue || w == ev.Value) {
			return false
		}
	}
	return true
}

// maySteer reports whether forcing these values could steer around the
// check: the check is known and every value forced is a branch condition.
func (c checkReach) maySteer(force []instrument.ForcedValue) bool {
	if len(c.want) == 0 || len(force) == 0 {
		return false
	}
	for _, f := range force {
		if !c.branches(f.Site) {
			return false
		}
	}
	return true
}

// branches reports whether a site is a branch condition of non-test code or
// a Boolean operand within one.
func (c checkReach) branches(id int32) bool {
	if id < 0 || int(id) >= len(c.prog.Sites) {
		return false
	}
	s := c.prog.Sites[id]
	if s.Hard {
		return false
	}
	if s.Kind == instrument.KindCond {
		return true
	}
	if instrument.ValueKind(s.Typ) != 'b' {
		return false
	}
	for _, o := range c.prog.Sites {
		if o.Kind == instrument.KindCond && o.File == s.File && !before(s.Pos, o.Pos) && !before(o.End, s.End) {
			return true
		}
	}
	return false
}

// before reports whether position a comes before b in one file.
func before(a, b token.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// markAvoiding runs each verified candidate of value replacement that
// forces only branch conditions once more (its trials recorded no trace),
// within the test's budget and run bound, and marks those that pass
// without reaching the failed check (the other searches mark theirs from
// their verifying run). A candidate left unrun stays unmarked.
func MarkAvoiding(ctx context.Context, bin *instrument.TestBinary, t testbuild.Target, reach checkReach, opts result.Options, res *result.TestResult) error {
	for i := range res.Candidates {
		c := &res.Candidates[i]
		if !c.Verified || c.Found != result.FoundByReplacement || !reach.maySteer(c.Force) {
			continue
		}
		if bin.Runs >= opts.MaxRuns {
			return nil
		}
		run, err := bin.Run(ctx, t.Test, c.Force)
		if errors.Is(err, instrument.ErrBudget) {
			return nil
		}
		if err != nil {
			return err
		}
		c.Avoids = reach.steers(c.Force, run)
	}
	return nil
}
