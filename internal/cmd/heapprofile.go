package cmd

import (
	"context"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// heapPeakInterval is how often watchHeapPeak reads the live heap.
const heapPeakInterval = 250 * time.Millisecond

// watchHeapPeak writes the heap profile to path each time the heap in
// use (objects live or not yet swept) passes its largest size so far, until
// ctx ends: the file then holds what was live near the command's peak,
// which a profile written at exit no longer shows. For FAULTLINE_HEAPPROFILE.
func watchHeapPeak(ctx context.Context, path string) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	tick := time.NewTicker(heapPeakInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		heap := sample[0].Value.Uint64()
		// A tenth above the last peak: not a profile at every small rise.
		if heap <= peak+peak/10 {
			continue
		}
		peak = heap
		if err := writeHeapProfile(path); err != nil {
			fmt.Fprintf(os.Stderr, "faultline: %v\n", err)
			return
		}
	}
}

// writeHeapProfile writes the heap profile (in use and allocated) to path,
// through a temporary file so that a reader never sees half of one.
func writeHeapProfile(path string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("writing the heap profile: %w", err)
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("writing the heap profile: %w", err)
	}
	return nil
}
