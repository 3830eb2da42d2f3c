package regress

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"faultline/internal/testbuild"
)

// deleted, as a file's whole content in a history archive, deletes it.
const deleted = "<deleted>\n"

// writeHistory turns a txtar archive into a git repository: the files
// under 0/ are the first commit, those under 1/ change it in the second
// commit, and so on; the files under work/ are left uncommitted. It returns
// the repository's directory.
func writeHistory(t testing.TB, archive string) string {
	t.Helper()
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	git(t, dir, "init", "-q", "-b", "main")
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
			if string(f.Data) == deleted {
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
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-q", "-m", "commit "+step)
		}
	}
	return dir
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=faultline", "-c", "user.email=faultline@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// openModule opens the module in dir with a cache of the test's own.
func openModule(t testing.TB, dir string) *testbuild.Module {
	t.Helper()
	m, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
