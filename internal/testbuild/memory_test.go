package testbuild

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// testMemoryBound is the bound the memory tests set: far under what the
// fixture's tests hoard (1 GiB each) and far over what a test binary needs.
const testMemoryBound = 256 << 20

// hoardingBinary builds the memory fixture's test binary in a module whose
// tests are bounded at testMemoryBound.
func hoardingBinary(t *testing.T) (*Module, *Binary) {
	t.Helper()
	if !MemoryBoundEnforced {
		t.Skip("the memory bound is enforced on Linux only")
	}
	dir := txtartest.Extract(t, filepath.Join("testdata", "memory.txtar"))
	m, err := Open(dir, Config{CacheDir: t.TempDir(), TestMemory: testMemoryBound})
	if err != nil {
		t.Fatal(err)
	}
	if m.TestMemory() != testMemoryBound {
		t.Fatalf("TestMemory() = %d, want %d", m.TestMemory(), testMemoryBound)
	}
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	return m, build(t, m, o, "example.com/memory/m")
}

// A test whose process tree holds more than the memory bound, in the test
// process or in a child, is stopped with the verdict Memory; tests that do
// not are unaffected.
func TestMemoryBoundStopsTestProcessTree(t *testing.T) {
	m, bin := hoardingBinary(t)
	want := map[string]Verdict{"TestBefore": Pass, "TestHoard": Memory, "TestChildHoards": Memory, "TestAfter": Fail}
	for _, test := range []string{"TestBefore", "TestHoard", "TestChildHoards", "TestAfter"} {
		// Unbounded, a hoarding test waits at 1 GiB until this timeout.
		out, err := m.RunTest(context.Background(), bin, test, 20*time.Second, nil)
		if err != nil {
			t.Fatalf("%s: %v", test, err)
		}
		if out.Verdict != want[test] {
			t.Errorf("%s: verdict %s, want %s\n%s", test, out.Verdict, want[test], out.Output)
		}
		if stopped := strings.Contains(out.Output, "over the test memory bound of 256 MB"); stopped != (want[test] == Memory) {
			t.Errorf("%s: output names the bound: %v\n%s", test, stopped, out.Output)
		}
	}
	if Memory.Failing() || Memory.Counted() {
		t.Error("a test stopped by the memory bound counts as evidence")
	}
}

func TestDefaultTestMemory(t *testing.T) {
	d := DefaultTestMemory()
	if d <= 0 || d > MaxDefaultTestMemory {
		t.Fatalf("DefaultTestMemory() = %d", d)
	}
	if total := totalMemory(); total > 0 && d > total/2 {
		t.Errorf("DefaultTestMemory() = %d, more than half of the machine's %d", d, total)
	}
}

// A tree's memory is its root's, its descendants' and its process group's
// (a child whose parent died), not its parent's or another group's.
func TestProcessTree(t *testing.T) {
	table := processTable{
		1:  {ppid: 0, pgrp: 1, resident: 1000},
		10: {ppid: 1, pgrp: 10, resident: 1},   // the root
		11: {ppid: 10, pgrp: 10, resident: 2},  // its child
		12: {ppid: 11, pgrp: 12, resident: 4},  // a grandchild in a group of its own
		13: {ppid: 1, pgrp: 10, resident: 8},   // orphaned, still in the root's group
		14: {ppid: 13, pgrp: 14, resident: 16}, // the orphan's child
		20: {ppid: 1, pgrp: 20, resident: 100}, // another test
	}
	if pids, got := table.tree(10); got != 31 || len(pids) != 5 {
		t.Errorf("tree(10) = %v, %d; want 5 processes holding 31", pids, got)
	}
	if pids, got := table.tree(99); got != 0 || len(pids) != 0 {
		t.Errorf("tree of a process gone = %v, %d; want nothing", pids, got)
	}
}
