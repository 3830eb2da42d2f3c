package bug

import (
	"strings"
	"testing"
)

func TestReportsReachHandlersUntilStopped(t *testing.T) {
	var b Bugs
	var got []Report
	stop := b.Handle(func(r Report) { got = append(got, r) })
	b.Reportf("a %s state", "bad")
	stop()
	b.Reportf("another")
	if len(got) != 1 || got[0].Message != "a bad state" || !strings.Contains(got[0].Location, "bug_test.go") || got[0].Stack == "" {
		t.Fatalf("handled %+v", got)
	}
	if n := len(b.List()); n != 2 {
		t.Errorf("%d reports kept, want 2", n)
	}
}
