package spectra

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
	"github.com/faultline-go/faultline/spectra/rank"
)

// workspace extracts a txtar module into a fresh directory and opens it
// with a private store. The archive's "want" file, if any, is returned.
func workspace(t *testing.T, archive string) (*Workspace, string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", archive))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var want string
	for _, f := range ar.Files {
		if f.Name == "want" {
			want = string(f.Data)
			continue
		}
		writeFile(t, filepath.Join(dir, f.Name), string(f.Data))
	}
	ws, err := Open(dir, Options{CacheDir: t.TempDir(), Warn: func(msg string) { t.Log(msg) }})
	if err != nil {
		t.Fatal(err)
	}
	return ws, want
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// collect runs a collection and returns it with its last progress report.
func collect(t *testing.T, ws *Workspace, timeout time.Duration) (*Matrix, Progress) {
	t.Helper()
	var last Progress
	m, err := ws.Collect(context.Background(), CollectOptions{Timeout: timeout, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	return m, last
}

// executedLines returns the lines of file a test executed.
func executedLines(m *Matrix, test TestRun, file string) []int {
	var lines []int
	for h := range test.Hits.All() {
		if b := m.Blocks[h]; b.File == file {
			lines = append(lines, b.Lines...)
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

func TestCollectMessySuite(t *testing.T) {
	ws, want := workspace(t, "messy.txtar")
	m, _ := collect(t, ws, 3*time.Second)
	got := map[string]TestRun{}
	for _, test := range m.Tests {
		if _, dup := got[test.Name]; dup {
			t.Errorf("test %s reported twice", test.Name)
		}
		got[test.Name] = test
	}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		fields := strings.Fields(line)
		name, verdict := fields[0], Verdict(fields[1])
		test, ok := got[name]
		if !ok {
			t.Errorf("%s: missing; got %v", name, slices.Sorted(maps.Keys(got)))
			continue
		}
		delete(got, name)
		if test.Verdict != verdict {
			t.Errorf("%s: verdict %s, want %s\n%s", name, test.Verdict, verdict, test.Output)
		}
		executed := executedLines(m, test, "calc/calc.go")
		for _, f := range fields[2:] {
			l, _ := strconv.Atoi(f)
			if !slices.Contains(executed, l) {
				t.Errorf("%s: did not execute calc/calc.go:%d; executed %v", name, l, executed)
			}
		}
	}
	for name := range got {
		t.Errorf("unexpected leaf %s (%s)", name, got[name].Verdict)
	}
	if len(m.BuildErrors) != 0 {
		t.Errorf("build errors: %v", m.BuildErrors)
	}
	// The fault (line 11) must lead the ranking.
	r, err := RankLines(m, rank.Default())
	if err != nil {
		t.Fatal(err)
	}
	if top := r.Lines[0]; top.File != "calc/calc.go" || top.Line != 11 {
		t.Errorf("top line %s:%d, want calc/calc.go:11; ranking %+v", top.File, top.Line, r.Lines)
	}
}

// A module declaring an old Go builds instrumented, also when its tests are
// spread over processes.
func TestCollectOldLanguageVersion(t *testing.T) {
	ws, _ := workspace(t, "oldgo.txtar")
	m, err := ws.Collect(context.Background(), CollectOptions{Parallel: 2, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.BuildErrors) != 0 || len(m.Tests) != 3 {
		t.Fatalf("build errors %v, tests %+v", m.BuildErrors, m.Tests)
	}
}

// A test whose processes go over the test memory bound is stopped with
// the verdict Memory and named once; the package's other tests keep their
// verdicts, and a larger bound runs the package again.
func TestCollectStopsTestsOverMemoryBound(t *testing.T) {
	if !testbuild.MemoryBoundEnforced {
		t.Skip("the memory bound is enforced on Linux only")
	}
	dir := txtartest.Extract(t, filepath.Join("..", "internal", "testbuild", "testdata", "memory.txtar"))
	ws, err := Open(dir, Options{CacheDir: t.TempDir(), TestMemory: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	// Unbounded, a hoarding test waits at 1 GiB until this timeout.
	m, _ := collect(t, ws, 20*time.Second)
	want := map[string]Verdict{"TestBefore": Pass, "TestHoard": Memory, "TestChildHoards": Memory, "TestDetachedChildHoards": Memory,
		"TestHoardWhenRecorded": Fail, "TestAfter": Fail, "TestMain": Memory}
	got := map[string]Verdict{}
	for _, r := range m.Tests {
		got[r.Name] = r.Verdict
	}
	if !maps.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	notes := m.MemoryNotes()
	if len(notes) != 4 || !strings.Contains(notes[0], "over the test memory bound of 256 MB") {
		t.Errorf("notes %q, want the four hoarding tests named with the bound", notes)
	}
	r, err := RankLines(m, rank.Default())
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 2 || r.Passed != 1 {
		t.Errorf("%d failing and %d passing tests counted, want 2 and 1", r.Failed, r.Passed)
	}
	// The same bound reuses the result; a larger one runs the tests again.
	for _, c := range []struct {
		bound  int64
		reused int
	}{{256 << 20, 2}, {300 << 20, 0}} {
		var last Progress
		if _, err := ws.Collect(context.Background(), CollectOptions{Timeout: 20 * time.Second, TestMemory: c.bound, Progress: func(p Progress) { last = p }}); err != nil {
			t.Fatal(err)
		}
		if last.Reused != c.reused {
			t.Errorf("under a bound of %d MB, %d packages reused, want %d", c.bound>>20, last.Reused, c.reused)
		}
	}
}

// TestCollectTakesLeavesAsTheyPass: a passing test's result is taken
// while its process still runs (TestWaits waits for that), and the
// matrix keeps the order in which the process finished its tests, the
// failing one included.
func TestCollectTakesLeavesAsTheyPass(t *testing.T) {
	ws, _ := workspace(t, "released.txtar")
	released := filepath.Join(ws.Root(), "released")
	m, err := ws.Collect(context.Background(), CollectOptions{Timeout: 30 * time.Second, Parallel: 1, Progress: func(p Progress) {
		if p.Tests > 0 {
			if err := os.WriteFile(released, nil, 0o644); err != nil {
				t.Error(err)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range m.Tests {
		got = append(got, r.Name+" "+string(r.Verdict))
	}
	want := []string{"TestFirst pass", "TestFailing fail", "TestWaits pass", "TestLast pass"}
	if !slices.Equal(got, want) {
		t.Errorf("tests %q, want %q", got, want)
	}
}

// Counted code that package variables' initializers reach through an
// interface's methods or a function value runs before the package's
// tests, with its counters ready, with edges counted or not.
func TestCollectCountsCodeRunInPackageInitialization(t *testing.T) {
	for _, edges := range []bool{false, true} {
		ws, _ := workspace(t, "initorder.txtar")
		m, err := ws.Collect(context.Background(), CollectOptions{Timeout: time.Minute, Edges: edges})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.BuildErrors) != 0 || len(m.Tests) != 1 || m.Tests[0].Name != "TestLookup" || m.Tests[0].Verdict != Pass {
			t.Fatalf("edges %v: build errors %v, tests %+v; want TestLookup passing alone", edges, m.BuildErrors, m.Tests)
		}
		if _, passing := m.Executing("k/k.go", 14); len(passing) != 1 {
			t.Errorf("edges %v: k.go:14, run only by initialization, is in %d tests' spectra, want 1", edges, len(passing))
		}
	}
}

// collectTests collects the workspace of a txtar file and checks that its
// tests have the verdicts of want, by name; it returns the collection.
func collectTests(t *testing.T, archive string, want map[string]Verdict) *Matrix {
	t.Helper()
	ws, _ := workspace(t, archive)
	m, err := ws.Collect(context.Background(), CollectOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, test := range m.Tests {
		got[test.Name] = test.Verdict
	}
	if !maps.Equal(got, want) {
		t.Fatalf("tests %v, want %v; build errors %v", got, want, m.BuildErrors)
	}
	return m
}

func TestCollectRecordsFuzzTargetsAndTestsWithABlankT(t *testing.T) {
	m := collectTests(t, "blankt.txtar", map[string]Verdict{"FuzzParse/seed#0": Pass, "FuzzParse/seed#1": Panic,
		"TestUnnamed/long": Pass, "TestUnnamed/short": Pass, "FuzzBroken": Fail, "FuzzNoSeeds": Pass})
	for _, test := range m.Tests {
		if test.Hits.Len() == 0 && test.Name != "FuzzNoSeeds" { // the others call Parse
			t.Errorf("%s ran no block", test.Name)
		}
	}
}

func TestCollectRecordsEachTestOfASuite(t *testing.T) {
	collectTests(t, "suites.txtar", map[string]Verdict{"TestAbs/TestNegative": Fail, "TestAbs/TestPositive": Pass, "TestAbs/TestZero": Pass,
		"TestAbs/TestTable/case": Pass, "TestAbs/TestTable/case#01": Fail})
}

// A test's own panic ends the test with its trace and the verdict panic,
// and the tests after it run on in the same process (one: shards would
// divide the tests).
func TestCollectRunsOnPastATestsOwnPanic(t *testing.T) {
	ws, want := workspace(t, "panics.txtar")
	m, err := ws.Collect(context.Background(), CollectOptions{Timeout: time.Minute, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TestRun{}
	for _, test := range m.Tests {
		got[test.Name] = test
	}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		fields := strings.Fields(line)
		name, verdict := fields[0], fields[1]
		site, _ := strconv.Atoi(fields[2])
		test := got[name]
		var wantSites []Site
		if site > 0 {
			wantSites = []Site{{File: "calc/calc.go", Line: site}}
		}
		if test.Verdict != Verdict(verdict) || !slices.Equal(test.FailSites, wantSites) {
			t.Errorf("%s: verdict %q, failure at %v; want %s at %v\n%s", name, test.Verdict, test.FailSites, verdict, wantSites, test.Output)
		}
		if test.Verdict == Panic && !strings.Contains(test.Output, "panic: runtime error: invalid memory address") {
			t.Errorf("%s: output without the panic:\n%s", name, test.Output)
		}
	}
	if len(m.Tests) != 4 {
		t.Errorf("%d tests, want 4", len(m.Tests))
	}
}

// A test that hangs or dies after another test's panic in its process is
// run again in a new one: the panic may have left a lock held. (A timeout
// of 4 s stops the hanging one after 1 s.)
func TestCollectRunsATestAgainThatHangsAfterAPanic(t *testing.T) {
	ws, _ := workspace(t, "panicheld.txtar")
	m, err := ws.Collect(context.Background(), CollectOptions{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, test := range m.Tests {
		got[test.Name] = test.Verdict
	}
	want := map[string]Verdict{"TestIncr/panics": Panic, "TestIncr/after": Pass, "TestHold/panics": Panic, "TestHold/after": Pass}
	if !maps.Equal(got, want) {
		t.Errorf("tests %v, want %v", got, want)
	}
}

// A file table whose blocks do not increase with the counters is not
// handed to the runner, which packs leaves in the table's numbering: the
// leaves are then renumbered and sorted here.
func TestIncreasingFileTable(t *testing.T) {
	for _, c := range []struct {
		table []int32
		want  bool
	}{
		{nil, true},
		{[]int32{-1, 0, -1, 1, 2, -1}, true},
		{[]int32{0, 2, 1}, false},
		{[]int32{3, -1, 3}, false},
	} {
		if got := increasing(c.table); got != c.want {
			t.Errorf("increasing(%v) = %v, want %v", c.table, got, c.want)
		}
	}
}
