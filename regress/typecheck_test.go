package regress

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// TestTypeCheckRevert checks the in-process check of reverts against
// the compiler's verdicts: errors in the package, in its in-package tests
// and in its external tests are found, a revert that compiles has none,
// a revert of a package the test depends on is checked with the packages
// between it and the test, files a revert brings back count when the
// build would compile them, and a revert of a package the test does not
// depend on, or one bringing back a test file, is left to a build.
func TestTypeCheckRevert(t *testing.T) {
	t.Parallel()
	dir, tc := openTypeChecker(t, "typecheck.txtar", "example.com/tc")
	src, dep := filepath.Join(dir, "tc.go"), filepath.Join(dir, "dep", "dep.go")
	for _, c := range []struct {
		name    string
		files   map[string]replacement
		decided bool
		errs    []string // what the errors hold, in order; none: it compiles
	}{
		{"unchanged", nil, true, nil},
		{"compiles", map[string]replacement{src: {"package tc\n\nfunc Double(x int) int { return x + x }\n\nfunc Half(x int) int { return x >> 1 }\n", true}}, true, nil},
		{"unused local", map[string]replacement{src: {"package tc\n\nfunc Double(x int) int { y := 1; return 2 * x }\n\nfunc Half(x int) int { return x / 2 }\n", true}}, true,
			[]string{src + ":3:26: declared and not used: y"}},
		{"in-package test", map[string]replacement{src: {"package tc\n\nfunc Double(x int) int { return 2 * x }\n", true}}, true,
			[]string{"helper_test.go:5:9: undefined: Half"}},
		{"external test", map[string]replacement{src: {"package tc\n\nfunc Double(x, y int) int { return 2 * x }\n\nfunc Half(x int) int { return x / 2 }\n", true}}, true,
			[]string{"tc_test.go:10:16: not enough arguments in call to tc.Double"}},
		{"file removed", map[string]replacement{src: {"", false}}, true, []string{"undefined: Half"}},
		{"syntax", map[string]replacement{src: {"package tc\n\nfunc Double(x int) int { return 2 * }\n", true}}, true, []string{src + ":3:"}},
		{"another package", map[string]replacement{filepath.Join(dir, "sub", "sub.go"): {"package sub\n", true}}, false, nil},
		{"dependency compiles", map[string]replacement{dep: {"package dep\n\nfunc Twice(x int) int { return x + x }\n", true}}, true, nil},
		{"dependency's error", map[string]replacement{dep: {"package dep\n\nfunc Twice(x int) int { return \"2\" }\n", true}}, true,
			[]string{dep + ":3:32: cannot use \"2\""}},
		{"dependency's importer", map[string]replacement{dep: {"package dep\n\nfunc Twice(x, y int) int { return 2 * x }\n", true}}, true,
			[]string{filepath.Join(dir, "mid", "mid.go") + ":6:"}},
		{"test's use of a dependency", map[string]replacement{filepath.Join(dir, "mid", "mid.go"): {"package mid\n\nfunc Quad(x, y int) int { return 4 * x }\n", true}}, true,
			[]string{"helper_test.go:5:29: not enough arguments in call to mid.Quad"}},
		{"file brought back", map[string]replacement{filepath.Join(dir, "old.go"): {"package tc\n\nfunc Old() int { return Gone }\n", true}}, true,
			[]string{"old.go:3:25: undefined: Gone"}},
		{"dependency's file brought back", map[string]replacement{filepath.Join(dir, "dep", "old.go"): {"package dep\n\nfunc Twice(x int) int { return x }\n", true}}, true,
			[]string{"Twice redeclared"}},
		{"file brought back, not built", map[string]replacement{filepath.Join(dir, "dep", "old.go"): {"//go:build ignore\n\npackage dep\n\nfunc Twice(x int) int { return x }\n", true}}, true, nil},
		{"test file brought back", map[string]replacement{filepath.Join(dir, "old_test.go"): {"package tc\n", true}}, false, nil},
	} {
		msg, decided := tc.check(c.files)
		if decided != c.decided {
			t.Errorf("%s: decided %v, want %v (%q)", c.name, decided, c.decided, msg)
			continue
		}
		if len(c.errs) == 0 && msg != "" {
			t.Errorf("%s: errors %q, want none", c.name, msg)
		}
		rest := msg
		for _, e := range c.errs {
			i := strings.Index(rest, e)
			if i < 0 {
				t.Errorf("%s: errors %q, want %q", c.name, msg, e)
				break
			}
			rest = rest[i+len(e):]
		}
	}
}

// TestTypeCheckImporterOfThePackage checks a revert of a dependency that
// both the package and a helper of its external tests import, the helper
// importing the package too: the helper is checked against the package
// as the revert leaves it, not against its export data, whose types are
// other types than the reverted dependency's.
func TestTypeCheckImporterOfThePackage(t *testing.T) {
	t.Parallel()
	dir, tc := openTypeChecker(t, "typecheck-importer.txtar", "example.com/p")
	opt := filepath.Join(dir, "opt", "opt.go")
	for _, c := range []struct {
		name string
		src  string
		err  string // what the errors hold; "": it compiles
	}{
		{"compiles", "package opt\n\ntype Option struct{ N, M int }\n\nfunc New() Option { return Option{} }\n", ""},
		{"breaks the helper", "package opt\n\ntype Option struct{ N int }\n", "undefined: opt.New"},
	} {
		msg, decided := tc.check(map[string]replacement{opt: {c.src, true}})
		if !decided {
			t.Errorf("%s: not decided (%q)", c.name, msg)
			continue
		}
		if c.err == "" && msg != "" || !strings.Contains(msg, c.err) {
			t.Errorf("%s: errors %q, want %q", c.name, msg, c.err)
		}
	}
}

// openTypeChecker extracts a txtar module from testdata and prepares the
// checks of one of its packages.
func openTypeChecker(t *testing.T, archive, pkgPath string) (string, *typeChecker) {
	t.Helper()
	dir := txtartest.Extract(t, filepath.Join("testdata", archive))
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	_, pkg, err := mod.ListPackage(context.Background(), pkgPath)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := newTypeChecker(context.Background(), mod, pkg)
	if err != nil || tc == nil {
		t.Fatalf("no type checker: %v", err)
	}
	return dir, tc
}
