package regress

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// commitAt commits everything in dir with the committer date at unix.
func commitAt(t *testing.T, dir string, unix int64, msg string) {
	t.Helper()
	date := time.Unix(unix, 0).UTC().Format(time.RFC3339)
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", msg}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=faultline", "-c", "user.email=faultline@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+date, "GIT_AUTHOR_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLineTimes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	const first, second = 1_600_000_000, 1_700_000_000
	write(t, dir, "pkg/a.go", "package pkg\n\nfunc A() int {\n\treturn 1\n}\n")
	commitAt(t, dir, first, "first")
	write(t, dir, "pkg/a.go", "package pkg\n\nfunc A() int {\n\treturn 2\n}\n")
	commitAt(t, dir, second, "second")
	// In the working tree: one line changed, whitespace alone on another,
	// and a file git does not track.
	write(t, dir, "pkg/a.go", "package pkg\n\nfunc A() int  {\n\treturn 3\n}\n")
	write(t, dir, "pkg/new.go", "package pkg\n\nvar B = 1")
	before := time.Now().Unix()

	// Paths are relative to the directory asked for, a subdirectory here.
	got, err := LineTimes(context.Background(), filepath.Join(dir, "pkg"), "", []string{"a.go", "new.go", "missing.go"})
	if err != nil {
		t.Fatal(err)
	}
	a := got["a.go"]
	if len(a) != 5 || a[0] != first || a[2] != first || a[3] < before || a[4] != first {
		t.Errorf("a.go in the working tree: got %v, want [%d _ %d ≥%d %d]", a, first, first, before, first)
	}
	if n := got["new.go"]; len(n) != 3 || slices.Min(n) < before {
		t.Errorf("untracked new.go: got %v, want 3 lines at now", n)
	}
	if _, ok := got["missing.go"]; ok {
		t.Errorf("a file that does not exist has times: %v", got["missing.go"])
	}

	// At a revision, from the repository's git directory.
	got, err = LineTimes(context.Background(), filepath.Join(dir, ".git"), "HEAD~1", []string{"pkg/a.go"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{first, first, first, first, first}; !slices.Equal(got["pkg/a.go"], want) {
		t.Errorf("pkg/a.go at HEAD~1: got %v, want %v", got["pkg/a.go"], want)
	}
	got, err = LineTimes(context.Background(), filepath.Join(dir, ".git"), "HEAD", []string{"pkg/a.go"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{first, first, first, second, first}; !slices.Equal(got["pkg/a.go"], want) {
		t.Errorf("pkg/a.go at HEAD: got %v, want %v", got["pkg/a.go"], want)
	}

	if _, err := LineTimes(context.Background(), t.TempDir(), "", []string{"a.go"}); !errors.Is(err, ErrNoHistory) {
		t.Errorf("outside a repository: got %v, want ErrNoHistory", err)
	}
}
