//go:build cgo

package analysis

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis/formula"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/solver/z3"
)

// The watch interrupts a check whose memory grows past the bound while it
// runs: bit-blasting a 128-bit product takes tens of MB.
func TestMemoryWatchInterruptsACheck(t *testing.T) {
	// The timeout only ends the test should the memory never grow.
	z, err := z3.NewContext(z3.Config{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	s, err := z.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := new(big.Int).SetString("18446744073709551557", 10) // 2^64-59, prime
	q, _ := new(big.Int).SetString("18446744073709551533", 10) // 2^64-83, prime
	a, b := z.BVConst("a", 128), z.BVConst("b", 128)
	one, limit := z.BVUint(1, 128), z.BVBig(new(big.Int).Lsh(big.NewInt(1), 64), 128)
	if err := s.Assert(a.Mul(b).Eq(z.BVBig(new(big.Int).Mul(p, q), 128)), one.ULT(a), one.ULT(b), a.ULT(limit), b.ULT(limit)); err != nil {
		t.Fatal(err)
	}
	const margin = 8 << 20
	w := formula.WatchSolverMemory(z, z3.EstimatedAllocBytes()+margin)
	defer w.Stop()
	if w.Tripped() {
		t.Fatal("the watch tripped before the check")
	}
	start := time.Now()
	r, err := s.Check()
	if err != nil || r != z3.Unknown || !w.Tripped() {
		t.Fatalf("check = %v, %v after %v, watch tripped %v; want an interrupted check", r, err, time.Since(start), w.Tripped())
	}
	t.Logf("interrupted after %v: %s", time.Since(start), w.Note())
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the interrupted check took %v", took)
	}
}

// A formula search that passes Options.SolverMemory stops with a note, and
// the fallbacks still analyse the test: TestSmallArea needs Area's product
// (line 11) below 3, which value replacement finds without the solver.
// A search in the same process afterwards, unbounded, finds it by the
// formula again: the bound leaves no state behind in Z3.
func TestSolverMemoryStopsTheSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "float.txtar")
	mod := open(t, dir)
	target := testbuild.Target{Package: "example.com/temperature", Test: "TestSmallArea"}
	// A fresh Z3 context alone holds more than 1 MB.
	res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{MaxSize: 1, SolverMemory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	t.Logf("bounded: %d runs, notes %q", r.Runs, r.Notes)
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "the formula outgrew the solver's memory bound (") || !strings.Contains(notes, "MB held, bound 1 MB): search stopped") {
		t.Errorf("notes %q say nothing of the memory bound", r.Notes)
	}
	for _, c := range r.Candidates {
		if c.Found == FoundBySolver {
			t.Errorf("the formula found %+v past its memory bound", c.Locations)
		}
	}
	checkFaultFound(t, r, "temperature.go", 11)

	res, err = Analyze(context.Background(), mod, []testbuild.Target{target}, Options{MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(res[0].Notes, "\n"), "memory bound") || res[0].Switched != 0 {
		t.Errorf("unbounded search: notes %q, %d candidates by switching", res[0].Notes, res[0].Switched)
	}
	byFormula := TestResult{Test: res[0].Test}
	for _, c := range res[0].Candidates {
		if c.Found == FoundBySolver {
			byFormula.Candidates = append(byFormula.Candidates, c)
		}
	}
	checkFaultFound(t, byFormula, "temperature.go", 11)
}
