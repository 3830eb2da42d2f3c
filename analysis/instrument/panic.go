package instrument

import (
	"strings"
)

// panicAt returns the index in a failing run's trace of the guarded
// operation whose panic ended the test, or -1. Guard events of index,
// slice, division, nil dereference and nil map write guards are recorded
// only just before the operation panics, that of a panic statement
// whenever it is reached; the last one counts when the output shows a
// panic of its kind (an earlier one may have been recovered).
func PanicAt(prog *Program, run *RunResult) int {
	if run.Passed || !strings.Contains(run.Output, "panic: ") {
		return -1
	}
	for i := len(run.Trace) - 1; i >= 0; i-- {
		ev := run.Trace[i]
		if ev.Site < 0 || int(ev.Site) >= len(prog.Sites) || prog.Sites[ev.Site].Kind != KindGuard {
			continue
		}
		if !panicShown(prog.Sites[ev.Site].Guard, run.Output) {
			return -1
		}
		return i
	}
	return -1
}

// panicShown reports whether a test's output shows a panic of the kind a
// guard protects against.
func panicShown(g guardKind, output string) bool {
	runtimeErr := strings.Contains(output, "panic: runtime error: ")
	switch g {
	case guardMap:
		return strings.Contains(output, "panic: assignment to entry in nil map")
	case guardPanic:
		// A value panicked with is printed as it is; a runtime error
		// printed after an explicit panic was recovered is another panic.
		return !runtimeErr && !strings.Contains(output, "panic: assignment to entry in nil map")
	}
	return runtimeErr
}
