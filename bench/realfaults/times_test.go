package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// The figures count every fault eval ran, its rank failed or not, and the
// mutation line only the rankings whose analysis ran.
func TestEvalTimes(t *testing.T) {
	work := t.TempDir()
	b := &realfault.Benchmark{Faults: []realfault.Fault{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "unranked"}}}
	writeEval(t, work, "a", 10, 1)
	writeEval(t, work, "b", 30, 1)
	writeEval(t, work, "c", 20, 1)
	// d's rank ended with an error and no output: its time counts.
	dir := filepath.Join(work, "eval", "d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"seconds": {"evidence": 40}, "errors": {"evidence": "exit status 1"}, "load": [3, 1, 1]}`
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	mutation := map[string]string{
		"a": `{"generated": 100, "run": 100, "seconds": 4, "fixes": [{"file": "p.go", "line": 1}]}`,
		"b": `{"generated": 100, "run": 50, "seconds": 8, "fixes": []}`,
	}
	for id, m := range mutation {
		path := filepath.Join(work, "eval", id, "evidence.json")
		text := `{"failed": 1, "passed": 2, "lines": [{"file": "p.go", "line": 1}], "mutation": ` + m + `}`
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := evalTimes(&out, b, work, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"4 faults run (1 of them with no output): rank median 25.0 s, 90th percentile 40.0 s, worst 40.0 s; load (1 min) at the start median 1.0\n",
		"mutation analyses: 2, median 6.0 s, worst 8.0 s; 1 left mutants unrun; mutants run of those generated, median 75 %; 1 verified operator fixes\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := evalTimes(&out, b, work, []string{"c"}); err != nil {
		t.Fatal(err)
	}
	if want := "1 faults run (0 of them with no output): rank median 20.0 s"; !strings.HasPrefix(out.String(), want) || strings.Contains(out.String(), "mutation") {
		t.Errorf("-faults c: got\n%s", out.String())
	}
	if err := evalTimes(&out, b, work, []string{"unranked"}); err == nil {
		t.Error("no fault run: no error")
	}
}
