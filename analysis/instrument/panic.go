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
func panicAt(prog *program, run *runResult) int {
	if run.passed || !strings.Contains(run.output, "panic: ") {
		return -1
	}
	for i := len(run.trace) - 1; i >= 0; i-- {
		ev := run.trace[i]
		if ev.site < 0 || int(ev.site) >= len(prog.sites) || prog.sites[ev.site].kind != kindGuard {
			continue
		}
		if !panicShown(prog.sites[ev.site].guard, run.output) {
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
