//go:build cgo

package localize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
	"github.com/faultline-go/faultline/spectra"
)

// TestMain lets the test binary serve as the analysis worker it starts.
func TestMain(m *testing.M) {
	if IsWorker(nil) {
		var in io.Reader = os.Stdin
		if msg := os.Getenv(workerBugEnv); msg != "" {
			in = &bugFirst{msg: msg, r: in}
		}
		if err := RunWorker(context.Background(), in, os.Stdout); err != nil {
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
	loc, err := s.Localize(context.Background(), m, Options{Angelic: true, Order: OrderCombined}, func(l *Localization) { states = append(states, l) })
	if err != nil {
		t.Fatal(err)
	}
	a := loc.Angelic
	if a == nil || a.Failing != 1 || a.Analyzed != 1 || a.Cached != 0 || len(a.Fixes) == 0 || a.Pending != 0 {
		t.Fatalf("angelic %+v", a)
	}
	if loc.Ranking.Order != OrderCombined || loc.Ranking.Lines[0].Fixes != 1 {
		t.Errorf("combined ranking starts with %+v", loc.Ranking.Lines[0])
	}
	if len(states) < 2 || states[0].Angelic.Pending != 1 || states[len(states)-1].Angelic.Analyzed != 1 {
		t.Errorf("progress saw %d states", len(states))
	}
	again, err := s.Localize(context.Background(), m, Options{Angelic: true, Order: OrderCombined}, nil)
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
	target := testbuild.Target{Package: "example.com/foo", Test: "TestFoo"}
	if v, err := s.Verify(context.Background(), target, cached, Options{}); err != nil || v.Passed != cached.Verified {
		t.Errorf("verifying a cached candidate in a worker: %+v, %v", v, err)
	}
	formula, err := s.Localize(context.Background(), m, Options{}, nil)
	if err != nil || formula.Angelic != nil || formula.Ranking != formula.Formula {
		t.Errorf("without the analysis: %+v, %v", formula, err)
	}
}

// An analysis that holds more memory than allowed is stopped: its test is
// not analysed, with a note, and the formula's order stands.
func TestMemoryBound(t *testing.T) {
	s, m := module(t, "foo.txtar")
	loc, err := s.Localize(context.Background(), m, Options{Angelic: true, Order: OrderCombined, Memory: 1 << 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := loc.Angelic
	if len(a.Results) != 1 || len(a.Fixes) != 0 || a.Pending != 0 ||
		!strings.Contains(strings.Join(a.Notes, "\n"), "TestFoo: not analysed: memory bound (1 MB) reached") {
		t.Errorf("angelic %+v", a)
	}
	if !reflect.DeepEqual(lineOrder(loc.Ranking), lineOrder(loc.Formula)) {
		t.Errorf("the ranking is not the formula's")
	}
}

// A test whose run under the analysis goes over the test memory bound is
// stopped in the worker, whose test processes the workspace's bound
// reaches: that test is not analysed, with a note naming the bound, and
// the other failing test is analysed.
func TestTestMemoryBoundInAnalysis(t *testing.T) {
	if !testbuild.MemoryBoundEnforced {
		t.Skip("the memory bound is enforced on Linux only")
	}
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	dir := txtartest.Extract(t, filepath.Join("..", "testbuild", "testdata", "memory.txtar"))
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: t.TempDir(), TestMemory: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ws.Collect(context.Background(), spectra.CollectOptions{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	// Unbounded, the hoarding run waits at 1 GiB until the budget ends.
	loc, err := s.Localize(context.Background(), m, Options{Angelic: true, Budget: 20 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := loc.Angelic
	if a == nil || a.Failing != 2 || a.Analyzed != 2 {
		t.Fatalf("angelic %+v", a)
	}
	notes := strings.Join(a.Notes, "\n")
	if !strings.Contains(notes, "TestHoardWhenRecorded: not analysed: the failing run was stopped holding") ||
		!strings.Contains(notes, "over the test memory bound of 256 MB") || strings.Contains(notes, "TestAfter") {
		t.Errorf("notes %q, want TestHoardWhenRecorded named as stopped by the test memory bound", a.Notes)
	}
}

// lineOrder lists a ranking's lines in order.
func lineOrder(r *Ranking) []string {
	var out []string
	for _, l := range r.Lines {
		out = append(out, fmt.Sprintf("%s:%d", l.File, l.Line))
	}
	return out
}

// When the worker dies on its first target, the target is not analysed and
// a new worker analyses the second; the lost one is not cached.
func TestWorkerResumes(t *testing.T) {
	s, m := module(t, "float.txtar")
	real := s.worker
	var sent [][]testbuild.Target
	s.worker = func(ctx context.Context, req workRequest, done func(workReply)) error {
		sent = append(sent, req.Targets)
		if len(sent) == 1 {
			return errors.New("the analysis ended abnormally: signal: killed")
		}
		return real(ctx, req, done)
	}
	opts := Options{Angelic: true, Order: OrderCombined, MaxAnalyzed: 2}
	loc, err := s.Localize(context.Background(), m, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	targets, _ := Select(m, 2)
	if len(sent) != 2 || !reflect.DeepEqual(sent[1], targets[1:]) {
		t.Fatalf("workers were sent %v; want the second %v", sent, targets[1:])
	}
	a := loc.Angelic
	if len(a.Results) != 2 || a.Pending != 0 {
		t.Fatalf("angelic %+v", a)
	}
	lost, second := a.Results[0], a.Results[1]
	if lost.Test != targets[0].Test || !reflect.DeepEqual(lost.Notes, []string{"not analysed: the analysis ended abnormally: signal: killed"}) {
		t.Errorf("the lost target's result: %+v", lost)
	}
	if second.Test != targets[1].Test || second.Runs == 0 || len(second.Candidates) == 0 {
		t.Errorf("the second target was not analysed: %+v", second)
	}
	s.worker = real
	again, err := s.Localize(context.Background(), m, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Angelic.Cached != 1 || again.Angelic.Analyzed != 2 || len(again.Angelic.Results[0].Candidates) == 0 {
		t.Errorf("second localization: %+v", again.Angelic)
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
