package regress

import (
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// openModule opens the module in dir with a cache of the test's own.
func openModule(t testing.TB, dir string) *testbuild.Module {
	t.Helper()
	m, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
