//go:build cgo && unix

package z3

import (
	"syscall"
	"testing"
	"time"
)

// These measure what one call into Z3 costs through the binding, for
// comparing ways of reaching the library (bench/README.md, solver
// section): a call that does almost nothing in Z3, a term construction
// (three calls and a Go allocation), and a small incremental check. Besides
// wall time they report the process's CPU time per operation (cpu-ns/op),
// which the other jobs on a shared machine disturb far less.

func BenchmarkCallASTID(b *testing.B) {
	ctx := newTestContext(b)
	x := ctx.BVConst("x", 32)
	var sum uint32
	measureCPU(b, func() {
		for b.Loop() {
			sum += x.ID()
		}
	})
	_ = sum
}

func BenchmarkCallBVAdd(b *testing.B) {
	ctx := newTestContext(b)
	x, y := ctx.BVConst("x", 32), ctx.BVConst("y", 32)
	measureCPU(b, func() {
		for b.Loop() {
			if x.Add(y).Err() != nil {
				b.Fatal("BVAdd failed")
			}
		}
	})
}

func BenchmarkCallCheck(b *testing.B) {
	ctx := newTestContext(b)
	s, err := ctx.NewSolverForLogic("QF_FD")
	if err != nil {
		b.Fatal(err)
	}
	x := ctx.BVConst("x", 8)
	a := ctx.BoolConst("a")
	if err := s.Assert(a.Implies(x.ULT(ctx.BVUint(3, 8)))); err != nil {
		b.Fatal(err)
	}
	measureCPU(b, func() {
		for b.Loop() {
			if r, err := s.CheckAssumptions(a); r != Sat || err != nil {
				b.Fatal(r, err)
			}
		}
	})
}

// measureCPU runs the benchmark loop and reports the process's user and
// system time per operation.
func measureCPU(b *testing.B, loop func()) {
	before := processCPU(b)
	loop()
	b.ReportMetric(float64(processCPU(b)-before)/float64(b.N), "cpu-ns/op")
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCloseDeepTerm measures Close of a context that still holds a
// chain of 4,000 nested additions: deleted with its references held, Z3
// took 6 s; released first, milliseconds (bench/README.md, solver section).
func BenchmarkCloseDeepTerm(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		ctx, err := NewContext(Config{Hold: true})
		if err != nil {
			b.Fatal(err)
		}
		sum := ctx.BVConst("x", 32)
		for i := range 4000 {
			sum = sum.Add(ctx.BVUint(uint64(i), 32))
		}
		b.StartTimer()
		ctx.Close()
	}
}
