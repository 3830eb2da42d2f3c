//go:build cgo

package localize

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"faultline/analysis"
	"faultline/internal/txtartest"
	"faultline/spectra"
)

// TestMain lets the test binary serve as the analysis worker it starts.
func TestMain(m *testing.M) {
	if IsWorker(nil) {
		if err := RunWorker(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// module collects the spectra of a txtar module from analysis/testdata.
func module(t *testing.T, name string) (*Service, *spectra.Matrix) {
	t.Helper()
	return collected(t, txtartest.Extract(t, filepath.Join("..", "..", "analysis", "testdata", name)))
}

// collected collects the spectra of the module in dir.
func collected(t *testing.T, dir string) (*Service, *spectra.Matrix) {
	t.Helper()
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ws.Collect(context.Background(), spectra.CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// The foo example's fault hosts verified fixes: the combined order puts a
// line with one first, a second localization comes from the cache, and
// progress sees the analysis arrive.
func TestLocalizeCombinesAndCaches(t *testing.T) {
	s, m := module(t, "foo.txtar")
	var states []*Localization
	loc, err := s.Localize(context.Background(), m, Options{Angelic: true, Order: spectra.OrderCombined}, func(l *Localization) { states = append(states, l) })
	if err != nil {
		t.Fatal(err)
	}
	a := loc.Angelic
	if a == nil || a.Failing != 1 || a.Analyzed != 1 || a.Cached != 0 || len(a.Fixes) == 0 || a.Pending != 0 {
		t.Fatalf("angelic %+v", a)
	}
	if loc.Ranking.Order != spectra.OrderCombined || loc.Ranking.Lines[0].Fixes != 1 {
		t.Errorf("combined ranking starts with %+v", loc.Ranking.Lines[0])
	}
	if len(states) < 2 || states[0].Angelic.Pending != 1 || states[len(states)-1].Angelic.Analyzed != 1 {
		t.Errorf("progress saw %d states", len(states))
	}
	again, err := s.Localize(context.Background(), m, Options{Angelic: true, Order: spectra.OrderCombined}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Angelic.Cached != 1 || !reflect.DeepEqual(again.Ranking.Lines[0], loc.Ranking.Lines[0]) {
		t.Errorf("second localization: %+v, first line %+v", again.Angelic, again.Ranking.Lines[0])
	}
	cached := again.Angelic.Results[0].Candidates[0]
	if !cached.Verifiable() {
		t.Error("a cached candidate cannot be verified")
	}
	target := analysis.Target{Package: "example.com/foo", Test: "TestFoo"}
	if v, err := s.Verify(context.Background(), target, cached, Options{}); err != nil || v.Passed != cached.Verified {
		t.Errorf("verifying a cached candidate in a worker: %+v, %v", v, err)
	}
	formula, err := s.Localize(context.Background(), m, Options{}, nil)
	if err != nil || formula.Angelic != nil || formula.Ranking != formula.Formula {
		t.Errorf("without the analysis: %+v, %v", formula, err)
	}
}

// An analysis that holds more memory than allowed is stopped, and the
// formula's ranking stands with a note.
func TestMemoryBound(t *testing.T) {
	s, m := module(t, "foo.txtar")
	loc, err := s.Localize(context.Background(), m, Options{Angelic: true, Order: spectra.OrderCombined, Memory: 1 << 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Angelic.Analyzed != 0 || !strings.Contains(strings.Join(loc.Angelic.Notes, "\n"), "memory bound (1 MB) reached") {
		t.Errorf("angelic %+v", loc.Angelic)
	}
	if loc.Ranking.Order != spectra.OrderFormula {
		t.Errorf("order %s", loc.Ranking.Order)
	}
}

// Cancelling stops the worker at once.
func TestCancel(t *testing.T) {
	s, m := module(t, "slow.txtar")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	_, err := s.Localize(ctx, m, Options{Angelic: true, Budget: time.Minute}, nil)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled localization: %v after %s", err, time.Since(start))
	}
}
