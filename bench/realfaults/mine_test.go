package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

func TestInputPackageDir(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"cli/test.yaml", "cli"},
		{"top.txt", "."},
		{"testdata/a.json", "."},
		{"parser/testdata/deep/case.txt", "parser"},
		{"_test/extra.txt", "."},
		{"extension/_test/table.txt", "extension"},
		{"lexers/.hidden/x.txt", "lexers"},
	} {
		if got := inputPackageDir(c.file); got != c.want {
			t.Errorf("inputPackageDir(%q) = %q, want %q", c.file, got, c.want)
		}
	}
}

// TestCandidatesPastAMissingBlob checks that a history lacking one blob (a
// fetched snapshot leaves out large files) is still mined below the commit
// that adds it.
func TestCandidatesPastAMissingBlob(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("a.go", "package a\n\nfunc A() int { return 1 }\n")
	git("add", ".")
	git("commit", "-q", "-m", "start")
	write("a.go", "package a\n\nfunc A() int { return 2 }\n")
	write("a_test.go", "package a\n")
	git("add", ".")
	git("commit", "-q", "-m", "fix A")
	fix := git("rev-parse", "HEAD")
	write("big.txt", "large data\n")
	git("add", ".")
	git("commit", "-q", "-m", "add data")
	blob := git("rev-parse", "HEAD:big.txt")
	write("b.go", "package a\n")
	git("add", ".")
	git("commit", "-q", "-m", "more")
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}

	cs, err := candidates(context.Background(), realfault.Repo{Dir: filepath.Join(dir, ".git")}, realfault.Project{Repo: "x/a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Fix != fix {
		t.Fatalf("candidates = %+v, want only the fix %s", cs, fix)
	}
}
