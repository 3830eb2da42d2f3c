package regress

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// This file is AFTER's semantic step as the explanation drives it: the
// failing run recorded, its causes and critical predicates computed in
// turn with the dynamic step (explain.go) between them.

// semanticMiss is the reason an error of the semantic step leaves no
// root change.
func semanticMiss(err error) NoRootReason {
	if analysis.BudgetExhausted(err) || errors.Is(err, errRecordTimeout) {
		return NoRootBudget
	}
	if errors.As(err, new(*testbuild.MemoryStop)) {
		return NoRootMemory
	}
	return NoRootNoCause
}

// errRecordTimeout says that recording the failing run ran out of its
// share of the budget.
var errRecordTimeout = errors.New("recording the failing run ran out of its share of the budget")

// record records the failing run for the semantic step, within
// RecordTimeout. Recording heeds its context throughout (the go command
// killed, loading stopped between packages), so it is waited for: past
// the timeout nothing of it goes on taking the CPU from the reverts.
func (x *explainer) record(ctx context.Context) (*analysis.FailingRun, error) {
	x.say("recording the failing run")
	defer x.timeSemantic(time.Now())
	defer x.o.phases.since("record", time.Now())
	rctx, cancel := context.WithTimeout(ctx, x.opts.RecordTimeout)
	defer cancel()
	recordRun := x.recordRun
	if recordRun == nil {
		recordRun = analysis.RecordFailingRun
	}
	run, err := recordRun(rctx, x.mod, x.target, x.opts.Semantic)
	if err != nil && rctx.Err() != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("%w (%s)", errRecordTimeout, x.opts.RecordTimeout)
	}
	return run, err
}

// semantic runs the loop of Algorithm 1 over the causes.
func (x *explainer) semantic(ctx context.Context, run *analysis.FailingRun, dd func([]int, string) ([]int, error)) ([]int, error) {
	start := time.Now()
	run.SetDeadline(x.causeDeadline())
	c0, err := run.Cause()
	x.causeTime += time.Since(start)
	x.timeSemantic(start)
	x.o.phases.since("causes", start)
	if err != nil {
		x.ex.Notes = append(x.ex.Notes, "no semantic cause: "+err.Error())
		x.ex.NoRoot = semanticMiss(err)
		return nil, nil
	}
	x.addCause(c0, -1)
	type pending struct {
		p      analysis.Predicate
		parent int
	}
	var queue []pending
	explored := map[int]bool{}
	for i := 0; ; i++ {
		if root, err := dd(x.causeHunks(), "cause"); err != nil || len(root) > 0 {
			return root, err
		}
		last := len(x.causes) - 1
		for _, p := range run.CriticalPredicates(withOutcome(x.causes[last].c)) {
			if !explored[p.Key()] {
				explored[p.Key()] = true
				queue = append(queue, pending{p, last})
			}
		}
		if len(x.causes) >= maxCauses {
			x.ex.NoRoot = NoRootBudget
			return nil, nil
		}
		if len(queue) == 0 {
			return nil, nil
		}
		next := queue[0]
		queue = queue[1:]
		start := time.Now()
		run.SetDeadline(x.causeDeadline())
		c, err := run.PredicateCause(next.p)
		x.causeTime += time.Since(start)
		x.timeSemantic(start)
		x.o.phases.since("causes", start)
		if err != nil {
			x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("no cause for %s:%d: %v", next.p.File, next.p.Line, err))
			if analysis.BudgetExhausted(err) {
				x.ex.NoRoot = NoRootBudget
			}
			return nil, nil
		}
		x.addCause(c, next.parent)
	}
}

// causeDeadline is when the causes computed next must stop: their share
// of time (the semantic options' budget) less what the causes so far
// took. The reverts between them do not count against it, or the first
// delta debugging would leave the critical predicates no time; the
// explanation's own deadline bounds it.
func (x *explainer) causeDeadline() time.Time {
	share := x.opts.Semantic
	share.Defaults()
	at := time.Now().Add(max(share.Budget-x.causeTime, 0))
	if !x.o.deadline.IsZero() && x.o.deadline.Before(at) {
		at = x.o.deadline
	}
	return at
}

// timeSemantic adds the time since start to the semantic step's.
func (x *explainer) timeSemantic(start time.Time) {
	x.ex.SemanticSeconds += time.Since(start).Seconds()
}

// withOutcome is the cause with the statement whose outcome it forces
// among its statements: in AFTER the failed check belongs to its cause (a
// panic in a changed statement, whose operands the recorded inputs alone
// give, has an empty core but its change is the cause's), and the
// conditions controlling it are critical predicates. A check in test code
// is left out: no change holds it, and the test's loops over its cases
// would only add causes.
func withOutcome(c *analysis.Cause) *analysis.Cause {
	if c.Outcome.Test || slices.ContainsFunc(c.Statements, func(s analysis.Statement) bool {
		return s.File == c.Outcome.File && s.Line == c.Outcome.Line
	}) {
		return c
	}
	out := *c
	out.Statements = append(slices.Clone(c.Statements), c.Outcome)
	return &out
}

// addCause records a cause and the hunks its statements, and the
// statement whose outcome it forces, fall in; a changed condition of an
// if, for or switch brings the hunks of the whole statement.
func (x *explainer) addCause(c *analysis.Cause, parent int) {
	var hunks []int
	for _, s := range withOutcome(c).Statements {
		at := x.hunksAt(s.File, s.Line, s.EndLine)
		if len(at) > 0 && s.BlockEnd > s.EndLine {
			// A changed condition's change may be the block it
			// decides as much as its header (a check moved inside
			// it, braces that close it elsewhere): the hunks within
			// the statement go with it, and the dynamic step keeps
			// only those whose revert the test needs.
			at = x.hunksAt(s.File, s.Line, s.BlockEnd)
		}
		hunks = append(hunks, at...)
	}
	x.causes = append(x.causes, causeRec{c: c, hunks: sorted(hunks), parent: parent})
}
