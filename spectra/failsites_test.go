package spectra

import (
	"slices"
	"testing"
)

// A panic's output with two goroutines: each frame names a file inside the
// module, faultline's runtime, or outside the module.
const twoGoroutines = `panic: boom

goroutine 7 [running]:
	/mod/internal/faultlinert/rt.go:10 +0x1
	/usr/lib/go/src/runtime/panic.go:770 +0x2
	/mod/calc/calc.go:12 +0x3
	/mod/calc/calc.go:30 +0x4
	/mod/calc/calc_test.go:8 +0x5

goroutine 9 [chan receive]:
	/mod/calc/worker.go:4 +0x6
	/mod/calc/calc.go:30 +0x7

goroutine 11 [select]:
	/mod/calc/calc.go:12 +0x8
	/mod/calc/worker.go:9 +0x9
`

// FailSites of a panic keeps the innermost module frame of each goroutine,
// each site once (goroutine 11's is goroutine 7's, and no other of its
// frames stands in); StackSites keeps every module frame of the first
// goroutine.
func TestTraceSites(t *testing.T) {
	got := FailSites(Panic, twoGoroutines, "/mod/calc", "/mod")
	if want := []Site{{"calc/calc.go", 12}, {"calc/worker.go", 4}}; !slices.Equal(got, want) {
		t.Errorf("FailSites = %v, want %v", got, want)
	}
	got = StackSites(twoGoroutines, "/mod")
	if want := []Site{{"calc/calc.go", 12}, {"calc/calc.go", 30}, {"calc/calc_test.go", 8}}; !slices.Equal(got, want) {
		t.Errorf("StackSites = %v, want %v", got, want)
	}
}
