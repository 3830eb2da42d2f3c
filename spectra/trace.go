package spectra

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// phaseTrace prints how long each phase of a collection took when
// FAULTLINE_DEBUG is set, for finding out where time goes on a real module.
type phaseTrace struct {
	mu    sync.Mutex
	on    bool
	start time.Time
	last  time.Time
}

func newPhaseTrace() *phaseTrace {
	now := time.Now()
	return &phaseTrace{on: os.Getenv("FAULTLINE_DEBUG") != "", start: now, last: now}
}

// done reports the phase that ends now.
func (t *phaseTrace) done(phase string) {
	if !t.on {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if phase == "collect" {
		fmt.Fprintf(os.Stderr, "faultline: %-30s %v\n", phase, now.Sub(t.start).Round(time.Millisecond))
	} else {
		fmt.Fprintf(os.Stderr, "faultline: %-30s %v\n", phase, now.Sub(t.last).Round(time.Millisecond))
	}
	t.last = now
}

// since reports a phase that ran concurrently with others.
func (t *phaseTrace) since(start time.Time, phase string) {
	if t == nil || !t.on {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(os.Stderr, "faultline: %-30s %v\n", phase, time.Since(start).Round(time.Millisecond))
}
