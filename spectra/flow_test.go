package spectra

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-go/faultline/spectra/blockrank"
)

// edgeOf finds the edge of a function from a block of one kind to a block
// of another, and returns its index in the matrix.
func edgeOf(t *testing.T, fl *Flow, function, from, to string) int {
	t.Helper()
	for _, fn := range fl.Funcs {
		if fn.Name != function {
			continue
		}
		for i, e := range fn.Edges {
			if fn.Blocks[e.From].Kind == from && fn.Blocks[e.To].Kind == to {
				return fn.FirstEdge + i
			}
		}
	}
	t.Fatalf("no edge %s -> %s in %s", from, to, function)
	return -1
}

func traversals(fl *Flow, test int, edge int) uint64 {
	for _, c := range fl.Runs[test] {
		if c.Edge == edge {
			return c.N
		}
	}
	return 0
}

func TestCollectEdgeProfiles(t *testing.T) {
	ws, _ := workspace(t, "flow.txtar")
	ctx := context.Background()
	m, err := ws.Collect(ctx, CollectOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if m.Flow != nil {
		t.Fatal("a collection without edges has a flow")
	}
	var last Progress
	m, err = ws.Collect(ctx, CollectOptions{Timeout: 2 * time.Second, Edges: true, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if last.Reused != 0 {
		t.Errorf("%d packages reused from a collection without edges", last.Reused)
	}
	fl := m.Flow
	if fl == nil || len(fl.Runs) != len(m.Tests) {
		t.Fatalf("flow %v for %d tests", fl, len(m.Tests))
	}
	tests := map[string]int{}
	for i, test := range m.Tests {
		tests[test.Name] = i
	}
	verdicts := map[string]Verdict{"TestPutGet": Pass, "TestEmpty": Pass, "TestFull": Pass, "TestWrap": Panic, "TestDrain": Panic,
		"TestSizes/1": Pass, "TestSizes/2": Pass, "TestPositive": Panic, "TestHang": Timeout}
	for name, want := range verdicts {
		if i, ok := tests[name]; !ok || m.Tests[i].Verdict != want {
			t.Errorf("%s: verdict %v, want %v", name, m.Tests[i].Verdict, want)
		}
	}
	putEntry := edgeOf(t, fl, "(*Queue).Put", "Entry", "Body")
	getEntry := edgeOf(t, fl, "(*Queue).Get", "Entry", "Body")
	getCrash := edgeOf(t, fl, "(*Queue).Get", "IfDone", "Exit")
	for _, c := range []struct {
		test      string
		edge      int
		want      uint64
		traversal string
	}{
		{"TestPutGet", putEntry, 2, "calls of Put"},
		{"TestPutGet", getEntry, 2, "calls of Get"},
		{"TestFull", putEntry, 3, "calls of Put"},
		{"TestSizes/2", putEntry, 3, "calls of Put by the subtest"},
		{"TestWrap", getEntry, 3, "calls of Get, the last crashing"},
		{"TestWrap", getCrash, 2, "returns from Get's second block"},
		{"TestDrain", getCrash, 3, "returns from Get's second block before the crash"},
		{"TestPositive", edgeOf(t, fl, "MustPositive", "Body", "IfThen"), 1, "entries of the block that exits"},
		{"TestHang", edgeOf(t, fl, "Spin", "Body", "ForBody"), 1, "entries of the loop that hangs"},
	} {
		if got := traversals(fl, tests[c.test], c.edge); got != c.want {
			t.Errorf("%s: %d %s, want %d", c.test, got, c.traversal, c.want)
		}
	}
	// The hung test's counts up to the kill are kept: the loop ran.
	if n := traversals(fl, tests["TestHang"], edgeOf(t, fl, "Spin", "SelectDone", "ForBody")); n < 1000 {
		t.Errorf("TestHang: the loop went round %d times before the kill", n)
	}

	for _, mode := range []blockrank.Mode{blockrank.Full, blockrank.Calibrated} {
		r, err := RankBlockRank(m, blockrank.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		// The hanging loop of Spin ranks first: failing runs (the hung
		// test) go round it millions of times more. Get's crashing block
		// comes next.
		var fault *LineScore
		for i := range r.Lines {
			if l := &r.Lines[i]; l.File == "queue/queue.go" && l.Line == 31 {
				fault = l
			}
		}
		if fault == nil || fault.BlockRank == nil {
			t.Fatalf("%v: the faulty line is not ranked: %+v", mode, r.Lines)
		}
		above := 0
		for _, l := range r.Lines[:fault.Tie[0]-1] {
			if l.BlockRank == nil || l.BlockRank.Function != "Spin" {
				above++
			}
		}
		if above > 0 || fault.BlockRank.T >= 1 || fault.BlockRank.Local <= 0 || fault.BlockRank.Function != "(*Queue).Get" {
			t.Errorf("%v: faulty line ranked %v below %d lines outside Spin, with %+v", mode, fault.Tie, above, *fault.BlockRank)
		}
		if r.Failed != 4 || r.Passed != 5 || r.BlockRank == nil || r.BlockRank.Mode != mode.String() {
			t.Errorf("%v: %d failed, %d passed, summary %+v", mode, r.Failed, r.Passed, r.BlockRank)
		}
	}

	// A comment-only edit: the instrumentation made of the file before is
	// reused, and the tests run again to the same profiles.
	before, err := RankBlockRank(m, blockrank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	edit(t, ws, "queue/queue.go", "// Queue is a ring buffer.", "// Queue is a ring buffer (a longer comment).")
	m, err = ws.Collect(ctx, CollectOptions{Timeout: 2 * time.Second, Edges: true, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	after, err := RankBlockRank(m, blockrank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if last.Reused != 0 || len(after.Lines) != len(before.Lines) {
		t.Fatalf("after a comment edit: %d packages reused, %d lines ranked (%d before)", last.Reused, len(after.Lines), len(before.Lines))
	}
	for i, l := range after.Lines {
		// Spin's hang is killed after the timeout: its counts vary.
		if b := before.Lines[i]; l.BlockRank.Function != "Spin" && (l.File != b.File || l.Line != b.Line || l.Score != b.Score) {
			t.Errorf("after a comment edit, rank %d is %s:%d (%g); before %s:%d (%g)", i+1, l.File, l.Line, l.Score, b.File, b.Line, b.Score)
		}
	}

	// A collection without edges reuses results that have them.
	m, err = ws.Collect(ctx, CollectOptions{Timeout: 2 * time.Second, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if last.Reused != last.Packages || m.Flow == nil {
		t.Errorf("reused %d of %d packages, flow %v", last.Reused, last.Packages, m.Flow != nil)
	}
	if _, err := RankBlockRank(&Matrix{}, blockrank.Options{}); err != ErrNoFlow {
		t.Errorf("a matrix without flow: %v", err)
	}
}
