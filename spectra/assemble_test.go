package spectra

import (
	"slices"
	"testing"
)

// TestAssembleTakesTheStoredTests: the matrix holds the tests' hits in its
// own block numbering, and the stored results no longer hold theirs, so a
// large module's hits are not held twice once its results are assembled.
func TestAssembleTakesTheStoredTests(t *testing.T) {
	files := storedFiles{blocks: map[string]*storedFile{
		fileKey("a.go", "h1"): {Path: "a.go", Hash: "h1", Blocks: []Block{{File: "a.go", Lines: []int{1}}, {File: "a.go", Lines: []int{2}}}},
		fileKey("b.go", "h2"): {Path: "b.go", Hash: "h2", Blocks: []Block{{File: "b.go", Lines: []int{1}}}},
	}}
	pkgs := []*storedPackage{
		{Package: "m/b", Files: []fileRef{{Path: "b.go", Hash: "h2", Blocks: 1}, {Path: "a.go", Hash: "h1", Blocks: 2}},
			tests: []storedTest{{TestRun: TestRun{Name: "TestB", Verdict: Fail}, Hits: packHits([]int32{0, 2})}}},
		{Package: "m/a", Files: []fileRef{{Path: "a.go", Hash: "h1", Blocks: 2}},
			tests: []storedTest{{TestRun: TestRun{Name: "TestA", Verdict: Pass}, Hits: packHits([]int32{1})}}},
	}
	m, err := assemble("/root", "m", pkgs, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{"TestA": {1}, "TestB": {1, 2}} // a.go's blocks first, then b.go's
	if len(m.Tests) != len(want) {
		t.Fatalf("%d tests, want %d", len(m.Tests), len(want))
	}
	for _, tr := range m.Tests {
		if got := tr.Hits.Slice(); !slices.Equal(got, want[tr.Name]) {
			t.Errorf("%s: hits %v, want %v", tr.Name, got, want[tr.Name])
		}
	}
	for _, p := range pkgs {
		if p.tests != nil {
			t.Errorf("%s: the stored result still holds %d tests", p.Package, len(p.tests))
		}
	}
}
