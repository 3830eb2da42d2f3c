package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
	"github.com/faultline-go/faultline/spectra"
)

// fakeModule is a module whose spectra fakeMatrix describes: Next adds 2
// instead of 1 for positive numbers (line 6), and TestNextPositive catches it.
const fakeModule = `
-- go.mod --
module example.com/fake

go 1.26
-- a.go --
package fake

// Next returns the integer after x.
func Next(x int) int {
	if x > 0 {
		return x + 2
	}
	return x + 1
}
-- a_test.go --
package fake

import "testing"

func TestNextPositive(t *testing.T) {
	if Next(1) != 2 {
		t.Fatal("Next(1) != 2")
	}
}

func TestNextZero(t *testing.T) {
	if Next(0) != 1 {
		t.Fatal("Next(0) != 1")
	}
}

func TestNextNegative(t *testing.T) {
	if Next(-1) != 0 {
		t.Fatal("Next(-1) != 0")
	}
}
`

// fakeMatrix is what the engine would record for fakeModule as on disk in
// root: the failing test runs lines 5 and 6, the passing ones 5 and 8.
func fakeMatrix(t testing.TB, root string) *localize.Matrix {
	text, err := os.ReadFile(filepath.Join(root, "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	return &localize.Matrix{
		ModulePath: "example.com/fake",
		Root:       root,
		Blocks: []spectra.Block{
			{File: "a.go", Start: spectra.Pos{Line: 5, Col: 2}, End: spectra.Pos{Line: 5, Col: 12}, Lines: []int{5}},
			{File: "a.go", Start: spectra.Pos{Line: 6, Col: 3}, End: spectra.Pos{Line: 6, Col: 15}, Lines: []int{6}},
			{File: "a.go", Start: spectra.Pos{Line: 8, Col: 2}, End: spectra.Pos{Line: 8, Col: 14}, Lines: []int{8}},
		},
		Tests: []localize.TestRun{
			{Package: "example.com/fake", Name: "TestNextPositive", Verdict: localize.VerdictFail, Output: "a_test.go:7: Next(1) != 2\n", FailSites: []spectra.Site{{File: "a_test.go", Line: 7}}, Hits: spectra.NewHits(0, 1)},
			{Package: "example.com/fake", Name: "TestNextZero", Verdict: localize.VerdictPass, Hits: spectra.NewHits(0, 2)},
			{Package: "example.com/fake", Name: "TestNextNegative", Verdict: localize.VerdictPass, Hits: spectra.NewHits(0, 2)},
		},
		BuildErrors: map[string]string{},
		FileHashes:  map[string]string{"a.go": string(snapshot.HashContent(text))},
	}
}

// fakeWorkspace stands in for the engine in tests of the protocol surface,
// which need results without the seconds a real test run costs.
type fakeWorkspace struct {
	t     testing.TB
	root  string
	store string

	mu       sync.Mutex
	block    bool                    // Collect waits until cancelled
	hold     chan struct{}           // when set, Collect waits for it to close, cancelled or not
	result   func() *localize.Matrix // what Collect returns
	stored   *localize.Matrix        // what Load returns
	collects int
	loaded   chan struct{} // closed on the first Load
	started  chan struct{} // signalled when Collect starts
}

// newFakeModule writes fakeModule to a new directory and returns it with a
// fake engine for it.
func newFakeModule(t testing.TB) (string, *fakeWorkspace) {
	dir := t.TempDir()
	writeArchive(t, dir, fakeModule)
	return dir, newFakeWorkspace(t, dir)
}

func newFakeWorkspace(t testing.TB, root string) *fakeWorkspace {
	f := &fakeWorkspace{t: t, root: root, store: filepath.Join(t.TempDir(), "spectra.db"),
		loaded: make(chan struct{}), started: make(chan struct{}, 16)}
	f.result = func() *localize.Matrix { return fakeMatrix(t, root) }
	return f
}

func (f *fakeWorkspace) open(dir string) (Workspace, error) {
	if !within(f.root, dir) && !within(dir, f.root) {
		return nil, errors.New("no module here")
	}
	return f, nil
}

func (f *fakeWorkspace) Root() string      { return f.root }
func (f *fakeWorkspace) StorePath() string { return f.store }

func (f *fakeWorkspace) Collect(ctx context.Context, opts localize.CollectOptions) (*localize.Matrix, error) {
	f.mu.Lock()
	f.collects++
	block, result, hold := f.block, f.result, f.hold
	f.mu.Unlock()
	f.started <- struct{}{}
	if opts.Progress != nil {
		opts.Progress(localize.Progress{Phase: "build", Packages: 1})
		opts.Progress(localize.Progress{Phase: "run", Packages: 1, PackagesDone: 1, Tests: 3, Failing: 1})
	}
	if block {
		<-ctx.Done()
	}
	if hold != nil {
		<-hold
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := result()
	f.mu.Lock()
	f.stored = m
	f.mu.Unlock()
	return m, nil
}

func (f *fakeWorkspace) Load() (*localize.Matrix, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.loaded:
	default:
		close(f.loaded)
	}
	return f.stored, nil
}

func (f *fakeWorkspace) waitLoaded() {
	select {
	case <-f.loaded:
	case <-time.After(waitLimit):
		f.t.Fatal("the server never loaded the store")
	}
}

func (f *fakeWorkspace) waitCollecting() {
	select {
	case <-f.started:
	case <-time.After(waitLimit):
		f.t.Fatal("the server never started collecting")
	}
}

func (f *fakeWorkspace) collections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.collects
}

