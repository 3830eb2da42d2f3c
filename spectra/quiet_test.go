package spectra

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A package run in two processes without -test.v: verdicts and run times
// come from the records, passing output is not kept, and a collection that
// wants it (faultline test -v) runs the package again.
func TestQuietShardsGiveVerdictsAndTimes(t *testing.T) {
	ws, _ := workspace(t, "quiet.txtar")
	collectWith := func(passingOutput bool) (*Matrix, Progress) {
		t.Helper()
		var last Progress
		m, err := ws.Collect(context.Background(), CollectOptions{Parallel: 2, Timeout: time.Minute, PassingOutput: passingOutput, Progress: func(p Progress) { last = p }})
		if err != nil {
			t.Fatal(err)
		}
		return m, last
	}
	m, _ := collectWith(false)
	byName := quietVerdicts(m)
	if len(m.Tests) != 24 {
		t.Fatalf("%d tests, want 24: %v", len(m.Tests), m.Tests)
	}
	for name, want := range map[string]Verdict{"TestSlow": Pass, "TestSkipped": Skip, "TestTable/7": Pass, "TestCleanupFails": Pass, "ExampleTwice": Pass} {
		if got := byName[name].Verdict; got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if slow := byName["TestSlow"]; slow.Elapsed < 30*time.Millisecond || slow.Output != "" {
		t.Errorf("TestSlow ran %s with output %q, want at least 30ms and no output kept", slow.Elapsed, slow.Output)
	}
	m, last := collectWith(true)
	if last.Reused != 0 {
		t.Errorf("a result without passing output reused for a collection that wants it")
	}
	for _, r := range m.Tests {
		if r.Name == "TestSlow" && !strings.Contains(r.Output, "passing log") {
			t.Errorf("TestSlow's output %q, want its log", r.Output)
		}
	}
	if _, last = collectWith(false); last.Reused != 1 {
		t.Errorf("a result with passing output not reused: %d packages reused", last.Reused)
	}
}

// A failure no record shows, a cleanup's, sends the package to a run in
// one process that reports it with its output.
func TestQuietShardsRunAgainOnUnrecordedFailure(t *testing.T) {
	t.Setenv("QUIET_FAIL", "1")
	ws, _ := workspace(t, "quiet.txtar")
	m, err := ws.Collect(context.Background(), CollectOptions{Parallel: 2, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Tests {
		switch r.Name {
		case "TestCleanupFails":
			if r.Verdict != Fail || !strings.Contains(r.Output, "cleanup found a leftover") {
				t.Errorf("TestCleanupFails: %s %q, want a failure with its message", r.Verdict, r.Output)
			}
		case "TestSlow":
			if r.Verdict != Pass {
				t.Errorf("TestSlow: %s", r.Verdict)
			}
		}
	}
}

// A leaf that fails in the shards runs again alone, its passing siblings and
// the other tests not again, and keeps its verdict with its output.
func TestQuietShardsRunOnlyFailingLeavesAgain(t *testing.T) {
	m, runs := collectQuiet(t, "QUIET_TABLE_FAILS", "QUIET_TABLE_PANICS")
	verdicts := quietVerdicts(m)
	if r := verdicts["TestTable/7"]; r.Verdict != Fail || !strings.Contains(r.Output, "wrong") {
		t.Errorf("TestTable/7: %s %q, want a failure with its message", r.Verdict, r.Output)
	}
	if r := verdicts["TestTable/3"]; r.Verdict != Panic || !strings.Contains(r.Output, "table entry 3") {
		t.Errorf("TestTable/3: %s %q, want a panic with its message", r.Verdict, r.Output)
	}
	if len(m.Tests) != 24 || verdicts["TestTable/6"].Verdict != Pass || verdicts["TestSlow"].Verdict != Pass {
		t.Errorf("%d tests, TestTable/6 %s, TestSlow %s: want 24, both passing", len(m.Tests), verdicts["TestTable/6"].Verdict, verdicts["TestSlow"].Verdict)
	}
	if runs != 1 {
		t.Errorf("TestSlow ran %d times, want once", runs)
	}
}

// A leaf that fails beside the other tests and passes alone sends the
// package to a run in one process, whose verdicts stand.
func TestQuietShardsRunAllAgainWhenAFailureGoesAlone(t *testing.T) {
	m, runs := collectQuiet(t, "QUIET_FAILS_BESIDE")
	if r := quietVerdicts(m)["TestTable/7"]; r.Verdict != Fail || !strings.Contains(r.Output, "fails beside") {
		t.Errorf("TestTable/7: %s %q, want the failure of the run in one process", r.Verdict, r.Output)
	}
	if runs != 2 {
		t.Errorf("TestSlow ran %d times, want twice: in a shard and in the run in one process", runs)
	}
}

// collectQuiet collects quiet.txtar in two quiet shards with the variables
// named set, and counts TestSlow's runs.
func collectQuiet(t *testing.T, set ...string) (*Matrix, int) {
	t.Helper()
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv("QUIET_RUNS", runs)
	for _, v := range set {
		t.Setenv(v, "1")
	}
	ws, _ := workspace(t, "quiet.txtar")
	m, err := ws.Collect(context.Background(), CollectOptions{Parallel: 2, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	return m, strings.Count(string(data), "run\n")
}

func quietVerdicts(m *Matrix) map[string]TestRun {
	byName := map[string]TestRun{}
	for _, r := range m.Tests {
		byName[r.Name] = r
	}
	return byName
}
