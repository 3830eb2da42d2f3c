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
	dir := txtartest.Extract(t, filepath.Join("..", "analysis", "testdata", "killed.txtar"))
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir(), Env: append(os.Environ(), "FAULTLINE_TEST_KILL=1")})
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
	defer r.close()
	o, err := r.run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "killed from outside") {
		t.Errorf("a run killed from outside: %+v, %v", o, err)
	}
}
