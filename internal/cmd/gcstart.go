package cmd

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// collectStartingHeap is the heap a command-line collection grows to before
// the garbage collector paces itself by GOGC. A collection allocates tens of
// MB of short-lived buffers (test output, records, events) over a live heap
// of a few MB; from the runtime's 4 MB start the collector ran a dozen
// times on cast, about a fifth of faultline's own CPU there.
const collectStartingHeap = 32 << 20

// defaultGCPercent is GOGC's default.
const defaultGCPercent = 100

// raiseStartingHeap lets the heap grow to about floor bytes before garbage
// is collected at GOGC's pace, as the go command's compiler does: the
// collector's target is raised while the live heap is small and set back
// to the default once the live heap reaches half of floor, so the heap never
// exceeds the larger of floor and what the default allows. It does nothing
// when GOGC or GOMEMLIMIT is set: the user's pacing stands. The pacing is
// the process's; only a short-lived command-line process should raise it.
func raiseStartingHeap(floor uint64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	h := &heapFloor{floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	// Before the first collection the runtime's target is 4 MB at GOGC=100.
	debug.SetGCPercent(gcPercentFor(floor, 4<<20))
	h.arm()
}

// heapFloor sets the collector's target after each collection until the
// live heap is large enough for the default pacing to reach floor.
type heapFloor struct {
	mu     sync.Mutex
	floor  uint64
	sample []metrics.Sample
}

// gcSentinel is garbage from its allocation on: its finalizer runs after
// the next collection.
type gcSentinel struct{ h *heapFloor }

func (h *heapFloor) arm() {
	runtime.SetFinalizer(&gcSentinel{h: h}, func(s *gcSentinel) { s.h.collected() })
}

// collected runs after a collection: it sets the target for the live heap
// just marked and waits for the next collection, or hands pacing back.
func (h *heapFloor) collected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	metrics.Read(h.sample)
	live := h.sample[0].Value.Uint64()
	p := gcPercentFor(h.floor, live)
	debug.SetGCPercent(p)
	if p > defaultGCPercent {
		h.arm()
	}
}

// gcPercentFor is the GOGC that puts the heap target of a live heap at
// floor, and never below the default.
func gcPercentFor(floor, live uint64) int {
	if live == 0 || live >= floor/2 {
		return defaultGCPercent
	}
	return int(floor*100/live) - 100
}
