//go:build cgo

package analysis

import (
	"slices"
	"strings"

	"faultline/solver/z3"
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

// excludeValues records that a forced run failed: these values at these
// locations, with every other encoded location correct, are no fix. The
// formula alone cannot tell when the failure lies in values it does not
// model; excluding the values lets the search try the next nearest ones.
func (e *encoder) excludeValues(tags []int32, force []forcedValue) error {
	in := map[int32]bool{}
	for _, id := range tags {
		in[id] = true
	}
	var others []int32
	for id := range e.ab {
		if !in[id] {
			others = append(others, id)
		}
	}
	slices.Sort(others) // a deterministic formula gives deterministic models
	var alt []z3.Bool
	for _, id := range others {
		alt = append(alt, e.ab[id])
	}
	for _, f := range force {
		v, ok := e.vars[instKey{f.Site, instance{f.Act, f.Local}}]
		if !ok {
			continue
		}
		alt = append(alt, v.Eq(e.constant(e.prog.sites[f.Site].typ, f.Value)).Not())
	}
	return e.addHard(e.z.Or(alt...))
}
