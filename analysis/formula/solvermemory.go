//go:build cgo

package formula

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/solver/z3"
)

// solverPoll is how often a memoryWatch reads Z3's estimate.
const solverPoll = 50 * time.Millisecond

// errSolverMemory ends a search whose formula outgrew Options.SolverMemory.
var errSolverMemory = errors.New("the solver's memory bound was passed")

// memoryWatch bounds the memory Z3 holds during one formula search. Once
// Z3's estimate passes the bound it interrupts the context's check, and
// keeps interrupting at every poll (Z3 forgets an interrupt once the check
// it ended returns) until the search, which asks tripped between steps,
// stops. The fallbacks that follow need little memory, so the test is
// still analysed; a worker killed for its size would lose it whole. Z3's
// own memory_max_size is not used: the out-of-memory state it sets
// outlives the context and fails every later one.
//
// A nil *memoryWatch watches nothing.
type memoryWatch struct {
	bound uint64
	held  atomic.Uint64 // the estimate that passed the bound; 0 while within it
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// watchSolverMemory starts watching z; a bound of 0 means no watch. A bound
// already passed trips it at once, before the search's first check.
func WatchSolverMemory(z *z3.Context, bound uint64) *memoryWatch {
	if bound == 0 {
		return nil
	}
	w := &memoryWatch{bound: bound, quit: make(chan struct{}), done: make(chan struct{})}
	w.poll(z)
	go func() {
		defer close(w.done)
		tick := time.NewTicker(solverPoll)
		defer tick.Stop()
		for {
			select {
			case <-w.quit:
				return
			case <-tick.C:
				w.poll(z)
			}
		}
	}()
	return w
}

func (w *memoryWatch) poll(z *z3.Context) {
	if n := z3.EstimatedAllocBytes(); n > w.bound {
		w.held.CompareAndSwap(0, n)
	}
	if w.held.Load() != 0 {
		z.Interrupt()
	}
}

// stop ends the watch; it must come before the context is closed, and may
// come more than once.
func (w *memoryWatch) Stop() {
	if w == nil {
		return
	}
	w.once.Do(func() { close(w.quit) })
	<-w.done
}

// tripped reports whether the bound was passed: every check since may have
// been interrupted, so no answer of the solver can be trusted.
func (w *memoryWatch) Tripped() bool { return w != nil && w.held.Load() != 0 }

// note says in TestResult.Notes why the search stopped.
func (w *memoryWatch) Note() string {
	return fmt.Sprintf("the formula outgrew the solver's memory bound (%d MB held, bound %d MB): search stopped",
		megabytes(w.held.Load()), megabytes(w.bound))
}

// megabytes rounds a size in bytes to the nearest MiB.
func megabytes(n uint64) uint64 { return (n + 1<<19) >> 20 }
