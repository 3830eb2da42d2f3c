//go:build !cgo

package formula

import (
	"context"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Without cgo there is no Z3 binding: the formula cannot be made, and every
// entry point that needs it says so through Available.

// Search cannot run without cgo: the formula needs the Z3 binding.
func Search(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, opts result.Options, res *result.TestResult) error {
	return Available()
}

// Close releases what the run holds.
func (r *FailingRun) Close() {}

// SetDeadline moves the time at which the semantic questions stop.
func (r *FailingRun) SetDeadline(t time.Time) { r.deadline = t }

// Cause needs the Z3 binding, which needs cgo.
func (r *FailingRun) Cause() (*Cause, error) { return nil, Available() }

// PredicateCause needs the Z3 binding, which needs cgo.
func (r *FailingRun) PredicateCause(p Predicate) (*Cause, error) { return nil, Available() }

//lint:ignore U1000 FailingRun's semantic field, read only with cgo, needs the type
type semanticState struct{}

// PathFormula needs the Z3 binding: without cgo it cannot be made.
type PathFormula struct{}

// Formula cannot replay a run without cgo.
func (s *InputSession) Formula(run *RecordedRun, timeout time.Duration) (*PathFormula, error) {
	return nil, Available()
}

func (f *PathFormula) Close()                  {}
func (f *PathFormula) Restart()                {}
func (f *PathFormula) Inputs() []InputValue    { return nil }
func (f *PathFormula) Conditions() []Condition { return nil }

func (f *PathFormula) Flip(i int, exclude [][]InputValue) ([]InputValue, error) {
	return nil, Available()
}

func (f *PathFormula) Core() ([]Suspect, error) { return nil, Available() }

// checkReach needs the failed check of a run, which is found by code that
// needs cgo; without it no fix is marked as steering around the check
// (nor is any found: the analysis needs Z3).
type checkReach struct{}

// CheckReachOf knows no check without cgo.
func CheckReachOf(*instrument.Program, *instrument.RunResult) checkReach { return checkReach{} }

//lint:ignore U1000 the untagged callers of steers run only with cgo
func (checkReach) steers([]instrument.ForcedValue, *instrument.RunResult) bool { return false }

// Slice is built with the rest of the analysis, which needs cgo: without
// it a run has no slice.
func (r *FailingRun) Slice() []result.SliceLine { return nil }
