package regress

import (
	"slices"
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

// TestChangedConditionBringsItsBlock checks the hunks a cause maps to: a
// condition whose header a hunk changes brings the hunks inside its
// statement, while an unchanged condition brings none of them.
func TestChangedConditionBringsItsBlock(t *testing.T) {
	hunks := []*Hunk{
		{ID: 0, File: "a.go", NewStart: 10, NewCount: 1},
		{ID: 1, File: "a.go", NewStart: 12, NewCount: 2},
		{ID: 2, File: "a.go", NewStart: 30, NewCount: 1},
	}
	x := &explainer{cs: &changeSet{files: []*fileChange{{Rel: "a.go", Hunks: hunks}}, hunks: hunks}}
	check := analysis.Statement{File: "a_test.go", Line: 3, Test: true}
	for _, tc := range []struct {
		stmt analysis.Statement
		want []int
	}{
		{analysis.Statement{File: "a.go", Line: 10, EndLine: 10, BlockEnd: 20}, []int{0, 1}},
		{analysis.Statement{File: "a.go", Line: 5, EndLine: 5, BlockEnd: 20}, nil},
		{analysis.Statement{File: "a.go", Line: 30, EndLine: 30}, []int{2}},
	} {
		x.causes = nil
		x.addCause(&analysis.Cause{Outcome: check, Statements: []analysis.Statement{tc.stmt}}, -1)
		if got := x.causes[0].hunks; !slices.Equal(got, tc.want) {
			t.Errorf("hunks of a cause holding %s:%d-%d (block to %d) = %v, want %v", tc.stmt.File, tc.stmt.Line, tc.stmt.EndLine, tc.stmt.BlockEnd, got, tc.want)
		}
	}
}
