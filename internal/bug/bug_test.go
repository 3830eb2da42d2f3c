package bug

import (
	"fmt"
	"os"
	"runtime"
	"slices"
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

// A recovered panic's report says where the panic was raised, not where it
// was recovered.
func TestRecoveredPanicReportsItsSite(t *testing.T) {
	var b Bugs
	var site string
	func() {
		defer func() {
			if v := recover(); v != nil {
				b.Reportf("recovered: %v", v)
			}
		}()
		site = outOfRange(nil, 18, 17)
	}()
	got := b.List()
	if len(got) != 1 {
		t.Fatalf("%d reports, want 1", len(got))
	}
	_, file, _, _ := runtime.Caller(0)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	line := 1 + slices.IndexFunc(strings.Split(string(src), "\n"), func(l string) bool { return strings.HasSuffix(l, "// "+"panics here") })
	want := fmt.Sprintf("%s:%d", file, line)
	if got[0].Location != want {
		t.Errorf("location %q, want %q (the slice expression)%s\n%s", got[0].Location, want, site, got[0].Stack)
	}
}

//go:noinline
func outOfRange(s []int, i, j int) string {
	return fmt.Sprint(s[i:j]) // panics here
}
