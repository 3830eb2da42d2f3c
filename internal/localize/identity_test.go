package localize

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/faultline-go/faultline/internal/parsed"
	"github.com/faultline-go/faultline/spectra"
)

// writeArchive writes a txtar archive of testdata into a new directory.
func writeArchive(t *testing.T, name string) string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range a.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// The identity columns of lines in a function the failing test calls,
// one it reaches in two and three calls, and one it never reaches.
func TestIdentityEvidence(t *testing.T) {
	root := writeArchive(t, "identity.txtar")
	lines := []RankedLine{
		{File: "kv/header.go", Line: 4},  // ParseHeader
		{File: "kv/header.go", Line: 10}, // splitKey
		{File: "kv/reader.go", Line: 6},  // Reader.next
		{File: "kv/header.go", Line: 15}, // Render
	}
	failing := []FailingTest{{Package: "example.com/kv/kv", Name: "TestParseHeader/long_key"}}
	ev, err := IdentityEvidence(root, failing, lines)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"identity.direct":       {1, 0, 0, 0},
		"identity.callDistance": {1, 0.5, 1.0 / 3, 0},
		"identity.funcName":     {1, 0.5, 0, 0}, // splitKey: "key" of split, key
		"identity.fileName":     {1, 1, 0, 1},   // header.go
	}
	for name, w := range want {
		if got := ev.Columns[name]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
	for _, name := range []string{"identity.typeName", "identity.pkgName"} {
		if c, ok := ev.Columns[name]; ok {
			t.Errorf("%s = %v, want none: no name shares a word with the test", name, c)
		}
	}
}

// The evidence a localization gathers holds the identity columns, taken
// from the collection's failing tests only.
func TestGatherIdentityEvidence(t *testing.T) {
	root := writeArchive(t, "identity.txtar")
	m := &spectra.Matrix{Root: root, ModulePath: "example.com/kv", Tests: []spectra.TestRun{
		{Package: "example.com/kv/kv", Name: "TestParseHeader/long_key", Verdict: spectra.Fail},
		{Package: "example.com/kv/kv", Name: "TestRender", Verdict: spectra.Pass},
	}}
	lines := []RankedLine{
		{File: "kv/header.go", Line: 4, EF: 1, NP: 1},
		{File: "kv/header.go", Line: 15, EP: 1, NF: 1},
	}
	ev, notes := gatherEvidence(m, parsed.New(0), lines, nil, nil, nil, nil)
	if len(notes) > 0 {
		t.Fatalf("notes: %v", notes)
	}
	if got := ev.Columns["identity.direct"]; !reflect.DeepEqual(got, []float64{1, 0}) {
		t.Errorf("identity.direct = %v, want [1 0]", got)
	}
	if got := ev.Columns["identity.funcName"]; !reflect.DeepEqual(got, []float64{1, 0}) {
		t.Errorf("identity.funcName = %v, want [1 0]: the passing TestRender names nothing", got)
	}
}

// Names split into lowercased words at case changes and non-letters.
func TestWordSet(t *testing.T) {
	for name, want := range map[string][]string{
		"ParseHTTPHeaders": {"parse", "http", "header"},
		"no_page_split":    {"no", "page", "split"},
		"TestShiftLeft":    {"shift", "left"},
		"utf8Decode":       {"utf", "decode"},
	} {
		got := wordSet(name)
		w := map[string]bool{}
		for _, s := range want {
			w[s] = true
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("wordSet(%q) = %v, want %v", name, got, w)
		}
	}
}
