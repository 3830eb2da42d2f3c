//go:build cgo

package localize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-go/faultline/analysis"
)

// An explanation made once is given again from the cache for the same
// content, without a worker (so without a build or a run); an edit to the
// working tree makes it again.
func TestExplainTakesCachedExplanation(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	s, m, dir := history(t, "running.txtar")
	first, err := s.Explain(context.Background(), m, ExplainOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tests) != 1 || first.Tests[0].Cached {
		t.Fatalf("first explanations %+v", first)
	}
	real := s.worker
	workers := 0
	s.worker = func(ctx context.Context, req workRequest, done func(workReply)) error {
		workers++
		return real(ctx, req, done)
	}
	again, err := s.Explain(context.Background(), m, ExplainOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if workers != 0 || len(again.Tests) != 1 || !again.Tests[0].Cached {
		t.Fatalf("the same content again started %d workers, explanations %+v", workers, again)
	}
	wantRunningRoots(t, again.Tests[0])
	if again.Tests[0].Builds != first.Tests[0].Builds || again.Tests[0].Base != first.Tests[0].Base {
		t.Errorf("cached explanation %+v differs from the one made %+v", again.Tests[0], first.Tests[0])
	}

	// A new untracked file in the module is content the explanation sees.
	if err := os.WriteFile(filepath.Join(dir, "extra.go"), []byte("package after\n\nconst extra = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.worker = func(ctx context.Context, req workRequest, done func(workReply)) error {
		workers++
		return errors.New("explained in a worker")
	}
	if _, err := s.Explain(context.Background(), m, ExplainOptions{}, nil); workers != 1 || err == nil {
		t.Errorf("after an edit: %d workers, error %v; want the explanation made again", workers, err)
	}
}
