package spectra

import (
	"context"
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
	byName := map[string]TestRun{}
	for _, r := range m.Tests {
		byName[r.Name] = r
	}
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
