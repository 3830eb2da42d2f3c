package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// faultlineBin is the faultline binary built for these tests.
var faultlineBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "faultline-cli-test")
	if err != nil {
		panic(err)
	}
	faultlineBin = filepath.Join(dir, "faultline")
	if out, err := exec.Command("go", "build", "-o", faultlineBin, "../../cmd/faultline").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// copyModule copies a module directory so that a test owns its files.
func copyModule(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("copying %s: %v\n%s", src, err, out)
	}
	return dst
}

// faultline runs the binary in dir with a private store and returns its
// standard output, standard error and exit code.
func faultline(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return faultlineWithStore(t, dir, t.TempDir(), args...)
}

// The main job: on every bundled example, the seeded faulty line is among
// the ten most suspicious lines (best case of its tie group).
func TestRankFindsExampleFaults(t *testing.T) {
	faults, err := filepath.Glob("../../examples/*/fault.json")
	if err != nil || len(faults) < 3 {
		t.Fatalf("want at least three examples, found %v (%v)", faults, err)
	}
	for _, faultFile := range faults {
		example := filepath.Dir(faultFile)
		t.Run(filepath.Base(example), func(t *testing.T) {
			t.Parallel()
			var fault struct {
				File string
				Line int
			}
			data, err := os.ReadFile(faultFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &fault); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := faultline(t, copyModule(t, example), "rank", "-json")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var r struct {
				localize.Ranking
				Angelic struct{ Failing, Analyzed int }
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("rank -json output: %v\n%s", err, stdout)
			}
			if r.Failed == 0 || r.Passed == 0 {
				t.Fatalf("%d failing and %d passing tests, want some of each", r.Failed, r.Passed)
			}
			// The default order weighs the angelic analysis of every
			// failing test.
			if want := localize.ShippedModel().Default; r.Order != want || r.Angelic.Analyzed != r.Failed || r.Angelic.Failing != r.Failed {
				t.Errorf("order %q, %d of %d failing tests analysed; want the %s order over all %d",
					r.Order, r.Angelic.Analyzed, r.Angelic.Failing, want, r.Failed)
			}
			for _, l := range r.Lines {
				if l.File == fault.File && l.Line == fault.Line {
					if l.Tie[0] > 10 {
						t.Errorf("fault %s:%d ranks %d (ties %v), want within the top 10", l.File, l.Line, l.Rank, l.Tie)
					}
					return
				}
			}
			t.Errorf("fault %s:%d is not in the ranking", fault.File, fault.Line)
		})
	}
}

func TestTestCommandReadsLikeGoTest(t *testing.T) {
	stdout, _, code := faultline(t, copyModule(t, "../../examples/money"), "test")
	if code != 1 {
		t.Errorf("exit %d with failing tests, want 1", code)
	}
	for _, want := range []string{
		"--- FAIL: TestAllocate/halves",
		"panic: runtime error: index out of range",
		"--- FAIL: TestAllocate/remainder_to_largest_loss",
		"FAIL\texample.com/money\t",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, " passed, ") || strings.Contains(stdout, "--- PASS") {
		t.Errorf("want a closing count and no passing tests listed without -v:\n%s", stdout)
	}
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRankWithoutFailures(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":     "module example.com/ok\n\ngo 1.22\n",
		"ok.go":      "package ok\n\nfunc One() int { return 1 }\n",
		"ok_test.go": "package ok\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(\"not one\")\n\t}\n}\n",
	})
	stdout, stderr, code := faultline(t, dir, "rank")
	if code != 0 || strings.TrimSpace(stdout) != "no failing tests: 1 test passed, nothing to localize" {
		t.Errorf("exit %d, stdout %q, stderr %q; want a plain message and exit 0", code, stdout, stderr)
	}
}

