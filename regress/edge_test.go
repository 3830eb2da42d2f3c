package regress

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

var addTest = testbuild.Target{Package: "example.com/edge", Test: "TestAdd"}

func explainDir(t *testing.T, dir string, opts Options) *Explanation {
	t.Helper()
	ex, err := Explain(context.Background(), openModule(t, dir), addTest, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func TestNoRepository(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	_, err := Explain(context.Background(), openModule(t, dir), addTest, Options{})
	if !errors.Is(err, ErrNoRepository) {
		t.Errorf("err = %v, want ErrNoRepository", err)
	}
}

// TestBisectsPastAnUnrelatedCommit finds commit 1 as the base (commit 2
// breaks Add) and reports the one changed line, not the untracked file.
func TestBisectsPastAnUnrelatedCommit(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	ex := explainDir(t, dir, Options{})
	if ex.Message != "" {
		t.Fatal(ex.Message)
	}
	if want := txtartest.Git(t, dir, "rev-parse", "HEAD~1"); ex.Base != want {
		t.Errorf("base %s, want HEAD~1 %s", ex.Base, want)
	}
	if want := txtartest.Git(t, dir, "rev-parse", "HEAD"); ex.FirstBad != want {
		t.Errorf("first bad %s, want HEAD", ex.FirstBad)
	}
	if len(ex.Changes) != 1 || ex.Changes[0].File != "edge.go" || ex.Changes[0].Line != 4 || ex.Changes[0].New != "\treturn a - b\n" {
		t.Errorf("changes = %+v", ex.Changes)
	}
	if ex.Total != 2 {
		t.Errorf("total = %d, want 2 (the fault and the untracked file)", ex.Total)
	}
	// A second explanation takes the verdicts of the commits from the cache.
	again, err := Explain(context.Background(), openModule(t, dir), addTest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = again
}

// TestUncommittedEdit explains a failure that only the working tree's
// edits bring: the base is HEAD.
func TestUncommittedEdit(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	txtartest.Git(t, dir, "reset", "-q", "--hard", "HEAD~1")
	if err := os.WriteFile(filepath.Join(dir, "edge.go"), []byte("package edge\n\nfunc Add(a, b int) int {\n\treturn a * b\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := explainDir(t, dir, Options{})
	if want := txtartest.Git(t, dir, "rev-parse", "HEAD"); ex.Base != want || ex.FirstBad != "" {
		t.Errorf("base %s (first bad %q), want HEAD %s", ex.Base, ex.FirstBad, want)
	}
	if len(ex.Changes) != 1 || ex.Changes[0].New != "\treturn a * b\n" || ex.Changes[0].Commit != nil {
		t.Errorf("changes = %+v (%s), want one, not committed", ex.Changes, ex.Message)
	}
	if out := txtartest.Git(t, dir, "status", "--porcelain"); !strings.Contains(out, "M edge.go") {
		t.Errorf("the working tree changed: %s", out)
	}
}

func TestGivenBaseWhereTheTestFails(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	ex := explainDir(t, dir, Options{Base: "HEAD"})
	if !strings.Contains(ex.Message, "fails at the base") {
		t.Errorf("message = %q", ex.Message)
	}
	ex = explainDir(t, dir, Options{Base: "no-such-rev"})
	if !strings.Contains(ex.Message, "not a commit") {
		t.Errorf("message = %q", ex.Message)
	}
}

// TestFailsEverywhere: a test that fails at every commit is not a
// regression.
func TestFailsEverywhere(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	test := "package edge\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) { t.Fatal(\"always\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "edge_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := explainDir(t, dir, Options{})
	if !strings.Contains(ex.Message, "fails at every commit") || !strings.Contains(ex.Message, "flaky or come from the environment") {
		t.Errorf("message = %q", ex.Message)
	}
}

// TestBaseWhereTheTestDoesNotBuild: the test calls a function the first
// commits do not have.
func TestBaseWhereTheTestDoesNotBuild(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	test := "package edge\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(Twice(1), 3) != 5 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "edge_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, dir, "rm", "-q", "--cached", "more.go")
	txtartest.Git(t, dir, "commit", "-q", "-m", "untrack more.go")
	// Only HEAD (and the working tree) know Twice: every commit before
	// fails to build.
	ex := explainDir(t, dir, Options{})
	if !strings.Contains(ex.Message, "does not build at") || !strings.Contains(ex.Message, "Twice") {
		t.Errorf("message = %q", ex.Message)
	}
}

// TestStepLandsWhereTheTestDoesNotBuild: bisecting steps back 1, 2, 4
// commits and lands on commit 0, which lacks Twice; the commit it stepped
// over, where Twice came in, passes and is the base.
func TestStepLandsWhereTheTestDoesNotBuild(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	test := "package edge\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(Twice(1), 3) != 5 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n"
	for i, name := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("package edge\n\nconst c%d = %d\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		txtartest.Git(t, dir, "add", name)
		txtartest.Git(t, dir, "commit", "-q", "-m", "add "+name)
	}
	if err := os.WriteFile(filepath.Join(dir, "edge_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := explainDir(t, dir, Options{})
	if ex.Message != "" {
		t.Fatal(ex.Message)
	}
	if want := txtartest.Git(t, dir, "rev-parse", "HEAD~3"); ex.Base != want {
		t.Errorf("base %s, want HEAD~3 %s", ex.Base, want)
	}
	if len(ex.Changes) != 1 || ex.Changes[0].File != "edge.go" || ex.Changes[0].Line != 4 {
		t.Errorf("changes = %+v", ex.Changes)
	}
}

func TestShallowClone(t *testing.T) {
	t.Parallel()
	src := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	dir := filepath.Join(t.TempDir(), "clone")
	txtartest.Git(t, filepath.Dir(dir), "clone", "-q", "--depth", "1", "file://"+src, dir)
	ex := explainDir(t, dir, Options{})
	if !strings.Contains(ex.Message, "shallow") {
		t.Errorf("message = %q", ex.Message)
	}
}

// TestMergeCommit: the fault comes with a merged branch; the first failing
// commit on the first-parent line is the merge, and the explanation says
// so.
func TestMergeCommit(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "edges.txtar"))
	txtartest.Git(t, dir, "reset", "-q", "--hard", "HEAD~1")
	txtartest.Git(t, dir, "checkout", "-q", "-b", "topic")
	if err := os.WriteFile(filepath.Join(dir, "edge.go"), []byte("package edge\n\nfunc Add(a, b int) int {\n\treturn a + b + 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, dir, "commit", "-q", "-am", "topic: off by one")
	txtartest.Git(t, dir, "checkout", "-q", "main")
	if err := os.WriteFile(filepath.Join(dir, "other.go"), []byte("package edge\n\nfunc Other() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, dir, "add", "other.go")
	txtartest.Git(t, dir, "commit", "-q", "-m", "main: other")
	txtartest.Git(t, dir, "-c", "user.name=x", "-c", "user.email=x@x", "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	ex := explainDir(t, dir, Options{})
	if len(ex.Changes) != 1 || ex.Changes[0].New != "\treturn a + b + 1\n" {
		t.Errorf("changes = %+v (%s)", ex.Changes, ex.Message)
	}
	found := false
	for _, n := range ex.Notes {
		found = found || strings.Contains(n, "is a merge")
	}
	if !found {
		t.Errorf("no note of the merge: %v", ex.Notes)
	}
}

// TestReadsInputsAtTheBase runs the test at an older commit with the
// files it reads at run time (a golden file next to it) as they were
// there, not as in the working tree: commit 0 passes with its own golden
// file and is the base. Reverts keep the working tree's golden file, so
// reverting every change still fails, and the explanation says so.
func TestReadsInputsAtTheBase(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "golden.txtar"))
	ex, err := Explain(context.Background(), openModule(t, dir), testbuild.Target{Package: "example.com/golden", Test: "TestRender"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := txtartest.Git(t, dir, "rev-parse", "HEAD~1"); ex.Base != want || ex.BaseFound != "bisected" {
		t.Fatalf("base %q (%s), want HEAD~1 %s bisected; message %q", ex.Base, ex.BaseFound, want, ex.Message)
	}
	if !strings.Contains(ex.Message, "unless by the files kept as they are: render.golden") {
		t.Errorf("message %q does not name the golden file kept", ex.Message)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "render.golden")); err != nil || string(data) != "v2\n" {
		t.Errorf("the working tree's golden file is now %q (%v)", data, err)
	}
}

// hoardTest is the failing test of hoard.txtar.
var hoardTest = testbuild.Target{Package: "example.com/hoard", Test: "TestScale"}

// explainHoard explains hoard.txtar's test with a test memory bound of
// 64 MB, which a revert of the hoard's change alone goes over.
func explainHoard(t *testing.T, dir string, opts Options) *Explanation {
	t.Helper()
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir(), TestMemory: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	opts.Progress = func(s string) { t.Log(s) }
	ex, err := Explain(context.Background(), mod, hoardTest, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// TestRevertStoppedByTestMemory: a revert that the test memory bound
// stops counts as failing, and the explanation says how many were
// stopped; delta debugging still finds the fault.
func TestRevertStoppedByTestMemory(t *testing.T) {
	if !testbuild.MemoryBoundEnforced {
		t.Skip("the test memory bound is enforced on Linux only")
	}
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "hoard.txtar"))
	ex := explainHoard(t, dir, Options{Strategy: "ddmin"})
	if ex.Message != "" {
		t.Fatalf("message: %s", ex.Message)
	}
	if len(ex.Changes) != 1 || ex.Changes[0].New != "\treturn 2*x + 2\n" {
		t.Errorf("changes = %+v, want the fault alone", ex.Changes)
	}
	if notes := strings.Join(ex.Notes, "\n"); !strings.Contains(notes, "the test memory bound stopped 1 run with a revert, which count as failing") {
		t.Errorf("notes %q do not say that the bound stopped a revert", notes)
	}
}

// TestBaseStoppedByTestMemory: a base where the test memory bound stops
// the test is no verdict on the code: explain says so, given the base or
// bisecting, rather than that the test fails there too.
func TestBaseStoppedByTestMemory(t *testing.T) {
	if !testbuild.MemoryBoundEnforced {
		t.Skip("the test memory bound is enforced on Linux only")
	}
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "hoard.txtar"))
	// A commit where the test hoards, then the working tree without it.
	hoarding := "package hoard\n\nimport \"time\"\n\nvar hoard = 192 << 20\n\nvar enabled = true\n\n" +
		"func Scale(x int) int {\n\tif enabled && hoard > 0 {\n\t\tb := make([]byte, hoard)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n" +
		"\t\ttime.Sleep(3 * time.Second)\n\t\tx += int(b[0]) - 1\n\t}\n\treturn 2*x + 1\n}\n"
	orig, err := os.ReadFile(filepath.Join(dir, "hoard.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hoard.go"), []byte(hoarding), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, dir, "commit", "-q", "-am", "hoard")
	if err := os.WriteFile(filepath.Join(dir, "hoard.go"), orig, 0o644); err != nil {
		t.Fatal(err)
	}
	ex := explainHoard(t, dir, Options{Base: "HEAD"})
	if want := "the test was stopped holding "; !strings.HasPrefix(ex.Message, want) || !strings.Contains(ex.Message, "over the test memory bound of 64 MB at the base ") {
		t.Errorf("given the base: message %q", ex.Message)
	}
	ex = explainHoard(t, dir, Options{MaxCommits: 1})
	if !strings.Contains(ex.Message, "over the test memory bound of 64 MB at ") || !strings.Contains(ex.Message, "(hoard), and passes at no commit tried: -test-memory raises the bound") {
		t.Errorf("bisecting: message %q", ex.Message)
	}
}

// TestReadsCasesOfTheWorkingTree runs the test at an older commit with the
// working tree's run-time files when, with that commit's own, the failing
// test does not exist there: its cases live in a file outside testdata
// that the working tree extends.
func TestReadsCasesOfTheWorkingTree(t *testing.T) {
	t.Parallel()
	dir := txtartest.History(t, filepath.Join("testdata", "cases.txtar"))
	ex, err := Explain(context.Background(), openModule(t, dir), testbuild.Target{Package: "example.com/cases", Test: "TestDouble/3"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := txtartest.Git(t, dir, "rev-parse", "HEAD~1"); ex.Base != want || ex.BaseFound != "bisected" {
		t.Fatalf("base %q (%s), want HEAD~1 %s bisected; message %q", ex.Base, ex.BaseFound, want, ex.Message)
	}
	if len(ex.Changes) == 0 || ex.Changes[0].Role != "root" || ex.Changes[0].File != "double.go" {
		t.Errorf("changes %+v, want the root change in double.go", ex.Changes)
	}
}
