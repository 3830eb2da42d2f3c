package result

import (
	"errors"
	"fmt"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Ending says why the analysis of one test ended. A result is cached only
// when the code decided its ending (Cacheable): the same code would end
// the same way again. A failure of the machine's (a full disk, an I/O
// error, a test process killed from outside, a worker that died) or of
// faultline's own is reported and analysed again next time.
type Ending string

const (
	// EndedFinding: the search found verified candidates.
	EndedFinding Ending = "finding"
	// EndedNoCandidate: the search ended without a verified candidate,
	// or the code gave it nothing to search (the test passes, no
	// recognised check failed, the code does not build instrumented).
	EndedNoCandidate Ending = "no candidate"
	// EndedBudget: the wall-clock cap (Options.WallCap) stopped the
	// analysis: how far it got depends on the machine's load, so it is
	// not cached. The work bounds (runs, solver work) end an analysis
	// with one of the endings above, the same every time.
	EndedBudget Ending = "budget"
	// EndedEnvironment: the machine failed the analysis.
	EndedEnvironment Ending = "environment"
	// EndedBug: faultline failed on this code (a recovered panic).
	EndedBug Ending = "bug"
)

// Cacheable reports whether a result that ended so may be replayed from a
// cache. The zero Ending (a result that never said) may not.
func (e Ending) Cacheable() bool {
	return e == EndedFinding || e == EndedNoCandidate
}

// endingOf says how an analysis that failed with err ended: a panic's is
// a bug; an environmentError or a system error's
// (testbuild.MachineFailure) the machine's; the others (a package that
// does not type-check or compile, a construct the encoder refuses) the
// code's.
func EndingOf(err error) Ending {
	var env *instrument.EnvironmentError
	var p *panicError
	switch {
	case errors.As(err, &p):
		return EndedBug
	case errors.As(err, &env), testbuild.MachineFailure(err):
		return EndedEnvironment
	}
	return EndedNoCandidate
}

// panicError is a panic of the analysis, recovered.
type panicError struct{ value any }

func (e *panicError) Error() string {
	return fmt.Sprintf("faultline failed on this test: %v", e.value)
}

// recovered runs fn, turning a panic into a panicError reported once as a
// bug: a bug of faultline's on one test's code costs that test alone.
func Recovered(what string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			bug.Reportf("%s: %v", what, v) // with the stack of the panic
			err = &panicError{value: v}
		}
	}()
	return fn()
}
