package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// A fix names its breaking commit by id or by the pull request squashed
// into it; a message without a regression word, a number that is no
// commit and the fix's own pull request number name nothing.
func TestNamedFixesFindsTheBreakingCommit(t *testing.T) {
	_, git := testRepo(t)
	commit := func(msg string) string {
		git("commit", "-q", "--allow-empty", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	commit("root")
	byPull := commit("parser: faster lexing (#12)")
	byID := commit("encoder: escape less")
	commit("docs: see " + byID[:8] + " for the escaping")
	fixPull := commit("parser: fix regression from #12 (#14)")
	fixID := commit("encoder: escape quotes again\n\nFixes: " + byID[:12] + "\nbroken since 1234567, see #99")
	commit("encoder: fix regression (#15)")

	got, err := namedFixes(context.Background(), realfault.Repo{Dir: filepath.Join(git("rev-parse", "--show-toplevel"), ".git")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{fixPull: {byPull}, fixID: {byID}}
	if len(got) != len(want) {
		t.Fatalf("named fixes %+v, want %d", got, len(want))
	}
	for _, f := range got {
		if !slices.Equal(f.Named, want[f.Fix]) {
			t.Errorf("%s (%s) names %v, want %v", f.Fix[:7], f.Subject, f.Named, want[f.Fix])
		}
	}
}
