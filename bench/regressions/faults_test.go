package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// TestLoadFaultsMergesFiles checks that faults of several benchmark files
// are mined together, each known by its file, a project listed once.
func TestLoadFaultsMergesFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b realfault.Benchmark) string {
		path := filepath.Join(dir, name)
		if err := b.Save(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	first := write("a.json", realfault.Benchmark{
		Projects: []realfault.Project{{Repo: "o/a", Domain: "parser"}},
		Faults:   []realfault.Fault{{ID: "a-1", Repo: "o/a"}},
	})
	second := write("b.json", realfault.Benchmark{
		Projects: []realfault.Project{{Repo: "o/a", Domain: "other"}, {Repo: "o/b", Domain: "encoder"}},
		Faults:   []realfault.Fault{{ID: "a-2", Repo: "o/a"}, {ID: "b-1", Repo: "o/b"}},
	})
	b, fileOf, err := loadFaults([]string{first, second})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Projects) != 2 || b.Projects[0].Domain != "parser" {
		t.Errorf("projects = %+v, want o/a (from the first file) and o/b", b.Projects)
	}
	if len(b.Faults) != 3 {
		t.Errorf("faults = %d, want 3", len(b.Faults))
	}
	if fileOf["a-1"] != first || fileOf["b-1"] != second || fileOf["a-2"] != second {
		t.Errorf("files = %v", fileOf)
	}

	again := write("c.json", realfault.Benchmark{Faults: []realfault.Fault{{ID: "b-1", Repo: "o/b"}}})
	if _, _, err := loadFaults([]string{second, again}); err == nil || !strings.Contains(err.Error(), "b-1") {
		t.Errorf("a fault in two files: err = %v, want one naming it", err)
	}
	if _, _, err := loadFaults([]string{filepath.Join(dir, "missing.json")}); err == nil {
		t.Error("a missing file: no error")
	}
}

// TestMergeAddsNewMining checks that a mining run's regressions and counts
// are added to the file, and that merging the same run again is refused.
func TestMergeAddsNewMining(t *testing.T) {
	dst := &Benchmark{Faults: 2, Candidates: 3, Dropped: map[string]int{"x": 1},
		Regressions: []Regression{{ID: "a-1", Fault: "a-f", Fix: "f1"}}}
	src := &Benchmark{Faults: 4, Candidates: 5, Dropped: map[string]int{"x": 2, "y": 1},
		Regressions: []Regression{{ID: "b-1", Fault: "b-f", Fix: "f2"}}}
	src.Named.Fixes, src.Named.Dropped = 7, map[string]int{"z": 7}
	if err := mergeRegressions(dst, src); err != nil {
		t.Fatal(err)
	}
	if dst.Faults != 6 || dst.Candidates != 8 || dst.Dropped["x"] != 3 || dst.Dropped["y"] != 1 ||
		dst.Named.Fixes != 7 || dst.Named.Dropped["z"] != 7 || len(dst.Regressions) != 2 {
		t.Errorf("merged = %+v", dst)
	}
	if err := mergeRegressions(dst, src); err == nil {
		t.Error("the same run merged twice: no error")
	}
	if dst.Faults != 6 || len(dst.Regressions) != 2 {
		t.Errorf("a refused merge changed the file: %+v", dst)
	}
}
