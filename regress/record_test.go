package regress

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
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
