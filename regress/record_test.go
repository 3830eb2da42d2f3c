package regress

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// Recording the failing run past its share of the budget is cancelled and
// waited for: when record returns, the recording has ended, so nothing of
// it goes on taking the machine from the reverts that follow.
func TestRecordingEndsAtItsDeadline(t *testing.T) {
	var ended atomic.Bool
	x := &explainer{ex: &Explanation{}, o: &oracle{}, say: func(string, ...any) {},
		opts: Options{RecordTimeout: time.Millisecond},
		recordRun: func(ctx context.Context, _ *testbuild.Module, _ testbuild.Target, _ analysis.Options) (*analysis.FailingRun, error) {
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond) // stopping takes a moment, as a killed build does
			ended.Store(true)
			return nil, ctx.Err()
		}}
	_, err := x.record(context.Background())
	if !errors.Is(err, errRecordTimeout) {
		t.Errorf("record: %v, want the recording timeout", err)
	}
	if !ended.Load() {
		t.Error("record returned while the recording still ran")
	}
	if got := semanticMiss(err); got != NoRootBudget {
		t.Errorf("no root because %q, want the budget", got)
	}
}

// A given base's verdict, fetched beside the working tree's run, counts
// once; when the test passes in the working tree the base's run is
// stopped and the explanation says there is nothing to explain.
func TestGivenBaseFetchedBesideTheWorkingTree(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	base := txtartest.Git(t, dir, "rev-parse", "HEAD~1")
	ex := explainDir(t, dir, Options{Base: base, Trace: true})
	if ex.Message != "" || ex.Base != base || ex.BaseFound != "given" || len(ex.Changes) == 0 {
		t.Fatalf("explanation %+v", ex)
	}
	if ex.Bisected != 1 || ex.BisectedCached != 0 {
		t.Errorf("base verdict counted as %d run and %d cached, want 1 and 0", ex.Bisected, ex.BisectedCached)
	}
	var phases []string
	for _, p := range ex.Phases {
		phases = append(phases, p.Name)
	}
	for _, want := range []string{"list", "build", "run", "base", "diff"} {
		if !slices.Contains(phases, want) {
			t.Errorf("phases %v lack %q", phases, want)
		}
	}
	txtartest.Git(t, dir, "reset", "-q", "--hard", base)
	if ex := explainDir(t, dir, Options{Base: "HEAD~1"}); !strings.Contains(ex.Message, "passes in the working tree") {
		t.Errorf("message = %q, want the test passing", ex.Message)
	}
}
