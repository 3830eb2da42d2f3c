package spectra

import (
	"fmt"
	"math/rand/v2"
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
	m, err := assemble("/root", "m", pkgs, files, nil, true)
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
	m, err := assemble("/root", "m", pkgs, files, nil, true)
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
	m, err := assemble("/root", "m", pkgs, files, nil, true)
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

// TestAssembleOrdersHitsAcrossFiles: a package whose files are numbered
// in another order than the matrix's (counter order against path order)
// gets its tests' hits in the matrix's order, as mapping each hit and
// sorting would give, whatever blocks they hit; hits past the package's
// blocks are dropped, and a file listed twice still gives each block once.
func TestAssembleOrdersHitsAcrossFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		nFiles := 1 + rng.IntN(6)
		files := storedFiles{blocks: map[string]*storedFile{}}
		var refs []fileRef
		for i := range nFiles {
			path := fmt.Sprintf("f%d.go", i)
			n := rng.IntN(5)
			files.blocks[fileKey(path, "h")] = &storedFile{Path: path, Hash: "h", Blocks: make([]Block, n)}
			refs = append(refs, fileRef{Path: path, Hash: "h", Blocks: n})
		}
		rng.Shuffle(len(refs), func(i, j int) { refs[i], refs[j] = refs[j], refs[i] })
		if round%10 == 0 {
			refs = append(refs, refs[0]) // listed twice
		}
		// The reference: the matrix numbers files in path order.
		start, next := map[string]int{}, 0
		for i := range nFiles {
			path := fmt.Sprintf("f%d.go", i)
			start[path] = next
			next += len(files.blocks[fileKey(path, "h")].Blocks)
		}
		var local []int
		for _, f := range refs {
			for b := range f.Blocks {
				local = append(local, start[f.Path]+b)
			}
		}
		var tests []storedTest
		var want [][]int
		for range 5 {
			var hits []int32
			for b := range len(local) + 2 {
				if rng.IntN(2) == 0 {
					hits = append(hits, int32(b)) // some past the blocks
				}
			}
			var global []int
			for _, h := range hits {
				if int(h) < len(local) && !slices.Contains(global, local[h]) {
					global = append(global, local[h])
				}
			}
			slices.Sort(global)
			tests = append(tests, storedTest{TestRun: TestRun{Name: fmt.Sprint(len(tests))}, Hits: packHits(hits)})
			want = append(want, global)
		}
		pkgs := []*storedPackage{{Package: "m/p", Files: refs, tests: tests}}
		m, err := assemble("/root", "m", pkgs, files, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range m.Tests {
			if got := tr.Hits.Slice(); !slices.Equal(got, want[i]) {
				t.Fatalf("round %d, files %v, test %d: hits %v, want %v", round, refs, i, got, want[i])
			}
		}
	}
}

// TestAssembleVerdictsOnly: a matrix assembled for its verdicts holds
// every test, stored or in memory, with its verdict and output but no
// hits, and no flow.
func TestAssembleVerdictsOnly(t *testing.T) {
	files := storedFiles{blocks: map[string]*storedFile{
		fileKey("a.go", "h1"): {Path: "a.go", Hash: "h1", Blocks: []Block{{File: "a.go", Lines: []int{1}}}},
	}}
	pkgs := []*storedPackage{{Package: "m/a", Files: []fileRef{{Path: "a.go", Hash: "h1", Blocks: 1}}, tests: []storedTest{
		{TestRun: TestRun{Package: "m/a", Name: "TestA", Verdict: Fail, Output: "boom"}, Hits: packHits([]int32{0})},
	}}}
	m, err := assemble("/root", "m", pkgs, files, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tests) != 1 || m.Tests[0].Name != "TestA" || m.Tests[0].Verdict != Fail || m.Tests[0].Output != "boom" {
		t.Fatalf("tests %+v, want TestA failing with its output", m.Tests)
	}
	if m.Tests[0].Hits.Len() != 0 || m.Flow != nil {
		t.Errorf("hits %v, flow %v: want neither", m.Tests[0].Hits, m.Flow)
	}
}
