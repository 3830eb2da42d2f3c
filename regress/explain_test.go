package regress

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// describe lists an explanation's changes as "role file:line-endLine".
func describeChanges(ex *Explanation) []string {
	var out []string
	for _, c := range ex.Changes {
		out = append(out, fmt.Sprintf("%s %s:%d-%d", c.Role, c.File, c.Line, c.EndLine))
	}
	return out
}

func explainArchive(t *testing.T, name string, target testbuild.Target, opts Options) (*Explanation, string) {
	t.Helper()
	dir := txtartest.History(t, filepath.Join("testdata", name))
	opts.Progress = func(s string) { t.Log(s) }
	ex, err := Explain(context.Background(), openModule(t, dir), target, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", ex)
	return ex, dir
}

// TestRunningExample checks the paper's c1/c2/c3 case: the first cause
// holds only c3, whose revert alone still fails; the critical predicate
// x < y brings c2, and reverting c2 and c3 together passes. c1 and c4 are
// never reported.
func TestRunningExample(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	ex, dir := explainArchive(t, "running.txtar", testbuild.Target{Package: "example.com/after", Test: "TestMaxPlus"}, Options{})
	if ex.Message != "" {
		t.Fatalf("message: %s", ex.Message)
	}
	if got, want := describeChanges(ex), []string{"root after.go:10-10", "root after.go:17-17"}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	if base := txtartest.Git(t, dir, "rev-parse", "HEAD~1"); ex.Base != base || ex.BaseFound != "bisected" {
		t.Errorf("base = %s (%s), want %s bisected", ex.Base, ex.BaseFound, base)
	}
	if ex.Found != "cause" {
		t.Errorf("found by %q, want the causes", ex.Found)
	}
	// {c3}, {c2}, {c2, c3}; reverting all reads as the base, whose run
	// passed.
	if ex.Reruns != 3 {
		t.Errorf("reruns = %d, want 3", ex.Reruns)
	}
	var chain []string
	for _, s := range ex.Cause {
		chain = append(chain, fmt.Sprintf("%s:%d", s.File, s.Line))
	}
	if want := []string{"after.go:10", "after.go:13", "after.go:17", "after.go:21", "after_test.go:6"}; !slices.Equal(chain, want) {
		t.Errorf("cause = %v, want %v", chain, want)
	}
	if ex.Cause[0].Change != 0 || ex.Cause[2].Change != 1 {
		t.Errorf("cause steps do not name their changes: %+v", ex.Cause)
	}
	// Both changes came with commit 1.
	want := ChangeCommit{Hash: txtartest.Git(t, dir, "rev-parse", "HEAD"), Date: txtartest.Git(t, dir, "log", "-1", "--format=%as"), Subject: "commit 1"}
	for _, c := range ex.Changes {
		if c.Commit == nil || *c.Commit != want {
			t.Errorf("%s:%d came with %+v, want %+v", c.File, c.Line, c.Commit, want)
		}
	}
}

// TestDodgingChange checks the GNU find shape: the change that only
// dodges the failure (line 4) is not reported; the deleted handling of
// mode is, with the signature and the call site it needs to compile as
// auxiliary changes. Plain delta debugging reports the dodge.
func TestDodgingChange(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	target := testbuild.Target{Package: "example.com/walk", Test: "TestEnterFollow"}
	ex, _ := explainArchive(t, "dodge.txtar", target, Options{})
	if ex.Message != "" {
		t.Fatalf("message: %s", ex.Message)
	}
	if got, want := describeChanges(ex), []string{"root walk.go:30-29", "auxiliary walk.go:16-16", "auxiliary walk.go:28-28"}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	plain, _ := explainArchive(t, "dodge.txtar", target, Options{Strategy: "ddmin"})
	if got, want := describeChanges(plain), []string{"root walk.go:4-4"}; !slices.Equal(got, want) {
		t.Errorf("ddmin changes = %v, want %v", got, want)
	}
}

// TestPanicInChange checks that the statement where the failure happens
// is part of the first cause: in panics.txtar the changed index panics on
// operands the test's inputs alone give, so the cause's core holds no
// statement, and the root is found from the causes (not by the fallback)
// without the executed Label change.
func TestPanicInChange(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	ex, _ := explainArchive(t, "panics.txtar", testbuild.Target{Package: "example.com/panics", Test: "TestMaskedEmpty"}, Options{alwaysRecord: true})
	if ex.Message != "" {
		t.Fatalf("message: %s", ex.Message)
	}
	if got, want := describeChanges(ex), []string{"root panics.go:5-5"}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	if ex.Found != "cause" || ex.NoRoot != "" {
		t.Errorf("found by %q (no root: %q), want the causes", ex.Found, ex.NoRoot)
	}
}
