package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// writeEval writes one fault's eval result: its rank time and its lines in
// the order given.
func writeEval(t *testing.T, work, id string, seconds float64, lines ...int) {
	t.Helper()
	dir := filepath.Join(work, "eval", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var ranked []string
	for _, l := range lines {
		ranked = append(ranked, fmt.Sprintf(`{"file": "p.go", "line": %d}`, l))
	}
	files := map[string]string{
		"meta.json":     fmt.Sprintf(`{"seconds": {"evidence": %g}, "load": [1, 1, 1]}`, seconds),
		"evidence.json": fmt.Sprintf(`{"failed": 1, "passed": 2, "lines": [%s]}`, strings.Join(ranked, ", ")),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Lines listed elsewhere and a faulty line that moved are counted per
// fault; a fault ranked in one directory only is left out.
func TestCompareCountsMovedLines(t *testing.T) {
	oldWork, newWork := t.TempDir(), t.TempDir()
	b := &realfault.Benchmark{Faults: []realfault.Fault{
		{ID: "same", Faulty: []realfault.FaultyFile{{File: "p.go", Lines: []int{3}}}},
		{ID: "moved", Faulty: []realfault.FaultyFile{{File: "p.go", Lines: []int{3}}}},
		{ID: "tail", Faulty: []realfault.FaultyFile{{File: "p.go", Lines: []int{1}}}},
		{ID: "old-only", Faulty: []realfault.FaultyFile{{File: "p.go", Lines: []int{1}}}},
	}}
	writeEval(t, oldWork, "same", 10, 3, 1, 2)
	writeEval(t, newWork, "same", 5, 3, 1, 2)
	writeEval(t, oldWork, "moved", 10, 1, 3, 2)
	writeEval(t, newWork, "moved", 20, 3, 1, 2)
	writeEval(t, oldWork, "tail", 4, 1, 2, 3)
	writeEval(t, newWork, "tail", 4, 1, 3, 2)
	writeEval(t, oldWork, "old-only", 4, 1)
	var out strings.Builder
	if err := compareEvals(&out, b, oldWork, newWork, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"faulty line: 2 → 1",
		"same place:     1 of     3 lines  faulty line: 1 → 1",
		"3 faults: median 10.0 s → 5.0 s, worst 10.0 s → 20.0 s, per-fault ratio median 1.00 (0.50–2.00); 2 list a line elsewhere, 1 moved their faulty line",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "old-only") {
		t.Errorf("a fault ranked in one directory is compared:\n%s", out.String())
	}
}
