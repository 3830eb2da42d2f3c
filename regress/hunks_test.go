package regress

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/internal/txtartest"
)

func changesOf(t *testing.T, archive string) *changeSet {
	t.Helper()
	return changesSince(t, archive, "HEAD")
}

func TestHunksAtStatementGranularity(t *testing.T) {
	cs := changesOf(t, "hunks.txtar")
	var got []string
	for _, h := range cs.hunks {
		got = append(got, fmt.Sprintf("%s -%d,%d +%d,%d", h.File, h.OldStart, h.OldCount, h.NewStart, h.NewCount))
	}
	want := []string{
		"gone.go -1,3 +0,0",
		// The import becomes a block: one hunk; three statements replaced
		// by three: three hunks; the if deleted whole: one.
		"h.go -3,1 +3,4",
		"h.go -6,1 +9,1",
		"h.go -7,1 +10,1",
		"h.go -8,1 +11,1",
		"h.go -9,3 +11,0",
		"h.go -15,1 +15,1",
		// Two functions added: two hunks.
		"h.go -15,0 +16,2",
		"h.go -15,0 +18,2",
		"new.go -0,0 +1,3",
		"nonl.go -3,1 +3,1",
		"nonl.go -3,0 +4,1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hunks:\n%v\nwant\n%v", got, want)
	}
	if want := []string{"h_test.go", "testdata/in.txt"}; !slices.Equal(cs.kept, want) {
		t.Errorf("kept = %v, want %v", cs.kept, want)
	}
}

// TestComposeRevertsExactly checks that reverting every hunk of a file
// gives its base content, none its working-tree content, and any subset
// the working tree with exactly those hunks' lines put back.
func TestComposeRevertsExactly(t *testing.T) {
	cs := changesOf(t, "hunks.txtar")
	rng := rand.New(rand.NewSource(1))
	for _, f := range cs.files {
		all := func(int) bool { return true }
		none := func(int) bool { return false }
		if got, present, _ := f.compose(all); present != f.HasOld || got != string(f.Old) {
			t.Errorf("%s all reverted: %q (present %v), want %q", f.Rel, got, present, f.Old)
		}
		if got, present, _ := f.compose(none); present != f.HasNew || got != string(f.New) {
			t.Errorf("%s none reverted: %q (present %v), want %q", f.Rel, got, present, f.New)
		}
		for range 20 {
			pick := map[int]bool{}
			for _, h := range f.Hunks {
				pick[h.ID] = rng.Intn(2) == 0
			}
			got, _, from := f.compose(func(id int) bool { return pick[id] })
			lines := splitLines([]byte(got))
			if len(lines) != len(from) {
				t.Fatalf("%s: %d lines, %d origins", f.Rel, len(lines), len(from))
			}
			newLines := splitLines(f.New)
			for i, l := range lines[:max(len(lines)-1, 0)] {
				if l[len(l)-1] != '\n' {
					t.Errorf("%s: line %d of %d has no line ending: %q", f.Rel, i+1, len(lines), got)
				}
			}
			for i, o := range from {
				if o.hunk < 0 && lines[i] != newLines[o.newLine-1] {
					t.Errorf("%s: line %d says it is working-tree line %d but differs", f.Rel, i+1, o.newLine)
				}
				if o.hunk >= 0 && !pick[o.hunk] {
					t.Errorf("%s: line %d comes from hunk %d, which is not reverted", f.Rel, i+1, o.hunk)
				}
			}
		}
	}
}

// TestLastLineWithoutLineEnding checks that a hunk holding the last line
// of a file without a line ending stays whole, so that no partial revert
// glues two lines together.
func TestLastLineWithoutLineEnding(t *testing.T) {
	dir := t.TempDir()
	write := func(data string) {
		if err := os.WriteFile(filepath.Join(dir, "n.go"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	txtartest.Git(t, dir, "init", "-q")
	write("package n\n\nvar N = 1")
	txtartest.Git(t, dir, "add", "-A")
	txtartest.Git(t, dir, "commit", "-q", "-m", "base")
	write("package n\n\nvar N = 2\nvar M = 3")
	ctx := context.Background()
	r, err := openRepo(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := collectChanges(ctx, r, "HEAD", dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.hunks) != 1 {
		t.Fatalf("%d hunks, want 1", len(cs.hunks))
	}
	if got, _, _ := cs.files[0].compose(func(int) bool { return true }); got != "package n\n\nvar N = 1" {
		t.Errorf("reverted: %q", got)
	}
}
