package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// faultline explain on the paper's running example: the text names both
// root changes with their old and new lines and the cause down to the
// failed check; -json gives the same changes, 1-based, endLine inclusive.
func TestExplainRunningExample(t *testing.T) {
	if err := localize.AnalysisAvailable(); err != nil {
		t.Skip(err)
	}
	dir := txtartest.History(t, filepath.Join("..", "..", "regress", "testdata", "running.txtar"))
	store := t.TempDir()
	stdout, stderr, code := faultlineWithStore(t, dir, store, "explain")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"TestMaxPlus (example.com/after)\n",
		"  [1] root change after.go:10\n      - \t\tif x > y {\n      + \t\tif x < y {\n",
		"  [2] root change after.go:17\n",
		"    after.go:10 [1]  if x < y {",
		"    after_test.go:6  if got := MaxPlus(5, 2, 7); got != 12 {  (the check fails)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	stdout, stderr, code = faultlineWithStore(t, dir, store, "explain", "-json", "-base", "HEAD~1")
	if code != 0 {
		t.Fatalf("-json: exit %d\n%s", code, stderr)
	}
	var out struct {
		Failing int
		Tests   []struct {
			Test, Package, Base string
			Changes             []struct {
				File, Role, Old, New string
				Line, EndLine        int
			}
			Cause []struct {
				File, Why string
				Line      int
			}
			Reruns int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if out.Failing != 1 || len(out.Tests) != 1 {
		t.Fatalf("%+v", out)
	}
	ex := out.Tests[0]
	var changes []string
	for _, c := range ex.Changes {
		changes = append(changes, fmt.Sprintf("%s %s:%d-%d %q", c.Role, c.File, c.Line, c.EndLine, c.New))
	}
	want := []string{`root after.go:10-10 "\t\tif x < y {\n"`, `root after.go:17-17 "\t\tsum = sum + z + 1\n"`}
	if !slices.Equal(changes, want) {
		t.Errorf("changes %v, want %v", changes, want)
	}
	if base := txtartest.Git(t, dir, "rev-parse", "HEAD~1"); ex.Base != base {
		t.Errorf("base %s, want HEAD~1 %s", ex.Base, base)
	}
	if n := len(ex.Cause); n == 0 || ex.Cause[n-1].File != "after_test.go" || ex.Cause[n-1].Line != 6 || ex.Reruns == 0 {
		t.Errorf("cause %+v, reruns %d", ex.Cause, ex.Reruns)
	}
}

// Outside a git repository explain says so before it runs any test (the
// test would leave a file behind).
func TestExplainWithoutRepository(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/marker\n\ngo 1.22\n",
		"marker_test.go": "package marker\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\n" +
			"func TestMarker(t *testing.T) {\n\tos.WriteFile(\"ran\", nil, 0o644)\n\tt.Fatal(\"fails\")\n}\n",
	})
	_, stderr, code := faultline(t, dir, "explain")
	if code != 1 || !strings.Contains(stderr, "not inside a git repository") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("exit %d, stderr %q; want exit 1 and a clear message", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the test ran before the repository was checked")
	}
}

// A module whose tests pass has nothing to explain.
func TestExplainWithoutFailures(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":     "module example.com/ok\n\ngo 1.22\n",
		"ok.go":      "package ok\n\nfunc One() int { return 1 }\n",
		"ok_test.go": "package ok\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(\"not one\")\n\t}\n}\n",
	})
	txtartest.Git(t, dir, "init", "-q")
	stdout, stderr, code := faultline(t, dir, "explain")
	if code != 0 || strings.TrimSpace(stdout) != "no failing tests: 1 test passed, nothing to localize" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// When the causes hold no root change, explain says why and that it fell
// back to delta debugging, in the text and as noRoot in the JSON.
func TestExplainSaysWhyItFellBack(t *testing.T) {
	if err := localize.AnalysisAvailable(); err != nil {
		t.Skip(err)
	}
	dir := txtartest.History(t, filepath.Join("..", "..", "regress", "testdata", "outside.txtar"))
	store := t.TempDir()
	stdout, stderr, code := faultlineWithStore(t, dir, store, "explain")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if want := "  no root change among the causes: the causes lay outside the changed lines; fell back to delta debugging (ddmin) over "; !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	stdout, stderr, code = faultlineWithStore(t, dir, store, "explain", "-json")
	if code != 0 {
		t.Fatalf("-json: exit %d\n%s", code, stderr)
	}
	var out struct {
		Tests []struct{ NoRoot, Found string }
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(out.Tests) != 1 || out.Tests[0].NoRoot != "causes-outside-changes" || out.Tests[0].Found == "" {
		t.Errorf("%+v", out)
	}
}

// An explanation that reaches the memory bound, even with the causes left
// out, is reported unexplained with the reason, and explain exits 0.
func TestExplainAtMemoryBound(t *testing.T) {
	dir := txtartest.History(t, filepath.Join("..", "..", "regress", "testdata", "running.txtar"))
	stdout, stderr, code := faultlineWithStore(t, dir, t.TempDir(), "explain", "-memory", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if want := "TestMaxPlus (example.com/after)\n  not explained: the explanation reached its memory bound (1 MB) even without the causes (-memory raises it)\n"; !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
}

// explain -run picks the failing tests to explain, as go test -run matches
// names, and says so when it matches none of them.
func TestExplainRunPicksTheTests(t *testing.T) {
	if err := localize.AnalysisAvailable(); err != nil {
		t.Skip(err)
	}
	dir := txtartest.History(t, filepath.Join("..", "..", "regress", "testdata", "running.txtar"))
	store := t.TempDir()
	stdout, stderr, code := faultlineWithStore(t, dir, store, "explain", "-run", "^TestNone$")
	if code != 0 || !strings.Contains(stdout, `no failing test matches -run "^TestNone$" (failing: 1 test)`) {
		t.Errorf("-run matching no failing test: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = faultlineWithStore(t, dir, store, "explain", "-json", "-run", "^TestMax")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var out localize.Explanations
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(out.Tests) != 1 || out.Tests[0].Test != "TestMaxPlus" {
		t.Errorf("explained %+v, want TestMaxPlus", out.Tests)
	}
}