func TestRankReportsBuildErrors(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":         "module example.com/broken\n\ngo 1.22\n",
		"broken.go":      "package broken\n\nfunc One() int { return undefinedName }\n",
		"broken_test.go": "package broken\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) { One() }\n",
	})
	_, stderr, code := faultline(t, dir, "rank")
	if code == 0 {
		t.Error("exit 0 for a package that does not build")
	}
	if !strings.Contains(stderr, "broken.go:3:25: undefined: undefinedName") {
		t.Errorf("stderr lacks the compiler's message:\n%s", stderr)
	}
	if strings.Contains(stderr, "goroutine ") {
		t.Errorf("stderr has a stack trace:\n%s", stderr)
	}
}

func TestRankRejectsUnknownFormula(t *testing.T) {
	_, stderr, code := faultline(t, t.TempDir(), "rank", "-formula", "nonsense")
	if code != 2 || !strings.Contains(stderr, "unknown formula") || !strings.Contains(stderr, "ochiai") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming the valid formulas", code, stderr)
	}
}

// report ranks by formulas of the four counts alone, and says that rank
// takes the techniques it does not.
func TestReportTakesFormulasOnly(t *testing.T) {
	for _, name := range []string{"blockrank", "SAT-TAR"} {
		_, stderr, code := faultline(t, t.TempDir(), "report", "-formula", name)
		if code != 2 || !strings.Contains(stderr, "faultline rank takes") {
			t.Errorf("report -formula %s: exit %d, stderr %q; want exit 2 pointing to rank", name, code, stderr)
		}
	}
}

func TestNotAModule(t *testing.T) {
	_, stderr, code := faultline(t, t.TempDir(), "rank")
	if code != 1 || !strings.Contains(stderr, "no go.mod") {
		t.Errorf("exit %d, stderr %q; want a clear error outside a module", code, stderr)
	}
}

// A collection killed at any moment leaves a store from which the next run
// gives the same ranking as a collection into an empty store.
func TestKilledCollectionLeavesUsableStore(t *testing.T) {
	dir := copyModule(t, "../../examples/booking")
	want, stderr, code := faultlineWithStore(t, dir, t.TempDir(), "rank", "-json", "-angelic=false")
	if code != 0 {
		t.Fatalf("reference ranking: exit %d\n%s", code, stderr)
	}
	for _, delay := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond, 800 * time.Millisecond, 1500 * time.Millisecond} {
		store := t.TempDir()
		cmd := exec.Command(faultlineBin, "test", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "FAULTLINE_CACHE="+store)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Kill() // SIGKILL: no chance to clean up
		cmd.Wait()
		got, stderr, code := faultlineWithStore(t, dir, store, "rank", "-json", "-angelic=false")
		if code != 0 {
			t.Fatalf("after a kill at %s: exit %d\n%s", delay, code, stderr)
		}
		if got != want {
			t.Errorf("after a kill at %s the ranking differs:\n%s\nwant:\n%s", delay, got, want)
		}
	}
}

func faultlineWithStore(t *testing.T, dir, store string, args ...string) (string, string, int) {
	t.Helper()
	return runBinary(t, faultlineBin, dir, []string{"FAULTLINE_CACHE=" + store}, args...)
}

