package testbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// TestMain lets this test binary serve as the build helper, as faultline's
// own executable does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == BuildHelperArg {
		os.Exit(BuildHelper(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// With a build helper, each binary is handed over by go test as soon as it
// is linked; it runs, and a package that does not build gets the
// compiler's message, as without one.
func TestBuildTestsEachHandsOverBinaries(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, helper := range map[string]string{"helper": self, "no helper": ""} {
		t.Run(name, func(t *testing.T) {
			dir := txtartest.Extract(t, filepath.Join("testdata", "verdicts.txtar"))
			m, err := Open(dir, Config{CacheDir: t.TempDir(), Env: append(os.Environ(), BuildHelperEnv+"="+helper)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			l, o := listed(t, m)
			broken, v := l.Package("example.com/verdicts/broken"), l.Package("example.com/verdicts/v")
			var mu sync.Mutex
			var got []*Binary
			out := t.TempDir()
			failed, err := m.BuildTestsEach(ctx, o, []*Package{broken, v}, nil, out, func(b *Binary) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, b)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Package != v {
				t.Fatalf("handed over %v, want v's binary only", got)
			}
			if !strings.HasPrefix(got[0].Path, out) {
				t.Errorf("binary %s outside %s", got[0].Path, out)
			}
			// The helper links the binary out of go test's work directory
			// under its own process id.
			if base := filepath.Base(got[0].Path); (helper != "") != (strings.TrimLeft(base, "0123456789") == "-v.test") {
				t.Errorf("binary %s: helper %q not used as it should be", base, helper)
			}
			if msg := failed[broken.ImportPath]; !strings.Contains(msg, "broken.go:4") {
				t.Errorf("message %q does not name broken.go:4", msg)
			}
			if len(failed) != 1 {
				t.Errorf("failed %v, want broken only", failed)
			}
			res, err := m.RunTest(ctx, got[0], "TestPass", time.Minute, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != Pass {
				t.Errorf("TestPass of the handed-over binary: %s\n%s", res.Verdict, res.Output)
			}
		})
	}
}

// The helper refuses to run outside a build, rather than pass as a test
// binary that ran nothing.
func TestBuildHelperOutsideABuild(t *testing.T) {
	t.Setenv(builtSocketEnv, "")
	if code := BuildHelper([]string{"x.test"}); code == 0 {
		t.Error("the helper succeeded outside a build")
	}
}
