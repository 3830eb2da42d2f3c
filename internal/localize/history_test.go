package localize

import (
	"context"
	"os/exec"
	"testing"

	"github.com/faultline-go/faultline/internal/txtartest"
)

func TestHistoryEvidence(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Setenv("GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z") // the commit long before now
	dir := txtartest.History(t, "testdata/history.txtar")
	lines := []RankedLine{{File: "h.go", Line: 4}, {File: "h.go", Line: 5}, {File: "h.go", Line: 7}, {File: "gone.go", Line: 1}}
	ev, err := HistoryEvidence(context.Background(), dir, "", lines)
	if err != nil {
		t.Fatal(err)
	}
	recency, newest, recent := ev.Columns["history.recency"], ev.Columns["history.newest"], ev.Columns["history.recent"]
	if recency == nil || newest == nil || recent == nil {
		t.Fatalf("columns %v, want history.recency, .newest and .recent", ev.Columns)
	}
	// The changed line is newest; the two committed ones share the lower
	// mid-rank; a file blame cannot read gives nothing.
	if newest[0] != 1 || newest[1] != 0 || newest[2] != 0 || newest[3] != 0 {
		t.Errorf("newest %v, want [1 0 0 0]", newest)
	}
	if recency[0] != 5.0/6 || recency[1] != 1.0/3 || recency[2] != 1.0/3 || recency[3] != 0 {
		t.Errorf("recency %v, want [5/6 1/3 1/3 0]", recency)
	}
	if recent[0] != 1 || recent[1] != 1 || recent[3] != 0 {
		t.Errorf("recent %v, want the three newest changes' lines (here every blamed line)", recent)
	}

	ev, err = HistoryEvidence(context.Background(), t.TempDir(), "", lines)
	if err != nil || len(ev.Columns) != 0 {
		t.Errorf("outside a repository: columns %v, error %v; want none and no error", ev.Columns, err)
	}
}