// runBinary runs a faultline binary in dir with extra environment variables.
func runBinary(t *testing.T, bin, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return stdout.String(), stderr.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

// faultline rank orders by the shipped model's default order, by the
// formula alone with -angelic=false, and puts verified angelic fixes first
// with -order combined; the second combined run is served from the
// analysis cache.
func TestRankOrders(t *testing.T) {
	dir := copyModule(t, "../../examples/booking")
	store := t.TempDir()
	type output struct {
		localize.Ranking
		Angelic *struct {
			Analyzed, Cached int
			Fixes            []struct{ File string }
		}
	}
	rank := func(args ...string) output {
		t.Helper()
		stdout, stderr, code := faultlineWithStore(t, dir, store, append([]string{"rank", "-json"}, args...)...)
		if code != 0 {
			t.Fatalf("rank %v: exit %d\n%s", args, code, stderr)
		}
		var out output
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("rank %v: %v\n%s", args, err, stdout)
		}
		return out
	}
	pure := rank("-angelic=false")
	if pure.Order != localize.OrderFormula || pure.Angelic != nil {
		t.Errorf("-angelic=false: order %q, angelic %v; want the formula alone", pure.Order, pure.Angelic)
	}
	for _, l := range pure.Lines {
		if l.Fixes != 0 {
			t.Errorf("-angelic=false: %s:%d carries fixes", l.File, l.Line)
		}
	}
	if def := rank(); def.Order != localize.ShippedModel().Default || def.Angelic == nil || def.Angelic.Analyzed != def.Failed {
		t.Errorf("default: order %q, angelic %+v; want the %s order with every failing test analysed", def.Order, def.Angelic, localize.ShippedModel().Default)
	}
	combined := rank("-order", "combined")
	if combined.Order != localize.OrderCombined || combined.Angelic == nil || combined.Angelic.Analyzed != combined.Failed {
		t.Fatalf("-order combined: order %q, angelic %+v; want every failing test analysed", combined.Order, combined.Angelic)
	}
	// booking's fault (interval.go:88) alone fixes every failing test.
	hosts := 0
	for i, l := range combined.Lines {
		if i > 0 && l.Fixes > combined.Lines[i-1].Fixes {
			t.Errorf("line %s:%d with %d fixes ranks below one with %d", l.File, l.Line, l.Fixes, combined.Lines[i-1].Fixes)
		}
		if l.File == "interval/interval.go" && l.Line == 88 {
			hosts = l.Fixes
			if l.Rank > 3 {
				t.Errorf("the fault ranks %d in the combined order, want within 3", l.Rank)
			}
		}
	}
	if hosts != combined.Failed {
		t.Errorf("interval.go:88 hosts fixes for %d of %d failing tests", hosts, combined.Failed)
	}
	again := rank("-order", "combined")
	if again.Angelic == nil || again.Angelic.Cached != again.Angelic.Analyzed {
		t.Errorf("second run: %+v; want every analysis from the cache", again.Angelic)
	}
	if len(again.Lines) != len(combined.Lines) || !reflect.DeepEqual(again.Lines[0], combined.Lines[0]) {
		t.Errorf("cached combined ranking differs from the first")
	}
	// The learned order ranks the same lines by the shipped model over
	// their evidence and says what placed each; after them come the
	// package-level declarations they read (booking's ErrClash and
	// interval's MinutesPerDay), which no spectrum holds, then the lines
	// no test runs next to the first lines (headers, closing braces).
	learned := rank("-order", "learned")
	spectrumLines, declarations, unexecuted := 0, map[string]bool{}, 0
	for _, l := range learned.Lines {
		switch {
		case l.Evidence[localize.EvidenceDeclarationRead] > 0 && l.EF+l.EP == 0:
			declarations[fmt.Sprintf("%s:%d", l.File, l.Line)] = true
		case l.Evidence[localize.EvidenceUnexecutedNextTo] > 0 && l.EF+l.EP == 0:
			unexecuted++
		default:
			spectrumLines++
		}
	}
	if (localize.ShippedModel().Unexecuted != nil) != (unexecuted > 0) {
		t.Errorf("-order learned: %d lines no test runs placed, with the shipped model's options %+v", unexecuted, localize.ShippedModel().Unexecuted)
	}
	if learned.Order != localize.OrderLearned || learned.Model != localize.ShippedModel().Name || spectrumLines != len(combined.Lines) {
		t.Fatalf("-order learned: order %q, model %q, %d lines and %d declarations; want learned by %q over %d lines",
			learned.Order, learned.Model, spectrumLines, len(declarations), localize.ShippedModel().Name, len(combined.Lines))
	}
	if want := map[string]bool{"booking/booking.go:15": true, "interval/interval.go:18": true}; localize.ShippedModel().Declarations != nil && !reflect.DeepEqual(declarations, want) {
		t.Errorf("-order learned: declarations placed %v, want %v", declarations, want)
	}
	if len(learned.Lines[0].Evidence) == 0 || len(learned.Lines[0].Because) == 0 {
		t.Errorf("-order learned: first line %+v has no evidence or reasons", learned.Lines[0])
	}
	for _, l := range learned.Lines {
		if l.File == "interval/interval.go" && l.Line == 88 && l.Fixes != combined.Failed {
			t.Errorf("-order learned: interval.go:88 says it hosts fixes for %d of %d failing tests", l.Fixes, combined.Failed)
		}
	}
	text, stderr, code := faultlineWithStore(t, dir, store, "rank", "-order", "learned", "-top", "3")
	if code != 0 || !strings.Contains(text, "learned order") || !strings.Contains(text, "BECAUSE") {
		t.Errorf("rank -order learned (exit %d) does not name the order or its reasons:\n%s%s", code, text, stderr)
	}
}

