package server

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/fakeeditor"
	"github.com/faultline-go/faultline/internal/localize"
)

// stagedWorkspace collects the fake module and a second package: the fake
// module's package finishes first, with its failing test, and its results
// are in the store; the second package's tests run until the test lets
// them finish.
type stagedWorkspace struct {
	*fakeWorkspace
	finish chan struct{} // closed by the test: the second package is done
}

func (w *stagedWorkspace) Collect(ctx context.Context, opts localize.CollectOptions) (*localize.Matrix, error) {
	whole := fakeMatrix(w.t, w.root)
	w.mu.Lock()
	w.collects++
	w.stored = whole
	w.mu.Unlock()
	opts.Progress(localize.Progress{Phase: "build", Packages: 2, PackagesDone: 2})
	opts.Progress(localize.Progress{Phase: "run", Packages: 2})
	opts.Progress(localize.Progress{Phase: "run", Packages: 2, Tests: 1, Failing: 1, Current: "example.com/fake"})
	opts.Progress(localize.Progress{Phase: "run", Packages: 2, Tests: 2, Failing: 1, Current: "example.com/fake"})
	opts.Progress(localize.Progress{Phase: "run", Packages: 2, Tests: 3, Failing: 1, Current: "example.com/fake"})
	opts.Progress(localize.Progress{Phase: "run", Packages: 2, PackagesDone: 1, Tests: 3, Failing: 1, Current: "example.com/fake"})
	select {
	case <-w.finish:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	opts.Progress(localize.Progress{Phase: "run", Packages: 2, PackagesDone: 2, Tests: 4, Failing: 1, Current: "example.com/fake/other"})
	more := *whole
	more.Tests = append(more.Tests[:len(more.Tests):len(more.Tests)],
		localize.TestRun{Package: "example.com/fake/other", Name: "TestOther", Verdict: localize.VerdictPass})
	return &more, nil
}

// slowLocalizer is the fake localizer with an analysis that runs until the
// test lets it finish.
type slowLocalizer struct {
	*fakeLocalizer
	finish  chan struct{}
	started chan struct{} // signalled by each call of Localize

	mu       sync.Mutex
	analysed []int // the tests of each matrix given to Localize
}

func (l *slowLocalizer) open(Workspace) (Localizer, error) { return l, nil }

func (l *slowLocalizer) Localize(ctx context.Context, m *localize.Matrix, opts localize.Options, progress func(*localize.Localization)) (*localize.Localization, error) {
	l.mu.Lock()
	l.analysed = append(l.analysed, len(m.Tests))
	l.mu.Unlock()
	l.started <- struct{}{}
	select {
	case <-l.finish:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return l.fakeLocalizer.Localize(ctx, m, opts, progress)
}

// TestFirstAnswerFirst follows the events of a run: the diagnostics of the
// package whose tests are done come while the other package's tests still
// run, before the collection's progress ends and before the analysis, which
// starts on the whole result only, ends; the whole result then refines
// what is shown. The trace says where the time went.
func TestFirstAnswerFirst(t *testing.T) {
	dir := t.TempDir()
	writeArchive(t, dir, fakeModule)
	staged := &stagedWorkspace{fakeWorkspace: newFakeWorkspace(t, dir), finish: make(chan struct{})}
	slow := &slowLocalizer{fakeLocalizer: &fakeLocalizer{t: t, results: []localize.TestResult{fakeFix(t, "1", true)}}, finish: make(chan struct{}), started: make(chan struct{}, 8)}
	trace := &lockedWriter{w: &bytes.Buffer{}}
	c := startServer(t, Options{
		Open:      func(string) (Workspace, error) { return staged, nil },
		Localizer: slow.open,
		Trace:     trace,
	})
	yes := true
	c.initialize(dir, "", withExtensions(protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}}))
	src := uri.File(filepath.Join(dir, "a.go"))

	c.waitDiagnostics("diagnostics of the package done", src, onLines(4, 5))
	if ends := fakeeditor.ProgressEnds(c.Log()); len(ends) > 0 {
		t.Fatalf("diagnostics came after progress ended: %+v", ends)
	}
	close(staged.finish)
	select {
	case <-slow.started:
	case <-time.After(waitLimit):
		t.Fatal("the analysis never started")
	}
	close(slow.finish)
	c.waitFor("the analysis to end", func([]note) bool {
		for _, e := range fakeeditor.ProgressEnds(c.Log()) {
			if e.Title == "faultline: angelic analysis" {
				return true
			}
		}
		return false
	})

	// The order of events: diagnostics, the run's end, the analysis's end.
	var order []string
	var progress fakeeditor.Progress
	for _, m := range c.Log() {
		if end, ok := progress.Add(m); ok {
			order = append(order, "end "+end.Title)
		}
		if m.Is(protocol.MethodTextDocumentPublishDiagnostics) && len(order) == 0 {
			order = append(order, "diagnostics")
		}
	}
	want := []string{"diagnostics", "end faultline: running tests in " + filepath.Base(dir), "end faultline: angelic analysis"}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	slow.mu.Lock()
	if len(slow.analysed) != 1 || slow.analysed[0] != 4 {
		t.Errorf("analyses of matrices of %v tests, want one of the whole result's 4", slow.analysed)
	}
	slow.mu.Unlock()
	c.shutdown()

	got := trace.String()
	for _, phase := range []string{"tests done", "load results so far", "rank", "publish", "collect", "analysis"} {
		if !strings.Contains(got, "faultline serve: "+filepath.Base(dir)+": "+phase) {
			t.Errorf("trace lacks %q:\n%s", phase, got)
		}
	}
	// Under the learned order (the default where the analysis can run),
	// the whole result is first ranked by the formula, which needs no
	// evidence gathered.
	if localize.AnalysisAvailable() == nil {
		var ranks []string
		_, after, _ := strings.Cut(got, ": collect ")
		for _, line := range strings.Split(after, "\n") {
			if _, how, ok := strings.Cut(line, ": rank "); ok {
				ranks = append(ranks, strings.TrimSpace(how))
			}
		}
		if len(ranks) < 2 || !strings.Contains(ranks[0], "(formula order") || !strings.Contains(ranks[len(ranks)-1], "(learned order") {
			t.Errorf("rankings of the whole result %q, want the formula's first and the learned order last; trace:\n%s", ranks, got)
		}
	}
}

// lockedWriter lets goroutines share a buffer.
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}
