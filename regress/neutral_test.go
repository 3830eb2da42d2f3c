package regress

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// changesSince diffs an archive's history between the given revision and
// the working tree.
func changesSince(t *testing.T, archive, rev string) *changeSet {
	t.Helper()
	dir := txtartest.History(t, filepath.Join("testdata", archive))
	ctx := context.Background()
	r, err := openRepo(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	base, err := r.resolve(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := collectChanges(ctx, r, base, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// hunkNames lists hunks as "file -old +new".
func hunkNames(cs *changeSet, ids []int) []string {
	var out []string
	for _, id := range ids {
		h := cs.hunks[id]
		out = append(out, fmt.Sprintf("%s -%d,%d +%d,%d", h.File, h.OldStart, h.OldCount, h.NewStart, h.NewCount))
	}
	return out
}

// neutralGolden are the archives with one kind of neutral edit each, and
// the hunk that edit is.
var neutralGolden = []struct {
	archive string
	hunks   []string // as hunkNames writes them
	at      []string // where they are in the working tree, as file:line
}{
	{"neutral-parens.txtar", []string{"scale.go -10,1 +10,1"}, []string{"scale.go:10"}},
	{"neutral-format.txtar", []string{"scale.go -10,1 +10,3"}, []string{"scale.go:10"}},
	{"neutral-comment.txtar", []string{"scale.go -10,1 +10,1"}, []string{"scale.go:10"}},
	{"neutral-rename.txtar", []string{"scale.go -10,1 +10,1"}, []string{"scale.go:10"}},
	{"neutral-constant.txtar", []string{"scale.go -10,1 +10,1"}, []string{"scale.go:10"}},
	{"neutral-imports.txtar", []string{"b.go -4,1 +3,0", "b.go -5,0 +5,1"}, []string{"b.go:4", "b.go:5"}},
	{"neutral-inline.txtar", []string{"scale.go -6,1 +6,1"}, []string{"scale.go:6"}},
	{"neutral-reorder.txtar", []string{"scale.go -10,1 +10,1"}, []string{"scale.go:10"}},
	{"neutral-header.txtar", []string{"scale.go -7,1 +7,1"}, []string{"scale.go:7"}},
}

// TestNeutralHunks checks that each golden neutral edit, and only it, is
// found neutral beside the fault's hunks.
func TestNeutralHunks(t *testing.T) {
	for _, g := range neutralGolden {
		t.Run(g.archive, func(t *testing.T) {
			cs := changesSince(t, g.archive, "HEAD~1")
			all := make([]int, len(cs.hunks))
			for i := range all {
				all[i] = i
			}
			t.Logf("hunks: %v", hunkNames(cs, all))
			got := hunkNames(cs, neutralHunks(cs))
			if !slices.Equal(got, g.hunks) {
				t.Errorf("neutral = %v, want %v", got, g.hunks)
			}
		})
	}
}

// TestNotNeutral checks edits that look neutral and are not: grouping that
// changes, a local renamed onto a global it then shadows, integer division
// folded to a float, a constant's kind, a compiler directive, reordered
// statements that call, a local type's printed name, lines inside raw
// strings, a receiver renamed where the body assigned it, and swapped
// statements that depend on each other, through a shadowing declaration,
// or may panic (division), and an if's header changed with a statement
// of its body on the same line.
func TestNotNeutral(t *testing.T) {
	cs := changesSince(t, "notneutral.txtar", "HEAD")
	// Fourteen edits, seven of them in two hunks.
	if len(cs.hunks) != 21 {
		t.Fatalf("%d hunks, want 21", len(cs.hunks))
	}
	if got := neutralHunks(cs); len(got) > 0 {
		t.Errorf("found neutral: %v", hunkNames(cs, got))
	}
}

// TestNeutralNeverReported explains each golden archive: the fault needs
// two hunks reverted together and the neutral edit lies between them on
// the failing run's path, so a search that reverts it reports it.
func TestNeutralNeverReported(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	for _, g := range neutralGolden {
		t.Run(g.archive, func(t *testing.T) {
			ex, _ := explainArchive(t, g.archive, testbuild.Target{Package: "example.com/neutral", Test: "TestScale"}, Options{})
			if ex.Message != "" {
				t.Fatalf("message: %s", ex.Message)
			}
			got := describeChanges(ex)
			if len(got) != 2 {
				t.Errorf("changes = %v, want the two hunks of the fault", got)
			}
			for _, c := range ex.Changes {
				if slices.Contains(g.at, fmt.Sprintf("%s:%d", c.File, c.Line)) {
					t.Errorf("reported the neutral edit %v: %+v", g.hunks, c)
				}
			}
			if ex.Neutral != len(g.hunks) {
				t.Errorf("neutral = %d, want %d", ex.Neutral, len(g.hunks))
			}
		})
	}
}

// TestNoRootFallsBack checks that when the causes hold no root change the
// explanation says why and reports the smallest set delta debugging
// finds: in outside.txtar both initializers, not the executed statement
// between them (which asymmetric delta debugging keeps, reverting all
// three).
func TestNoRootFallsBack(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		name    string
		archive string
		opts    Options
		want    NoRootReason
		changes []string
	}{
		{"outside", "outside.txtar", Options{}, NoRootOutside, []string{"root outside.go:3-3", "root outside.go:12-12"}},
		{"budget", "outside.txtar", Options{Semantic: analysis.Options{Budget: time.Nanosecond}}, NoRootBudget, []string{"root outside.go:3-3", "root outside.go:12-12"}},
		{"nobuild", "nobuild.txtar", Options{}, NoRootNoBuild, []string{"root nobuild.go:3-3"}},
		{"memory", "outside.txtar", Options{SkipCauses: NoRootMemory}, NoRootMemory, []string{"root outside.go:3-3", "root outside.go:12-12"}},
		// Recording the failing run out of its share of the budget leaves
		// the fallback the rest.
		{"record", "outside.txtar", Options{RecordTimeout: time.Nanosecond}, NoRootBudget, []string{"root outside.go:3-3", "root outside.go:12-12"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pkg := "example.com/" + strings.TrimSuffix(c.archive, ".txtar")
			c.opts.alwaysRecord = true
			ex, _ := explainArchive(t, c.archive, testbuild.Target{Package: pkg, Test: "TestScale"}, c.opts)
			if ex.Message != "" {
				t.Fatalf("message: %s", ex.Message)
			}
			if ex.NoRoot != c.want {
				t.Errorf("no root because %q, want %q", ex.NoRoot, c.want)
			}
			if ex.Found != "executed" && ex.Found != "all" {
				t.Errorf("found by %q, want a fallback", ex.Found)
			}
			if got := describeChanges(ex); !slices.Equal(got, c.changes) {
				t.Errorf("changes = %v, want %v", got, c.changes)
			}
		})
	}
}
