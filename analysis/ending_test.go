//go:build cgo

package analysis

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/fulldisk"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// A panic in one test's analysis is recovered and reported once as a bug;
// it costs that test alone, whose result is not cached, and the other
// test of the package is analysed and cached as usual.
func TestPanicCostsOnlyItsTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "earlyerror.txtar")
	mod := open(t, dir)
	cache, err := OpenResultCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	targets := []testbuild.Target{{Package: "example.com/early", Test: "TestDigit"}, {Package: "example.com/early", Test: "TestLetter"}}
	opts := Options{}.WithPanicIn("TestDigit")
	reports := countBugs(t)
	for round, wantHits := range []int{0, 1} {
		out, err := AnalyzeCached(context.Background(), cache, mod, targets, opts)
		if err != nil {
			t.Fatal(err)
		}
		if out.Hits != wantHits {
			t.Errorf("round %d: %d results from the cache, want %d", round, out.Hits, wantHits)
		}
		digit, letter := out.Results[0], out.Results[1]
		if digit.Ended != EndedBug || len(digit.Notes) != 1 || !strings.Contains(digit.Notes[0], "not analysed: faultline failed on this test") {
			t.Errorf("round %d: the panicking test's result: %+v", round, digit)
		}
		if letter.Ended != EndedFinding || !result.HasVerified(&letter) {
			t.Errorf("round %d: the other test's result: %+v", round, letter)
		}
		if len(*reports) != round+1 || !strings.Contains((*reports)[round].Message, "a panic injected into the encoding of TestDigit") {
			t.Fatalf("round %d: bug reports %+v, want one per round", round, *reports)
		}
	}
}

// A test process killed from outside records nothing: its analysis ended
// for the machine's reason, not the code's, is not cached, and the next
// analysis, not killed, finds the fault.
func TestKilledFromOutsideIsNotCached(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "killed.txtar")
	cacheDir := t.TempDir()
	cache, err := OpenResultCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	targets := []testbuild.Target{{Package: "example.com/killed", Test: "TestDouble"}}
	analyse := func(env []string, wantHits int) TestResult {
		t.Helper()
		mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: cacheDir, Env: append(os.Environ(), env...)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := AnalyzeCached(context.Background(), cache, mod, targets, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Hits != wantHits {
			t.Errorf("%d results from the cache, want %d", out.Hits, wantHits)
		}
		return out.Results[0]
	}
	killed := analyse([]string{"FAULTLINE_TEST_KILL=1"}, 0)
	if killed.Ended != EndedEnvironment || len(killed.Notes) != 1 || !strings.Contains(killed.Notes[0], "killed from outside") {
		t.Errorf("the killed test's result: %+v", killed)
	}
	if r := analyse(nil, 0); r.Ended != EndedFinding || !result.HasVerified(&r) {
		t.Errorf("the test analysed again: %+v", r)
	}
	analyse(nil, 1)
}

// A run whose trace cannot be written (a full disk: /dev/full) fails with
// an error of the machine's, where it passed for a run that recorded
// nothing.
func TestTraceOnAFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	dir := extract(t, "killed.txtar")
	_, bin := instrumentedBinary(t, dir, "example.com/killed")
	bin.Timeout = time.Minute
	_, err := bin.RunEnv(context.Background(), "TestDouble", nil, []string{instrument.TraceEnv + "=/dev/full"})
	if err == nil || result.EndingOf(err) != EndedEnvironment || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		t.Fatalf("a run writing its trace to a full disk: %v", err)
	}
}

// An analysis on a full disk (a tmpfs filled to the last byte, as root) is
// reported and not cached; once space is freed the analysis finds the
// fault and that result is cached.
func TestFullDiskIsNotCached(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "killed.txtar")
	mod := open(t, dir)
	cache, err := OpenResultCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	targets := []testbuild.Target{{Package: "example.com/killed", Test: "TestDouble"}}
	// The instrumented binary is built, and kept, before the disk fills.
	if _, err := AnalyzeCached(context.Background(), nil, mod, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	full, filler := fulldisk.Mount(t, "2m")
	t.Setenv("TMPDIR", full) // the analysis's scratch directory, where runs write their traces
	out, err := AnalyzeCached(context.Background(), cache, mod, targets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := out.Results[0]; r.Ended != EndedEnvironment || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], syscall.ENOSPC.Error()) {
		t.Errorf("the analysis on a full disk: %+v", r)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for round, wantHits := range []int{0, 1} {
		out, err := AnalyzeCached(context.Background(), cache, mod, targets, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r := out.Results[0]; out.Hits != wantHits || r.Ended != EndedFinding || !result.HasVerified(&r) {
			t.Errorf("round %d once space is freed: %d from the cache, %+v", round, out.Hits, r)
		}
	}
}
