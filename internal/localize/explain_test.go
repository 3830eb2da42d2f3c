//go:build cgo

package localize

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/txtartest"
	"github.com/faultline-go/faultline/regress"
	"github.com/faultline-go/faultline/spectra"
)

// history collects the spectra of a git history from regress/testdata.
func history(t *testing.T, name string) (*Service, *spectra.Matrix, string) {
	t.Helper()
	dir := txtartest.History(t, filepath.Join("..", "..", "regress", "testdata", name))
	s, m := collected(t, dir)
	return s, m, dir
}

// The service explains the failing test of the paper's running example in
// a worker: the two root changes, progress on the way, and each
// explanation handed over as it comes.
func TestExplainInWorker(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	s, m, dir := history(t, "running.txtar")
	if err := s.CheckHistory(context.Background()); err != nil {
		t.Fatal(err)
	}
	var progress []string
	var each []string
	exs, err := s.Explain(context.Background(), m, ExplainOptions{Progress: func(msg string) { progress = append(progress, msg) }},
		func(ex regress.Explanation) { each = append(each, ex.Test) })
	if err != nil {
		t.Fatal(err)
	}
	if exs.Failing != 1 || len(exs.Tests) != 1 || !slices.Equal(each, []string{"TestMaxPlus"}) {
		t.Fatalf("explanations %+v, handed over %v", exs, each)
	}
	ex := exs.Tests[0]
	wantRunningRoots(t, ex)
	if base := txtartest.Git(t, dir, "rev-parse", "HEAD~1"); ex.Base != base {
		t.Errorf("base %s, want %s", ex.Base, base)
	}
	if len(progress) == 0 || !strings.HasPrefix(progress[0], "TestMaxPlus: ") {
		t.Errorf("progress %v", progress)
	}
}

// Without a repository the service says so before anything runs.
func TestCheckHistoryWithoutRepository(t *testing.T) {
	s, _ := module(t, "foo.txtar")
	if err := s.CheckHistory(context.Background()); err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Errorf("err = %v", err)
	}
}

// A worker stopped at its memory bound while explaining a test does not
// end the request: a new worker explains the test again without the
// causes, by delta debugging over the changes the failing run executed,
// and the explanation says so. The first worker here is given a bound it
// cannot keep, as the causes of a large module's run cannot.
func TestExplainFallsBackAtMemoryBound(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	s, m, _ := history(t, "running.txtar")
	real := s.worker
	var bounds []int64
	var skipped []regress.NoRootReason
	s.worker = func(ctx context.Context, req workRequest, done func(workReply)) error {
		if len(bounds) == 0 {
			req.Memory = 1 << 20
		}
		bounds = append(bounds, req.Memory)
		skipped = append(skipped, req.Explain[0].SkipCauses)
		return real(ctx, req, done)
	}
	exs, err := s.Explain(context.Background(), m, ExplainOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []regress.NoRootReason{"", regress.NoRootMemory}; !slices.Equal(skipped, want) {
		t.Fatalf("workers left the causes out for %q, want %q (bounds %v)", skipped, want, bounds)
	}
	if len(exs.Tests) != 1 {
		t.Fatalf("explanations %+v", exs)
	}
	ex := exs.Tests[0]
	wantRunningRoots(t, ex)
	if ex.NoRoot != regress.NoRootMemory || ex.Found != "executed" && ex.Found != "all" || ex.SemanticSeconds != 0 {
		t.Errorf("no root because %q, found by %q, %.1fs on causes: want the memory bound and a fallback without causes", ex.NoRoot, ex.Found, ex.SemanticSeconds)
	}
	if notes := strings.Join(ex.Notes, "\n"); !strings.Contains(notes, "memory bound (1024 MB") {
		t.Errorf("notes %q do not name the memory bound", notes)
	}
}

// A test whose explanation reaches the memory bound even without the
// causes is reported unexplained with the reason; the request does not
// fail.
func TestExplainReportsMemoryBound(t *testing.T) {
	s, m, _ := history(t, "running.txtar")
	exs, err := s.Explain(context.Background(), m, ExplainOptions{Memory: 1 << 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs.Tests) != 1 || len(exs.Tests[0].Changes) != 0 ||
		exs.Tests[0].Message != "not explained: the explanation reached its memory bound (1 MB) even without the causes (-memory raises it)" {
		t.Errorf("explanations %+v", exs)
	}
}

// wantRunningRoots checks that an explanation of running.txtar names its
// two root changes, and nothing else.
func wantRunningRoots(t *testing.T, ex regress.Explanation) {
	t.Helper()
	var changes []string
	for _, c := range ex.Changes {
		changes = append(changes, fmt.Sprintf("%s %s:%d", c.Role, c.File, c.Line))
	}
	if want := []string{"root after.go:10", "root after.go:17"}; !slices.Equal(changes, want) || ex.Message != "" {
		t.Errorf("changes %v (message %q), want %v", changes, ex.Message, want)
	}
}
