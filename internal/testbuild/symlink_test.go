package testbuild

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// A module opened through a symbolic link is the module it points at, and
// lists its packages whichever of the two paths the environment's PWD
// names (a shell inside the link sets it to the link, a language server
// started elsewhere to neither).
func TestModuleThroughASymlink(t *testing.T) {
	dir := txtartest.Extract(t, filepath.Join("testdata", "verdicts.txtar"))
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, pwd := range []string{link, real, t.TempDir()} {
		m, err := Open(link, Config{CacheDir: t.TempDir(), Env: append(os.Environ(), "PWD="+pwd)})
		if err != nil {
			t.Fatal(err)
		}
		if m.Root != real {
			t.Errorf("PWD=%s: root %s, want %s", pwd, m.Root, real)
		}
		l, err := m.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, p := range l.All {
			paths = append(paths, p.ImportPath)
		}
		slices.Sort(paths)
		if want := []string{"example.com/verdicts/broken", "example.com/verdicts/v"}; !slices.Equal(paths, want) {
			t.Errorf("PWD=%s: packages %v, want %v", pwd, paths, want)
		}
	}
}
