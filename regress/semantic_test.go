package regress

import (
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
)

// TestCauseDeadlineCountsOnlyTheCauses checks that the causes' share of
// time is spent only by the causes: the reverts between them leave it
// whole, and the explanation's own deadline still bounds it.
func TestCauseDeadlineCountsOnlyTheCauses(t *testing.T) {
	far := time.Now().Add(time.Hour)
	x := &explainer{opts: Options{Semantic: analysis.Options{Budget: 30 * time.Second}}, o: &oracle{deadline: far}}
	x.causeTime = 10 * time.Second
	before := time.Now()
	got := x.causeDeadline()
	if lo, hi := before.Add(20*time.Second), time.Now().Add(20*time.Second); got.Before(lo) || got.After(hi) {
		t.Errorf("after 10s of causes out of 30s, the deadline is %v from now, want 20s", got.Sub(before))
	}
	x.causeTime = 40 * time.Second
	if got := x.causeDeadline(); got.After(time.Now()) {
		t.Errorf("with the share spent, the deadline is %v from now, want now", time.Until(got))
	}
	soon := time.Now().Add(5 * time.Second)
	x.causeTime, x.o.deadline = 0, soon
	if got := x.causeDeadline(); !got.Equal(soon) {
		t.Errorf("deadline = %v, want the explanation's own, %v", got, soon)
	}
}
