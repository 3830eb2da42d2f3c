package analysis

import (
	"strings"
)

// panicAt returns the index in a failing run's trace of the guarded
// operation whose runtime panic ended the test, or -1. Guard events are
// recorded only just before an operation panics; the last one counts when
// the output shows a runtime panic (an earlier one may have been
// recovered).
func panicAt(prog *program, run *runResult) int {
	if run.passed || !strings.Contains(run.output, "panic: runtime error: ") {
		return -1
	}
	for i := len(run.trace) - 1; i >= 0; i-- {
		ev := run.trace[i]
		if ev.site >= 0 && int(ev.site) < len(prog.sites) && prog.sites[ev.site].kind == kindGuard {
			return i
		}
	}
	return -1
}
