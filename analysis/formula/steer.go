//go:build cgo

package formula

import (
	"context"
	"errors"
	"go/ast"
	"go/token"
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
	prog *program
	want map[int32]int64
}

// anyValue is a want that any recorded value satisfies.
const anyValue = -1

// checkReachOf finds the failed check of a failing run.
func checkReachOf(prog *program, failing *runResult) checkReach {
	c := checkReach{prog: prog, want: map[int32]int64{}}
	run := &FailingRun{prog: prog, trace: failing.trace, panic: panicAt(prog, failing)}
	i := run.failedCheck()
	if i < 0 {
		return c
	}
	id := failing.trace[i].site
	g := prog.sites[id]
	if g.kind != kindGuard {
		c.want[id] = anyValue
		return c
	}
	inner := token.Position{}
	for _, o := range prog.sites {
		if o.kind != kindCond || o.file != g.file || o.stmt == nil {
			continue
		}
		var branch ast.Node
		taken := int64(1)
		switch st := o.stmt.(type) {
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
		if start := prog.fset.Position(branch.Pos()); before(inner, start) {
			inner = start
			clear(c.want)
			c.want[o.id] = taken
		}
	}
	if len(c.want) == 0 {
		for _, o := range prog.sites {
			if o.fn == g.fn && o.kind != kindGuard {
				c.want[o.id] = anyValue
			}
		}
	}
	return c
}

// holds reports whether a syntax node holds a site.
func (c checkReach) holds(n ast.Node, s *site) bool {
	start, end := c.prog.fset.Position(n.Pos()), c.prog.fset.Position(n.End())
	return !before(s.pos, start) && !before(end, s.end)
}

// steers reports whether a fix, its values forced, steers the run around
// the failed check rather than making what the check compares right: every
// value it forces is a branch condition (of an if, a loop, a case, or an
// operand of one), and the passing run never reached the check. A run whose
// trace was cut, or a check that cannot be told, counts as reached; so
// does a check on a line the passing run still ran, though not at the
// failing instance.
func (c checkReach) steers(force []forcedValue, run *runResult) bool {
	if !c.maySteer(force) || !run.passed || run.truncated {
		return false
	}
	for _, ev := range run.trace {
		if w, ok := c.want[ev.site]; ok && (w == anyValue || w == ev.value) {
			return false
		}
	}
	return true
}

// maySteer reports whether forcing these values could steer around the
// check: the check is known and every value forced is a branch condition.
func (c checkReach) maySteer(force []forcedValue) bool {
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
	if id < 0 || int(id) >= len(c.prog.sites) {
		return false
	}
	s := c.prog.sites[id]
	if s.hard {
		return false
	}
	if s.kind == kindCond {
		return true
	}
	if valueKind(s.typ) != 'b' {
		return false
	}
	for _, o := range c.prog.sites {
		if o.kind == kindCond && o.file == s.file && !before(s.pos, o.pos) && !before(o.end, s.end) {
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
func markAvoiding(ctx context.Context, bin *testBinary, t Target, reach checkReach, opts Options, res *TestResult) error {
	for i := range res.Candidates {
		c := &res.Candidates[i]
		if !c.Verified || c.Found != FoundByReplacement || !reach.maySteer(c.force) {
			continue
		}
		if bin.runs >= opts.MaxRuns {
			return nil
		}
		run, err := bin.run(ctx, t.Test, c.force)
		if errors.Is(err, errBudget) {
			return nil
		}
		if err != nil {
			return err
		}
		c.Avoids = reach.steers(c.force, run)
	}
	return nil
}
