package cmd

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		floor, live uint64
		want        int
	}{
		{32 << 20, 4 << 20, 700},  // the target is live*(1+700/100) = 32 MB
		{32 << 20, 8 << 20, 300},  // 8*(1+3) = 32
		{32 << 20, 16 << 20, 100}, // half the floor: the default reaches it
		{32 << 20, 64 << 20, 100}, // never below the default
		{32 << 20, 0, 100},        // nothing read
	} {
		if got := gcPercentFor(c.floor, c.live); got != c.want {
			t.Errorf("gcPercentFor(%d, %d) = %d, want %d", c.floor, c.live, got, c.want)
		}
	}
}

// TestRaiseStartingHeap checks that a small live heap gets a raised target
// and that pacing returns to the default once the live heap reaches half
// the floor.
func TestRaiseStartingHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(defaultGCPercent))
	const floor = 64 << 20
	raiseStartingHeap(floor)
	if p := debug.SetGCPercent(-1); p <= defaultGCPercent {
		t.Fatalf("GC percent with a small heap = %d, want it raised", p)
	} else {
		debug.SetGCPercent(p)
	}
	live := make([]byte, floor/2+1<<20) // held across the collections below
	for i := range live {
		if i%4096 == 0 {
			live[i] = 1
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		runtime.GC()
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p == defaultGCPercent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GC percent with a live heap of half the floor = %d, want %d", p, defaultGCPercent)
		}
		time.Sleep(10 * time.Millisecond) // the finalizer runs after the collection
	}
	runtime.KeepAlive(live)
}

func TestRaiseStartingHeapLeavesGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	defer debug.SetGCPercent(debug.SetGCPercent(defaultGCPercent))
	debug.SetGCPercent(defaultGCPercent)
	raiseStartingHeap(1 << 30)
	if p := debug.SetGCPercent(defaultGCPercent); p != defaultGCPercent {
		t.Errorf("GC percent with GOGC set = %d, want the user's %d", p, defaultGCPercent)
	}
}