// faultline rank -formula blockrank collects edge profiles and explains
// every ranked line's score; the calibrated mode ranks the same
// collection; an unknown mode is refused.
func TestRankBlockRank(t *testing.T) {
	dir := copyModule(t, "../../examples/booking")
	store := t.TempDir()
	for _, mode := range []string{"full", "calibrated"} {
		stdout, stderr, code := faultlineWithStore(t, dir, store, "rank", "-json", "-angelic=false", "-formula", "blockrank", "-blockrank-mode", mode)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", mode, code, stderr)
		}
		var out localize.Ranking
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, stdout)
		}
		if out.Formula != "blockrank" || out.BlockRank == nil || out.BlockRank.Mode != mode || out.BlockRank.Functions == 0 || len(out.Lines) == 0 {
			t.Fatalf("%s: formula %q, summary %+v, %d lines", mode, out.Formula, out.BlockRank, len(out.Lines))
		}
		for _, l := range out.Lines {
			if l.BlockRank == nil || l.BlockRank.FirstLine > l.Line || l.Line > l.BlockRank.LastLine || l.BlockRank.Function == "" {
				t.Errorf("%s: %s:%d explained by %+v", mode, l.File, l.Line, l.BlockRank)
			}
		}
	}
	_, stderr, code := faultlineWithStore(t, dir, store, "rank", "-formula", "blockrank", "-blockrank-mode", "sideways")
	if code != 2 || !strings.Contains(stderr, "unknown BlockRank mode") {
		t.Errorf("exit %d, stderr %q; want the mode refused", code, stderr)
	}
}

// -test-memory bounds each test's processes: rank names each test it
// stopped once, on standard error; test lists them as not ok.
func TestTestMemoryFlag(t *testing.T) {
	if !testbuild.MemoryBoundEnforced {
		t.Skip("the memory bound is enforced on Linux only")
	}
	dir := txtartest.Extract(t, filepath.Join("..", "testbuild", "testdata", "memory.txtar"))
	store := t.TempDir()
	_, stderr, code := faultlineWithStore(t, dir, store, "rank", "-angelic=false", "-timeout", "20s", "-test-memory", "256")
	if code != 0 {
		t.Errorf("rank exited %d:\n%s", code, stderr)
	}
	for _, test := range []string{"m TestHoard ", "m TestChildHoards ", "m TestDetachedChildHoards ", "setup TestMain "} {
		if n := strings.Count(stderr, "example.com/memory/"+test+"was stopped holding"); n != 1 || !strings.Contains(stderr, "over the test memory bound of 256 MB") {
			t.Errorf("%snamed %d times:\n%s", test, n, stderr)
		}
	}
	stdout, stderr, code := faultlineWithStore(t, dir, store, "test", "-test-memory", "256")
	if code != 1 || !strings.Contains(stdout, "--- FAIL: TestHoard (") || !strings.Contains(stdout, "s) [memory]\n") ||
		!strings.Contains(stdout, "1 passed, 2 failed, 4 stopped by the memory bound") || strings.Contains(stderr, "was stopped") {
		t.Errorf("test exited %d:\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := faultlineWithStore(t, dir, store, "rank", "-test-memory", "-1"); code == 0 || !strings.Contains(stderr, "-test-memory: -1 MB is negative") {
		t.Errorf("a negative bound: exit %d:\n%s", code, stderr)
	}
}
