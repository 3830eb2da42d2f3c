package spectra

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/noisytest"
)

// Every leaf test's verdict is go test's, whatever the size of the output
// the tests print, with or without a final newline, first, in the middle or
// last in their package; also for tests whose names are too long for
// test2json to report at all.
func TestCollectVerdictsMatchGoTest(t *testing.T) {
	pkgs := noisytest.Rotations()
	pkgs = append(pkgs,
		noisytest.Package{Dir: "huge", Tests: []noisytest.Printer{
			{Name: "TestBeforeHuge", Size: 1, Verdict: "pass"},
			{Name: "TestHuge", Size: 10 << 20, Verdict: "pass"},
			{Name: "TestAfterHuge", Size: 4096, Verdict: "pass"},
		}},
		// A process that fails: each test without a verdict is run alone.
		noisytest.Package{Dir: "longfails", Tests: []noisytest.Printer{
			{Name: "TestLongPassesBesideFailures", Sub: strings.Repeat("a", 5000), Size: 10, Verdict: "pass"},
			{Name: "TestLongFails", Sub: strings.Repeat("b", 5000), Size: 10, Verdict: "fail"},
			{Name: "TestShortFails", Size: 10, Verdict: "fail"},
		}},
		// A process that exits 0: every test that ran passed.
		noisytest.Package{Dir: "longpasses", Tests: []noisytest.Printer{
			{Name: "TestLongPasses", Sub: strings.Repeat("c", 5000), Size: 4096, Verdict: "pass"},
			{Name: "TestShortPasses", Size: 10, Verdict: "pass"},
		}},
	)
	dir := t.TempDir()
	noisytest.WriteModule(t, dir, pkgs)
	want := noisytest.GoTestVerdicts(t, dir)
	ws, err := Open(dir, Options{CacheDir: t.TempDir(), Warn: func(msg string) { t.Log(msg) }})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := collect(t, ws, time.Minute)
	got := map[string]Verdict{}
	for _, test := range m.Tests {
		got[test.Name] = test.Verdict
		if test.Verdict != Verdict(want[test.Name]) {
			t.Errorf("%.60s: verdict %s, go test's %q; output ends %q", test.Name, test.Verdict, want[test.Name], test.Output[max(0, len(test.Output)-100):])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[name]; !ok && !noisytest.Parent(want, name) {
			t.Errorf("%.60s: not collected (go test: %s)", name, want[name])
		}
	}
}
