//go:build cgo

package analysis

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

func lines(stmts []Statement) []string {
	var out []string
	for _, s := range stmts {
		out = append(out, fmt.Sprintf("%s:%d", s.File, s.Line))
	}
	return out
}

// recordCause records the failing run of test in the module of a txtar
// fixture and computes its first cause; the run is closed when the test
// ends.
func recordCause(t *testing.T, fixture, pkg, test string) (*FailingRun, *Cause) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	run, err := RecordFailingRun(context.Background(), open(t, extract(t, fixture)), testbuild.Target{Package: pkg, Test: test}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(run.Close)
	c, err := run.Cause()
	if err != nil {
		t.Fatal(err)
	}
	return run, c
}

// TestCauseRunningExample checks the semantic step on the paper's running
// example: the first cause is the data flow into the failed check along
// the recorded path (no condition in it), its critical predicates are the
// conditions controlling its statements, and the cause of x < y is that
// condition alone (its operands are the test's inputs).
func TestCauseRunningExample(t *testing.T) {
	run, c := recordCause(t, "cause.txtar", "example.com/after", "TestMaxPlus")
	if got, want := lines(c.Statements), []string{"after.go:13", "after.go:17", "after.go:21"}; !slices.Equal(got, want) {
		t.Errorf("cause = %v, want %v", got, want)
	}
	if got := fmt.Sprintf("%s:%d", c.Outcome.File, c.Outcome.Line); got != "after_test.go:6" {
		t.Errorf("outcome = %s, want after_test.go:6", got)
	}
	preds := run.CriticalPredicates(c)
	var got []string
	for _, p := range preds {
		got = append(got, fmt.Sprintf("%s:%d %s", p.File, p.Line, p.Kind))
	}
	if want := []string{"after.go:10 control", "after.go:16 control"}; !slices.Equal(got, want) {
		t.Errorf("critical predicates = %v, want %v", got, want)
	}
	for _, p := range preds {
		pc, err := run.PredicateCause(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("cause of %s:%d: %v", p.File, p.Line, lines(pc.Statements))
		for _, s := range pc.Statements {
			t.Logf("  %s:%d %s  (%s)", s.File, s.Line, s.Text, s.Why)
		}
		if p.Line == 10 {
			if got, want := lines(pc.Statements), []string{"after.go:10"}; !slices.Equal(got, want) {
				t.Errorf("cause of x < y = %v, want %v", got, want)
			}
		}
	}
	for _, s := range c.Statements {
		t.Logf("%s:%d %s  (%s)", s.File, s.Line, s.Text, s.Why)
	}
}

// TestCauseOfUnrecordedPanic checks the cause of a run that panics inside
// a call to code the instrumentation does not record (the standard
// library): no modelled check fails, so the outcome is the last statement
// recorded before the panic, here the faulty guard that let a negative
// count through.
func TestCauseOfUnrecordedPanic(t *testing.T) {
	_, c := recordCause(t, "unguarded.txtar", "example.com/pad", "TestPadLong")
	if got := fmt.Sprintf("%s:%d", c.Outcome.File, c.Outcome.Line); got != "pad.go:8" || c.Outcome.Test {
		t.Errorf("outcome = %s (test %v), want pad.go:8, the guard the run passed last", got, c.Outcome.Test)
	}
}

// TestCriticalPredicateOfTheCall checks that a cause statement no
// condition of its own function controls has the condition that decided
// its function's call, in the caller, as its critical predicate.
func TestCriticalPredicateOfTheCall(t *testing.T) {
	run, c := recordCause(t, "callcontrol.txtar", "example.com/callcontrol", "TestLabelRoot")
	if got := fmt.Sprintf("%s:%d", c.Outcome.File, c.Outcome.Line); got != "tree.go:6" {
		t.Fatalf("outcome = %s, want tree.go:6, the nil dereference", got)
	}
	c.Statements = append(c.Statements, c.Outcome)
	var got []string
	for _, p := range run.CriticalPredicates(c) {
		got = append(got, fmt.Sprintf("%s:%d %s", p.File, p.Line, p.Kind))
	}
	if want := []string{"tree.go:11 control"}; !slices.Equal(got, want) {
		t.Errorf("critical predicates = %v, want %v", got, want)
	}
}

// TestSetDeadline checks that the deadline the causes stop at can be
// moved: past it the cause's core gives up with the budget, and a later
// one lets the same run's cause be computed.
func TestSetDeadline(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	run, err := RecordFailingRun(context.Background(), open(t, extract(t, "cause.txtar")), testbuild.Target{Package: "example.com/after", Test: "TestMaxPlus"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	run.SetDeadline(time.Now().Add(-time.Second))
	if _, err := run.Cause(); !BudgetExhausted(err) {
		t.Fatalf("past the deadline, Cause gave %v, want the budget exhausted", err)
	}
	run.SetDeadline(time.Now().Add(time.Minute))
	if _, err := run.Cause(); err != nil {
		t.Fatalf("with a minute left, Cause gave %v", err)
	}
}
