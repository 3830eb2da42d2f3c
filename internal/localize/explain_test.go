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
	var changes []string
	for _, c := range ex.Changes {
		changes = append(changes, fmt.Sprintf("%s %s:%d", c.Role, c.File, c.Line))
	}
	if want := []string{"root after.go:10", "root after.go:17"}; !slices.Equal(changes, want) || ex.Message != "" {
		t.Errorf("changes %v (message %q), want %v", changes, ex.Message, want)
	}
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
