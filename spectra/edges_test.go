//go:build cgo

package spectra

import (
	"context"
	"maps"
	"testing"
	"time"
)

// Instrumentation must build wherever the original does and leave alone
// what it does not own; tests that rely on their order must keep their
// verdicts however the collection spreads them over processes: TestSecond
// needs TestFirst's leftovers, and which shard claims which varies from
// run to run.
func TestCollectEdges(t *testing.T) {
	ws, _ := workspace(t, "edges.txtar")
	m, err := ws.Collect(context.Background(), CollectOptions{Parallel: 2, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.BuildErrors) != 0 {
		t.Fatalf("build errors: %v", m.BuildErrors)
	}
	verdicts := map[string]Verdict{}
	for _, test := range m.Tests {
		verdicts[test.Name] = test.Verdict
	}
	want := map[string]Verdict{"TestFirst": Pass, "TestSecond": Pass, "TestOthers": Pass}
	if !maps.Equal(verdicts, want) {
		t.Errorf("verdicts %v, want %v", verdicts, want)
	}
	for _, b := range m.Blocks {
		if b.File != "e/e.go" {
			t.Errorf("a block in %s: generated and cgo files are not instrumented", b.File)
		}
	}
	if lines := executedLines(m, m.Tests[0], "e/e.go"); len(lines) == 0 {
		t.Errorf("%s executed no line of e/e.go", m.Tests[0].Name)
	}
}
