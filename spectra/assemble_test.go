package spectra

import (
	"slices"
	"testing"
	"unsafe"
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

// TestAssembleSharesEqualHits: tests that executed the same blocks share
// one copy of their hits, exactly sized, and the others keep their own.
func TestAssembleSharesEqualHits(t *testing.T) {
	files := storedFiles{blocks: map[string]*storedFile{
		fileKey("a.go", "h1"): {Path: "a.go", Hash: "h1", Blocks: make([]Block, 300)},
	}}
	same := make([]int32, 0, 200)
	for b := range int32(200) {
		same = append(same, b+b/2) // gaps of 1 and 2
	}
	pkgs := []*storedPackage{
		{Package: "m/a", Files: []fileRef{{Path: "a.go", Hash: "h1", Blocks: 300}}, tests: []storedTest{
			{TestRun: TestRun{Name: "TestA"}, Hits: packHits(same)},
			{TestRun: TestRun{Name: "TestB"}, Hits: packHits([]int32{1, 2})},
			{TestRun: TestRun{Name: "TestC"}, Hits: packHits(same)},
		}},
		{Package: "m/b", Files: []fileRef{{Path: "a.go", Hash: "h1", Blocks: 300}}, tests: []storedTest{
			{TestRun: TestRun{Name: "TestD"}, Hits: packHits(same)},
		}},
	}
	m, err := assemble("/root", "m", pkgs, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	storage := func(i int) *byte { return &m.Tests[i].Hits.set.Bytes()[0] }
	if storage(0) != storage(2) || storage(0) != storage(3) {
		t.Errorf("TestA, TestC and TestD executed the same blocks and do not share their hits")
	}
	if storage(1) == storage(0) {
		t.Errorf("TestB shares the hits of TestA")
	}
	for _, tr := range m.Tests {
		if b := tr.Hits.set.Bytes(); cap(b) != len(b) {
			t.Errorf("%s: hits of %d bytes hold %d", tr.Name, len(b), cap(b))
		}
	}
	if got := m.Tests[2].Hits.Len(); got != 200 {
		t.Errorf("TestC executed %d blocks, want 200", got)
	}
}

// TestAssembleSharesPackageAndVerdict: the tests of a package, decoded
// from the store with a copy of its import path and verdict each, share
// one copy of each in the matrix.
func TestAssembleSharesPackageAndVerdict(t *testing.T) {
	files := storedFiles{blocks: map[string]*storedFile{
		fileKey("a.go", "h1"): {Path: "a.go", Hash: "h1", Blocks: []Block{{File: "a.go", Lines: []int{1}}}},
	}}
	var tests []storedTest
	for _, name := range []string{"TestA", "TestB"} {
		tests = append(tests, storedTest{TestRun: TestRun{Package: "m/a", Name: name, Verdict: Pass}, Hits: packHits([]int32{0})})
	}
	data, err := gobEncode(tests)
	if err != nil {
		t.Fatal(err)
	}
	var decoded []storedTest // as read from the store: copies of every string
	if err := gobDecode(data, &decoded); err != nil {
		t.Fatal(err)
	}
	pkgs := []*storedPackage{{Package: "m/a", Files: []fileRef{{Path: "a.go", Hash: "h1", Blocks: 1}}, tests: decoded}}
	m, err := assemble("/root", "m", pkgs, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := m.Tests[0], m.Tests[1]
	if a.Package != "m/a" || unsafe.StringData(a.Package) != unsafe.StringData(b.Package) {
		t.Errorf("the tests of m/a hold their import path %q, %q in copies of their own", a.Package, b.Package)
	}
	if a.Verdict != Pass || unsafe.StringData(string(a.Verdict)) != unsafe.StringData(string(b.Verdict)) {
		t.Errorf("the tests' verdicts %q, %q are copies of their own", a.Verdict, b.Verdict)
	}
}
