//go:build cgo

package z3

/*
#include <stdlib.h>
#include "z3api.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// ReasonWorkSpent is ReasonUnknown's answer for a check stopped by a work
// bound (the context's Config.Work or the solver's SetCheckWork).
const ReasonWorkSpent = "work bound spent"

// maxRlimit is the largest per-check resource limit Z3's unsigned
// parameter holds.
const maxRlimit = 1<<32 - 1

// Work is the solver work the context has done so far, in Z3's resource
// units (the counter its rlimit parameter bounds). Unlike time it does not
// depend on the machine's load: the same checks in the same order do the
// same work.
func (ctx *Context) Work() (uint64, error) {
	if err := ctx.enter(); err != nil {
		return 0, err
	}
	if ctx.counter == nil {
		// Any solver's statistics carry the context's counter.
		p := C.Z3_mk_solver(ctx.c)
		if err := ctx.lastError("Work"); err != nil {
			return 0, err
		}
		C.Z3_solver_inc_ref(ctx.c, p)
		ctx.counter = &Solver{ctx: ctx, h: ctx.own(kindSolver, unsafe.Pointer(p))}
	}
	st := C.Z3_solver_get_statistics(ctx.c, ctx.counter.ptr())
	if err := ctx.lastError("Work"); err != nil {
		return 0, err
	}
	C.Z3_stats_inc_ref(ctx.c, st)
	defer C.Z3_stats_dec_ref(ctx.c, st)
	for i := C.uint(0); i < C.Z3_stats_size(ctx.c, st); i++ {
		if C.GoString(C.Z3_stats_get_key(ctx.c, st, i)) != "rlimit count" {
			continue
		}
		if C.Z3_stats_is_uint(ctx.c, st, i) {
			return uint64(C.Z3_stats_get_uint_value(ctx.c, st, i)), nil
		}
		return uint64(C.Z3_stats_get_double_value(ctx.c, st, i)), nil
	}
	return 0, fmt.Errorf("z3: no resource counter in the statistics")
}

// WorkSpent reports whether the context's work bound (Config.Work) is
// spent: every further check returns Unknown, ReasonWorkSpent.
func (ctx *Context) WorkSpent() bool {
	if ctx.work == 0 {
		return false
	}
	done, err := ctx.Work()
	return err != nil || done >= ctx.work
}

// workLimit is the work bound of the next check of a solver whose own
// bound per check is per (0: none), with the work done before it.
type workLimit struct {
	limit, start uint64 // limit 0: none
	spent        bool   // nothing is left: the check must not run
}

// checkLimit is the rlimit of the next check: the smaller of per and of
// what is left of the context's bound.
func (ctx *Context) checkLimit(per uint64) (workLimit, error) {
	w := workLimit{limit: per}
	if per == 0 && ctx.work == 0 {
		return w, nil
	}
	done, err := ctx.Work()
	if err != nil {
		return w, err
	}
	w.start = done
	if ctx.work > 0 {
		if done >= ctx.work {
			w.spent = true
			return w, nil
		}
		if left := ctx.work - done; w.limit == 0 || left < w.limit {
			w.limit = left
		}
	}
	w.limit = min(w.limit, maxRlimit)
	return w, nil
}

// reached reports whether a check that returned Unknown used up its
// limit (some of Z3's solvers give no reason then).
func (ctx *Context) reached(w workLimit) bool {
	if w.limit == 0 {
		return false
	}
	done, err := ctx.Work()
	return err == nil && done-w.start >= w.limit
}

// SetCheckWork bounds the work of each following Check, within the
// context's Config.Work; zero removes the solver's own bound.
func (s *Solver) SetCheckWork(units uint64) { s.checkWork = units }

// SetCheckWork bounds the work of each following Check, within the
// context's Config.Work; zero removes the optimizer's own bound.
func (o *Optimize) SetCheckWork(units uint64) { o.checkWork = units }

// limitWork sets the rlimit parameter of the next check through set.
func (ctx *Context) limitWork(per uint64, set func(map[string]any) error) (workLimit, error) {
	w, err := ctx.checkLimit(per)
	if err != nil || w.spent || w.limit == 0 {
		return w, err
	}
	return w, set(map[string]any{"rlimit": uint(w.limit)})
}