// noEngine is an OpenFunc for sessions that open no module.
func noEngine(t testing.TB) OpenFunc {
	return func(dir string) (Workspace, error) {
		return nil, errors.New("no engine in this test")
	}
}

// fakeLocalizer stands in for the localization service in tests of the
// protocol surface: its analysis finds the given results at once, and it
// verifies a candidate by its angelic value.
type fakeLocalizer struct {
	t       testing.TB
	results []localize.TestResult
	passes  string // the angelic value Verify lets pass
	panics  bool   // Localize panics

	// explanation is what Explain answers for any test (nil: an error).
	explanation *localize.Explanation

	mu        sync.Mutex
	verified  []string // the angelic value of each candidate verified
	explain   []localize.ExplainOptions
	localized int // calls of Localize
}

func (f *fakeLocalizer) open(Workspace) (Localizer, error) { return f, nil }

func (f *fakeLocalizer) Localize(ctx context.Context, m *localize.Matrix, opts localize.Options, progress func(*localize.Localization)) (*localize.Localization, error) {
	if f.panics {
		panic("a localizer that panics")
	}
	f.mu.Lock()
	f.localized++
	f.mu.Unlock()
	r, err := localize.RankFormula(m, opts.Formula)
	if err != nil {
		return nil, err
	}
	loc := &localize.Localization{Matrix: m, Formula: r, Ranking: localize.Combine(r, f.results),
		Angelic: &localize.Angelic{Failing: 1, Analyzed: len(f.results), Results: f.results}}
	progress(loc)
	return loc, nil
}

func (f *fakeLocalizer) Verify(ctx context.Context, t localize.Target, c localize.Candidate, opts localize.Options) (localize.Verification, error) {
	value := c.Locations[0].Angelic
	f.mu.Lock()
	f.verified = append(f.verified, value)
	f.mu.Unlock()
	v := localize.Verification{Test: t.Test, Passed: value == f.passes, Duration: 1500 * time.Millisecond}
	if !v.Passed {
		v.Output = "    a_test.go:7: Next(1) != 2"
	}
	return v, nil
}

func (f *fakeLocalizer) Suggest(context.Context, *localize.Matrix, localize.SuggestOptions, func(localize.Suggestion)) ([]localize.Suggestion, error) {
	return nil, errors.New("the fake localizer does not search inputs")
}

func (f *fakeLocalizer) Explain(ctx context.Context, m *localize.Matrix, opts localize.ExplainOptions, each func(localize.Explanation)) (*localize.Explanations, error) {
	f.mu.Lock()
	f.explain = append(f.explain, opts)
	f.mu.Unlock()
	if f.explanation == nil {
		return nil, errors.New("not inside a git repository: explain compares the working tree with its git history")
	}
	if opts.Progress != nil {
		opts.Progress("bisecting the first-parent history for a commit where the test passes")
	}
	ex := *f.explanation
	ex.Test, ex.Package = opts.Tests[0].Test, opts.Tests[0].Package
	return &localize.Explanations{Failing: 1, Tests: []localize.Explanation{ex}}, nil
}

// CheckHistory: the fake module has a history when Explain has an answer.
func (f *fakeLocalizer) CheckHistory(ctx context.Context) error {
	if f.explanation == nil {
		return errors.New("not inside a git repository: explain compares the working tree with its git history")
	}
	return nil
}

func (f *fakeLocalizer) explanations() []localize.ExplainOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.explain)
}

func (f *fakeLocalizer) localizations() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.localized
}

func (f *fakeLocalizer) verifications() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.verified)
}

// fakeFix is a candidate of fakeModule's TestNextPositive writing value in
// place of the 2 of line 6, as the analysis reports it: with the forced
// values that make it verifiable.
func fakeFix(t testing.TB, value string, verified bool) localize.TestResult {
	t.Helper()
	data := fmt.Sprintf(`{"Test":"TestNextPositive","Package":"example.com/fake","Candidates":[{"verified":%v,
		"locations":[{"file":"a.go","line":6,"col":14,"endLine":6,"endCol":15,"expr":"2","original":"2","angelic":%q}],
		"Force":[{"Site":1,"Act":1,"Local":1,"Value":1}],"Sources":{"a.go":"hash"}}]}`, verified, value)
	r, err := analysis.UnmarshalResult([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
