// Package txtartest turns txtar archives into directories for tests: the
// project's tests are small workspaces written as txtar files beside the
// code they test.
package txtartest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Extract writes the files of the archive at path into a fresh temporary
// directory and returns it.
func Extract(t testing.TB, path string) string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Deleted, as a file's whole content in a history archive, deletes it.
const Deleted = "<deleted>\n"

// History turns a txtar archive into a git repository: the files
// under 0/ are the first commit, those under 1/ change it in the second
// commit, and so on; the files under work/ are left uncommitted. It returns
// the repository's directory.
func History(t testing.TB, archive string) string {
	t.Helper()
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	Git(t, dir, "init", "-q", "-b", "main")
	steps := map[string][]txtar.File{}
	var order []string
	for _, f := range ar.Files {
		step, name, ok := strings.Cut(f.Name, "/")
		if !ok {
			t.Fatalf("%s: a file of a history archive lives under N/ or work/", f.Name)
		}
		if _, seen := steps[step]; !seen {
			order = append(order, step)
		}
		steps[step] = append(steps[step], txtar.File{Name: name, Data: f.Data})
	}
	slices.SortStableFunc(order, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "work":
			return 1
		case b == "work":
			return -1
		}
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	for _, step := range order {
		for _, f := range steps[step] {
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if string(f.Data) == Deleted {
				os.Remove(p)
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if step != "work" {
			Git(t, dir, "add", "-A")
			Git(t, dir, "commit", "-q", "-m", "commit "+step)
		}
	}
	return dir
}

// Git runs git in dir as a fixed author, failing the test on an error, and
// returns its trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=faultline", "-c", "user.email=faultline@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
