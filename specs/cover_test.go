package specs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// A run killed from outside is no outcome of the input, which the search
// would count and the cache keep: it fails with an error instead.
func TestRunKilledFromOutside(t *testing.T) {
	dir := txtartest.Extract(t, filepath.Join("testdata", "killed.txtar"))
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir(), Env: append(os.Environ(), "FAULTLINE_TEST_KILL=1")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := coverBuildOf(t, mod, "example.com/killed", nil).run(context.Background(), "FuzzDouble/seed#0", nil)
	if err == nil || !strings.Contains(err.Error(), "killed from outside") {
		t.Errorf("a run killed from outside: %+v, %v", out, err)
	}
}

// coverBuildOf builds the cover build of the one fuzz target of package
// pkgPath, its hits over blocks.
func coverBuildOf(t *testing.T, mod *testbuild.Module, pkgPath string, blocks []BlockRef) *coverBuild {
	t.Helper()
	ctx := context.Background()
	listing, keys, err := mod.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pkg := listing.Package(pkgPath)
	targets, err := FuzzTargets(pkg.Dir, pkg.TestGoFiles)
	if err != nil || len(targets) != 1 {
		t.Fatalf("fuzz targets %+v, %v", targets, err)
	}
	cb, err := newCoverBuild(ctx, mod, listing, keys, pkg, &targets[0], blocks, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cb
}
