// This file keeps the package's API where it was before the
// instrumentation, the formula, value replacement and the result types
// moved into subpackages: callers name analysis.X as they did.

package analysis

import (
	"context"

	"github.com/faultline-go/faultline/analysis/formula"
	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// The types of package formula (the failing run, its cause, and the symbolic inputs of a path formula), under the names they had here.
type (
	Callback     = formula.Callback
	Cause        = formula.Cause
	Condition    = formula.Condition
	CoreResult   = formula.CoreResult
	FailingRun   = formula.FailingRun
	InputOptions = formula.InputOptions
	InputParam   = formula.InputParam
	InputSession = formula.InputSession
	InputValue   = formula.InputValue
	PathFormula  = formula.PathFormula
	Predicate    = formula.Predicate
	RecordedRun  = formula.RecordedRun
	Statement    = formula.Statement
	Suspect      = formula.Suspect
)

// The types of package result (the vocabulary of an analysis: targets, options, candidates, results and why an analysis ended), under the names they had here.
type (
	Candidate  = result.Candidate
	Ending     = result.Ending
	Location   = result.Location
	Options    = result.Options
	Report     = result.Report
	SliceLine  = result.SliceLine
	TestResult = result.TestResult
)

// Constants of package result.
const (
	EndedBudget        = result.EndedBudget
	EndedBug           = result.EndedBug
	EndedEnvironment   = result.EndedEnvironment
	EndedFinding       = result.EndedFinding
	EndedNoCandidate   = result.EndedNoCandidate
	FoundByReplacement = result.FoundByReplacement
	FoundBySolver      = result.FoundBySolver
	FoundBySwitching   = result.FoundBySwitching
)

// Variables of package formula.
var (
	ErrNoCheck = formula.ErrNoCheck
	ErrUnknown = formula.ErrUnknown
)

// Variables of package result.
var (
	ErrSourceChanged = result.ErrSourceChanged
)

// Available is formula.Available, under the name it had here.
func Available() error {
	return formula.Available()
}

// BudgetExhausted is instrument.BudgetExhausted, under the name it had here.
func BudgetExhausted(err error) bool {
	return instrument.BudgetExhausted(err)
}

// Cores is formula.Cores, under the name it had here.
func Cores(ctx context.Context, mod *testbuild.Module, targets []testbuild.Target, opts Options, done func(CoreResult) error) error {
	return formula.Cores(ctx, mod, targets, opts, done)
}

// FoundWords is result.FoundWords, under the name it had here.
func FoundWords(found string) string {
	return result.FoundWords(found)
}

// NewReport is result.NewReport, under the name it had here.
func NewReport(results []TestResult) Report {
	return result.NewReport(results)
}

// OpenInputs is formula.OpenInputs, under the name it had here.
func OpenInputs(ctx context.Context, mod *testbuild.Module, pkgPath string, cb Callback, opts InputOptions) (*InputSession, error) {
	return formula.OpenInputs(ctx, mod, pkgPath, cb, opts)
}

// PassingKey is result.PassingKey, under the name it had here.
func PassingKey(t testbuild.Target) string {
	return result.PassingKey(t)
}

// RecordFailingRun is formula.RecordFailingRun, under the name it had here.
func RecordFailingRun(ctx context.Context, mod *testbuild.Module, t testbuild.Target, opts Options) (*FailingRun, error) {
	return formula.RecordFailingRun(ctx, mod, t, opts)
}
