//go:build cgo

package localize

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/regress"
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

// Explanations come back in the order of the tests asked for, whether
// taken from the cache or made in the worker.
func TestExplainKeepsTestOrderWithCachedOnes(t *testing.T) {
	s, m, _ := history(t, "running.txtar")
	failing, _ := Select(m, 1)
	if len(failing) != 1 {
		t.Fatalf("failing tests %v", failing)
	}
	first, second := failing[0], testbuild.Target{Package: failing[0].Package, Test: failing[0].Test + "Again"}
	s.worker = func(ctx context.Context, req workRequest, done func(workReply)) error {
		for _, w := range req.Explain {
			data, err := json.Marshal(regress.Explanation{Test: w.Target.Test, Package: w.Target.Package})
			if err != nil {
				return err
			}
			done(workReply{Explanation: data})
		}
		return nil
	}
	if _, err := s.Explain(context.Background(), m, ExplainOptions{Tests: []testbuild.Target{second}}, nil); err != nil {
		t.Fatal(err)
	}
	exs, err := s.Explain(context.Background(), m, ExplainOptions{Tests: []testbuild.Target{first, second}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs.Tests) != 2 || exs.Tests[0].Test != first.Test || exs.Tests[1].Test != second.Test || !exs.Tests[1].Cached {
		t.Fatalf("explanations %+v; want %s made, then %s from the cache", exs.Tests, first.Test, second.Test)
	}
}
