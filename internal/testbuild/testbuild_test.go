package testbuild

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// workspace extracts a txtar module and opens it with a cache of the
// test's own.
func workspace(t *testing.T, name string) *Module {
	t.Helper()
	dir := txtartest.Extract(t, filepath.Join("testdata", name))
	m, err := Open(dir, Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// listed lists m's packages and opens an overlay to build them with.
func listed(t *testing.T, m *Module) (*Listing, *Overlay) {
	t.Helper()
	l, err := m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	return l, o
}

func build(t *testing.T, m *Module, o *Overlay, path string) *Binary {
	t.Helper()
	ctx := context.Background()
	l, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := m.Keys(ctx, l, "")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Package(path)
	if p == nil {
		t.Fatalf("no package %s in %v", path, SortedPaths(l.All))
	}
	bin, err := m.BuildTest(ctx, o, p, nil, keys.TestBinary(p))
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestRunTestVerdicts(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	bin := build(t, m, o, "example.com/verdicts/v")
	for _, c := range []struct {
		test    string
		verdict Verdict
		output  string
	}{
		{"TestPass", Pass, ""},
		{"TestFail", Fail, "Double(2) = 4, want 5"},
		{"TestSkip", Skip, "not today"},
		{"TestPanic", Panic, "assignment to entry in nil map"},
		{"TestExit", Panic, ""},
		{"TestHang", Timeout, ""},
		{"TestTable/1", Pass, ""},
		{"TestTable/2", Fail, "Double(2) = 4, want 5"},
		// test2json charges the subtest's panic to its parent.
		{"TestNested/panics", Panic, "panic: runtime error: index out of range [3] with length 0"},
	} {
		out, err := m.RunTest(context.Background(), bin, c.test, 2*time.Second, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.test, err)
		}
		if out.Verdict != c.verdict || out.Passed != (c.verdict == Pass) {
			t.Errorf("%s: verdict %s (passed %v), want %s\n%s", c.test, out.Verdict, out.Passed, c.verdict, out.Output)
		}
		if !strings.Contains(out.Output, c.output) {
			t.Errorf("%s: output lacks %q:\n%s", c.test, c.output, out.Output)
		}
	}
}

// A test printing 100 MB costs its output's bounds in memory and time
// linear in what it prints.
func TestHugeOutputIsStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 100 MB")
	}
	m := workspace(t, "verdicts.txtar")
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	bin := build(t, m, o, "example.com/verdicts/v")
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	out, err := m.RunTest(context.Background(), bin, "TestLoud", time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if out.Verdict != Fail || !strings.Contains(out.Output, "the end") || !strings.Contains(out.Output, "bytes of output omitted") {
		t.Errorf("verdict %s, output of %d bytes:\n%.300s", out.Verdict, len(out.Output), out.Output)
	}
	if len(out.Output) > 2*(outputHead+outputTail) {
		t.Errorf("kept %d bytes of output", len(out.Output))
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 64<<20 {
		t.Errorf("the heap grew by %d MB reading 100 MB of output", grew>>20)
	}
	t.Logf("100 MB of output read in %s", elapsed)
}

func TestBuildErrorNamesFileAndLine(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	ctx := context.Background()
	l, o := listed(t, m)
	p := l.Package("example.com/verdicts/broken")
	built, failed, err := m.BuildTests(ctx, o, []*Package{p, l.Package("example.com/verdicts/v")}, nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if built[p.ImportPath] != nil || built["example.com/verdicts/v"] == nil {
		t.Fatalf("built %v", built)
	}
	if msg := failed[p.ImportPath]; !strings.Contains(msg, "broken.go:4") {
		t.Errorf("message %q does not name broken.go:4", msg)
	}
	if msg := m.PlainBuildError(ctx, p, nil, failed[p.ImportPath]); !strings.Contains(msg, "broken.go:4") || strings.Contains(msg, "faultline could not") {
		t.Errorf("plain message %q", msg)
	}
}

// A runtime that needs generics is raised to go1.18 in a module that
// declares Go 1.16, and the instrumented binary builds.
func TestRuntimeInOldModule(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	gomod := filepath.Join(m.Root, "go.mod")
	if err := os.WriteFile(gomod, []byte("module example.com/verdicts\n\ngo 1.16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(m.Root, Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	rt := Runtime{Name: "gen", Lang: "go1.18", Files: fstest.MapFS{
		"gen.go": {Data: []byte("package gen\n\nfunc Same[T any](v T) T { return v }\n")},
	}}
	path, err := o.AddRuntime(rt)
	if err != nil {
		t.Fatal(err)
	}
	test := filepath.Join(m.Root, "v", "v_test.go")
	src, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	// The runtime is imported on the package clause's line and called at
	// the end of the file.
	at := strings.Index(string(src), "\n")
	out, err := Apply(src, []Edit{Insert(at, "; import gen \""+path+"\""), {Off: len(src), Text: "\nvar _ = gen.Same(1)\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Put(test, UpgradeLanguage(out, test, "go1.18")); err != nil {
		t.Fatal(err)
	}
	bin := build(t, m, o, "example.com/verdicts/v")
	if out, err := m.RunTest(context.Background(), bin, "TestPass", time.Minute, nil); err != nil || !out.Passed {
		t.Fatalf("%+v %v", out, err)
	}
}

// An unchanged binary is not built again: the second build needs no go
// command at all.
func TestBuildTestReusesBinary(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	first := build(t, m, o, "example.com/verdicts/v")
	l, err := m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	keys, err := m.Keys(context.Background(), l, "")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Package("example.com/verdicts/v")
	noGo, err := Open(m.Root, Config{CacheDir: filepath.Dir(m.cacheDir), Env: append(os.Environ(), "PATH=")})
	if err != nil {
		t.Fatal(err)
	}
	second, err := noGo.BuildTest(context.Background(), o, p, nil, keys.TestBinary(p))
	if err != nil || second.Path != first.Path {
		t.Fatalf("second build: %+v %v (first %s)", second, err, first.Path)
	}
}

// backdate moves every file and directory under root into the past, so
// that their stamps can be trusted.
func backdate(t *testing.T, root string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, past, past)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestListingIsReusedUntilSomethingChanges(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	ctx := context.Background()
	list := func(wantReused bool, why string) *Listing {
		t.Helper()
		l, err := m.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if l.Reused != wantReused {
			t.Fatalf("%s: reused %v, want %v", why, l.Reused, wantReused)
		}
		return l
	}
	// Stamps younger than modTimeSlack are not trusted.
	list(false, "first listing")
	list(false, "files just written")
	backdate(t, m.Root)
	list(false, "first listing of settled files")
	if l := list(true, "nothing changed"); l.Package("example.com/verdicts/v") == nil {
		t.Fatal("the reused listing lost a package")
	}
	steps := []struct {
		why    string
		change func() error
	}{
		{"an edited file", func() error {
			return os.WriteFile(filepath.Join(m.Root, "v", "v.go"), []byte("package v\n\nimport _ \"strings\"\n\nfunc Double(x int) int { return 2 * x }\n"), 0o644)
		}},
		{"a new file", func() error {
			return os.WriteFile(filepath.Join(m.Root, "v", "w.go"), []byte("package v\n"), 0o644)
		}},
		{"a new package", func() error {
			dir := filepath.Join(m.Root, "deep", "er")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "er.go"), []byte("package er\n"), 0o644)
		}},
		{"go.mod", func() error {
			return os.WriteFile(filepath.Join(m.Root, "go.mod"), []byte("module example.com/verdicts\n\ngo 1.23\n"), 0o644)
		}},
	}
	for _, s := range steps {
		if err := s.change(); err != nil {
			t.Fatal(err)
		}
		backdate(t, m.Root)
		l := list(false, s.why)
		list(true, "nothing changed after "+s.why)
		if s.why == "a new package" && l.Package("example.com/verdicts/deep/er") == nil {
			t.Fatal("the new package is not listed")
		}
	}
}

func TestHasherKeepsHashesAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.go")
	if err := os.WriteFile(file, []byte("package f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	backdate(t, dir)
	index := filepath.Join(dir, "index")
	h := openHasher(index)
	sum, err := h.File(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	// The next process trusts the stamp: the index's hash is taken as is.
	h2 := openHasher(index)
	h2.load()
	if e := h2.entries[file]; e.Sum != sum {
		t.Fatalf("index entry %+v, want %s", e, sum)
	}
	// Same size, new content: the stamp changed, so the file is read.
	if err := os.WriteFile(file, []byte("package g\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := h2.File(file); err != nil || again == sum || again != Bytes([]byte("package g\n")) {
		t.Errorf("after an edit: %s, %v (was %s)", again, err, sum)
	}
	// A damaged index costs only the hashing.
	if err := os.WriteFile(index, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := openHasher(index).File(file); err != nil || again != Bytes([]byte("package g\n")) {
		t.Errorf("with a damaged index: %s, %v", again, err)
	}
}

// Two passes edit one file of one build, each with a runtime of its own:
// the file is rewritten once with both passes' edits, in pass order where
// they meet.
func TestPassesShareABuild(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	runtime := func(name, letter string) string {
		rt := Runtime{Name: name, Files: fstest.MapFS{name + ".go": {Data: []byte(
			"package " + name + "\n\nimport \"fmt\"\n\nfunc Mark() { fmt.Print(\"" + letter + "\") }\n\nfunc Same(v int) int { fmt.Print(\"" + letter + "\"); return v }\n")}}}
		path, err := o.AddRuntime(rt)
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := runtime("passa", "A"), runtime("passb", "B")
	file := filepath.Join(m.Root, "v", "v.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	clause := strings.Index(string(src), "\n")
	body := strings.Index(string(src), "{") + 1
	expr := strings.Index(string(src), "2 * x")
	// Pass A marks the body's start; pass B marks it too, then wraps the
	// expression.
	if err := o.Edit(file, src, []Edit{Insert(clause, "; import passa \""+a+"\""), Insert(body, " passa.Mark();")}, ""); err != nil {
		t.Fatal(err)
	}
	if err := o.Edit(file, src, []Edit{Insert(clause, "; import passb \""+b+"\""), Insert(body, " passb.Mark();"),
		{Off: expr, Text: "passb.Same(", Span: 5}, {Off: expr + 5, Text: ")", Close: true, Span: 6}}, "go1.18"); err != nil {
		t.Fatal(err)
	}
	if err := o.Edit(file, []byte("other"), nil, ""); err == nil {
		t.Error("a pass editing other content was accepted")
	}
	bin := build(t, m, o, "example.com/verdicts/v")
	out, err := m.RunTest(context.Background(), bin, "TestPass", time.Minute, nil)
	if err != nil || !out.Passed {
		t.Fatalf("%+v %v", out, err)
	}
	if !strings.Contains(out.Output, "ABB") {
		t.Errorf("output %q, want the marks of A, then B, then B's wrapping", out.Output)
	}
	if err := o.Edit(file, src, nil, ""); err == nil {
		t.Error("an edit after the build was accepted")
	}
}

// Patterns that select no package of the module are misses, with go list's
// reason, as go test refuses them; the others select their packages.
func TestListMisses(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	l, err := m.List(context.Background(), "./v/", "./nosuch/...", "./nosuch", "TestPass", "fmt", ".//v/../v")
	if err != nil {
		t.Fatal(err)
	}
	// ./v/ and .//v/../v are ./v as go list reports the patterns a package matched.
	if len(l.Requested) != 1 || l.Requested[0].ImportPath != "example.com/verdicts/v" {
		t.Errorf("requested %v, want example.com/verdicts/v alone", l.Requested)
	}
	want := map[string]string{
		"./nosuch/...": "lstat ./nosuch/: no such file or directory",
		"./nosuch":     "directory not found",
		"TestPass":     "package TestPass is not in std",
		"fmt":          "matched only packages outside module example.com/verdicts",
	}
	for _, miss := range l.Misses {
		if w, ok := want[miss.Pattern]; !ok || !strings.Contains(miss.Reason, w) {
			t.Errorf("miss %s, want a reason with %q", miss, w)
		}
		delete(want, miss.Pattern)
	}
	for pattern := range want {
		t.Errorf("pattern %s is not a miss", pattern)
	}
	whole, err := m.List(context.Background())
	if err != nil || len(whole.Misses) > 0 {
		t.Errorf("./... of the module: misses %v, error %v", whole.Misses, err)
	}
}

// ListPackage finds a listed package, and names the module for a path it
// does not hold.
func TestListPackage(t *testing.T) {
	m := workspace(t, "verdicts.txtar")
	ctx := context.Background()
	l, p, err := m.ListPackage(ctx, "example.com/verdicts/v")
	if err != nil || p == nil || p.ImportPath != "example.com/verdicts/v" || l.Package(p.ImportPath) != p {
		t.Fatalf("ListPackage(v) = %v, %v, %v", l, p, err)
	}
	_, _, err = m.ListPackage(ctx, "example.com/verdicts/absent")
	if err == nil || err.Error() != "example.com/verdicts/absent is not a package of module example.com/verdicts" {
		t.Errorf("ListPackage(absent): error %v, want one naming the module", err)
	}
}
