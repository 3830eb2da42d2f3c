package regress

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// A test process killed from outside gives no verdict, which would be
// cached as the commit's: the run fails with an error instead.
func TestKilledFromOutsideIsNoVerdict(t *testing.T) {
	t.Parallel()
	r := killedRunner(t, append(os.Environ(), "FAULTLINE_TEST_KILL=1"))
	o, err := r.run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "killed from outside") {
		t.Errorf("a run killed from outside: %+v, %v", o, err)
	}
}

// TestWorkingTreeBuiltOnce checks that running the test as in the working
// tree again (the rerun telling a flaky failure from a real one) reuses
// the binary instead of building it a second time.
func TestWorkingTreeBuiltOnce(t *testing.T) {
	t.Parallel()
	r := killedRunner(t, nil)
	for i := range 2 {
		o, err := r.runWorkingTree(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != fail {
			t.Errorf("run %d: %s, want fail", i+1, o.Verdict)
		}
	}
	if r.builds != 1 || r.runs != 2 {
		t.Errorf("%d builds and %d runs, want 1 build and 2 runs", r.builds, r.runs)
	}
}

// killedRunner is a runner of killed.txtar's failing TestDouble, in a
// module opened with env (nil: the process's).
func killedRunner(t *testing.T, env []string) *runner {
	t.Helper()
	dir := txtartest.Extract(t, filepath.Join("..", "analysis", "testdata", "killed.txtar"))
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	listing, err := mod.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(mod, listing.Package("example.com/killed"), "TestDouble", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	return r
}
