package spectra

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra/rank"
)

func TestIncrementalCollection(t *testing.T) {
	ws, _ := workspace(t, "layered.txtar")
	first, p := collect(t, ws, time.Minute)
	if p.Packages != 4 || p.Reused != 0 {
		t.Fatalf("first collection: %+v, want 4 packages, none reused", p)
	}
	if len(first.Tests) != 7 {
		t.Fatalf("first collection has %d tests, want 7: %+v", len(first.Tests), first.Tests)
	}
	for _, test := range first.Tests {
		if test.Verdict == BuildError {
			t.Fatalf("%s did not build: %s", test.Package, test.Output)
		}
	}

	// No change: nothing runs, and the results are the same.
	again, p := collect(t, ws, time.Minute)
	if p.Reused != 4 || p.Tests != 0 {
		t.Errorf("unchanged rerun: %+v, want 4 reused and no test run", p)
	}
	assertSameRanking(t, first, again)

	// An edit to solo reruns solo only.
	edit(t, ws, "solo/solo.go", "2 * x", "x + x")
	_, p = collect(t, ws, time.Minute)
	if p.Reused != 3 || p.Tests != 1 {
		t.Errorf("after editing solo: %+v, want 3 packages reused and 1 test run", p)
	}

	// An edit to lib reruns lib and app, whose tests import it.
	edit(t, ws, "lib/lib.go", "return hi - 1 // the fault: should return hi", "return hi - 1 // still the fault")
	incremental, p := collect(t, ws, time.Minute)
	if p.Reused != 2 || p.Tests != 5 {
		t.Errorf("after editing lib: %+v, want 2 packages reused and 5 tests run", p)
	}

	// The incremental result equals a full collection into an empty store.
	full, err := Open(ws.Root(), Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	fresh, p := collect(t, full, time.Minute)
	if p.Reused != 0 {
		t.Fatalf("fresh store reused %d packages", p.Reused)
	}
	assertSameRanking(t, incremental, fresh)

	// Load, which runs nothing, sees the same as the last collection.
	loaded, err := ws.Load()
	if err != nil {
		t.Fatal(err)
	}
	assertSameRanking(t, incremental, loaded)

	// After an edit on disk, Load leaves out the results that point into
	// the edited file rather than show them on the wrong lines.
	edit(t, ws, "lib/lib.go", "// Clamp limits", "// (a new line)\n// Clamp limits")
	loaded, err = ws.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range loaded.Tests {
		if !strings.HasPrefix(test.Package, "example.com/layered/solo") {
			t.Errorf("Load kept %s %s, whose spectrum covers the edited lib", test.Package, test.Name)
		}
	}

	// That edit moved lines: the collection's blocks of lib.go are one line
	// further down and its hash is the new content's, though the previous
	// collection's edit changed only a comment and reused what the
	// instrumentation made of the file before.
	moved, _ := collect(t, ws, time.Minute)
	data, err := os.ReadFile(filepath.Join(ws.Root(), "lib", "lib.go"))
	if err != nil {
		t.Fatal(err)
	}
	if moved.FileHashes["lib/lib.go"] != testbuild.Bytes(data) {
		t.Errorf("lib.go collected as %s, its content hashes to %s", moved.FileHashes["lib/lib.go"], testbuild.Bytes(data))
	}
	libLines := func(m *Matrix) []int {
		var lines []int
		for _, b := range m.Blocks {
			if b.File == "lib/lib.go" {
				lines = append(lines, b.Lines...)
			}
		}
		return lines
	}
	before, after := libLines(incremental), libLines(moved)
	if len(before) == 0 || len(before) != len(after) {
		t.Fatalf("lib.go lines before %v, after %v", before, after)
	}
	for i := range before {
		if after[i] != before[i]+1 {
			t.Errorf("lib.go line %d collected at %d after a line was added above", before[i], after[i])
		}
	}
}

func edit(t *testing.T, ws *Workspace, file, old, new string) {
	t.Helper()
	path := filepath.Join(ws.Root(), file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertSameRanking(t *testing.T, a, b *Matrix) {
	t.Helper()
	for _, name := range []string{"ochiai", "tarantula", "dstar2", "op2"} {
		f, err := rank.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		ra, err := RankLines(a, f)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := RankLines(b, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s rankings differ:\n%+v\n%+v", name, ra, rb)
		}
	}
}

func TestCorruptStoreIsRebuilt(t *testing.T) {
	ws, _ := workspace(t, "layered.txtar")
	var warnings []string
	ws.store.warn = func(msg string) { warnings = append(warnings, msg) }
	first, _ := collect(t, ws, time.Minute)
	if err := os.WriteFile(ws.StorePath(), []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	again, p := collect(t, ws, time.Minute)
	if len(warnings) == 0 || !strings.Contains(warnings[0], "corrupt") {
		t.Errorf("no warning about the corrupt store: %q", warnings)
	}
	if p.Reused != 0 {
		t.Errorf("reused %d packages from a corrupt store", p.Reused)
	}
	assertSameRanking(t, first, again)
	if _, err := os.Stat(ws.StorePath() + ".corrupt"); err != nil {
		t.Errorf("the corrupt store was not kept aside: %v", err)
	}
}

func TestBuildErrorIsReported(t *testing.T) {
	ws, _ := workspace(t, "layered.txtar")
	edit(t, ws, "solo/solo.go", "return 2 * x", "return 2 * y")
	m, _ := collect(t, ws, time.Minute)
	msg := m.BuildErrors["example.com/layered/solo"]
	// The message is the compiler's, with the column of the plain source.
	if !strings.Contains(msg, "solo.go:4:37: undefined: y") {
		t.Errorf("build error for solo = %q, want the compiler's message at solo.go:4:37", msg)
	}
	if len(m.BuildErrors) != 1 {
		t.Errorf("build errors %v, want only solo", m.BuildErrors)
	}
	var ran int
	for _, test := range m.Tests {
		if test.Verdict.Counted() {
			ran++
		}
	}
	if ran != 6 {
		t.Errorf("%d tests ran beside the broken package, want 6", ran)
	}
}
