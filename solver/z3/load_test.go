//go:build cgo

package z3

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The prototypes the binding declares itself must be the ones Z3 declares.
// This needs Z3's development headers (libz3-dev), which faultline itself
// does not.
func TestDeclarationsMatchZ3Header(t *testing.T) {
	cc := goEnv(t, "CC")
	out, err := exec.Command(cc, "-fsyntax-only", "testdata/declcheck.c").CombinedOutput()
	if err != nil && strings.Contains(string(out), "z3.h") && !strings.Contains(string(out), "static assert") {
		t.Skipf("Z3's headers are not installed (libz3-dev), nothing to compare with:\n%s", out)
	}
	if err != nil {
		t.Fatalf("%s -fsyntax-only testdata/declcheck.c: %v\n%s", cc, err, out)
	}
}

// The enumeration values z3api.h declares are the library's: each typed
// view accepts exactly the terms of its sort kind.
func TestSortKindsMatchLibrary(t *testing.T) {
	ctx := newTestContext(t)
	views := map[string]func(Expr) error{
		"Bool":  func(e Expr) error { return e.AsBool().Err() },
		"Int":   func(e Expr) error { return e.AsInt().Err() },
		"Real":  func(e Expr) error { return e.AsReal().Err() },
		"BV":    func(e Expr) error { return e.AsBV().Err() },
		"Float": func(e Expr) error { return e.AsFloat().Err() },
		"Array": func(e Expr) error { return e.AsArray().Err() },
		"Seq":   func(e Expr) error { return e.AsSeq().Err() },
	}
	terms := map[string]Expr{
		"Bool":  ctx.BoolConst("b").Expr,
		"Int":   ctx.IntConst("i").Expr,
		"Real":  ctx.RealConst("r").Expr,
		"BV":    ctx.BVConst("x", 8).Expr,
		"Float": ctx.FloatConst("f", ctx.Float64Sort()).Expr,
		"Array": ctx.ArrayConst("a", ctx.IntSort(), ctx.BoolSort()).Expr,
		"Seq":   ctx.SeqConst("s", ctx.ByteSeqSort()).Expr,
	}
	for kind, term := range terms {
		for view, as := range views {
			if err := as(term); (err == nil) != (view == kind) {
				t.Errorf("As%s of a %s term: error %v", view, kind, err)
			}
		}
	}
	if bits := ctx.BVSort(13).BVBits(); bits != 13 {
		t.Errorf("BVSort(13).BVBits() = %d", bits)
	}
}

// wantEnv, when set, makes TestUnusableLibrary check, in a process of its
// own with LibraryEnv set, that Available fails with a message containing
// the variable's value.
const wantEnv = "FAULTLINE_Z3_TEST_WANT"

// Without a usable library the package says so plainly, and no call
// crashes: each case runs in a fresh process, as loading happens once.
func TestUnusableLibrary(t *testing.T) {
	if want := os.Getenv(wantEnv); want != "" {
		checkUnavailable(t, want)
		return
	}
	dir := t.TempDir()
	cases := []struct {
		name, lib, want string
	}{
		{"missing", filepath.Join(dir, "libz3.so.4"), "the Z3 library named by FAULTLINE_LIBZ3 cannot be loaded (" + filepath.Join(dir, "libz3.so.4")},
		{"not Z3", fakeLibrary(t, dir, "notz3", "int faultline_test_symbol;"), "is not the Z3 library (it has no Z3_get_version)"},
		{"too old", fakeLibrary(t, dir, "old", fakeVersion(4, 8, 7)), "is version 4.8.7; faultline needs 4.8.12 or newer"},
		{"incomplete", fakeLibrary(t, dir, "incomplete", fakeVersion(4, 8, 12)), "(version 4.8.12) lacks Z3_get_estimated_alloc_size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestUnusableLibrary$", "-test.v")
			cmd.Env = append(os.Environ(), LibraryEnv+"="+c.lib, wantEnv+"="+c.want)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestUnusableLibrary") {
				t.Fatalf("with %s=%s: %v\n%s", LibraryEnv, c.lib, err, out)
			}
		})
	}
}

func checkUnavailable(t *testing.T, want string) {
	err := Available()
	if err == nil {
		t.Fatalf("Available() = nil with %s=%s", LibraryEnv, os.Getenv(LibraryEnv))
	}
	msg := err.Error()
	if !strings.Contains(msg, want) || !strings.Contains(msg, `"sudo apt-get install libz3-4"`) || strings.Contains(msg, "\n") {
		t.Errorf("Available() = %q, want one line containing %q and how to install Z3", msg, want)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Available() = %v, not ErrUnavailable", err)
	}
	if again := Available(); again != err {
		t.Errorf("second Available() = %v, want the first answer", again)
	}
	ctx, cerr := NewContext(Config{})
	if ctx != nil || cerr != err {
		t.Errorf("NewContext() = %v, %v; want nil and Available's error", ctx, cerr)
	}
	if v := Version(); v != "" {
		t.Errorf("Version() = %q without a library", v)
	}
	if n := EstimatedAllocBytes(); n != 0 {
		t.Errorf("EstimatedAllocBytes() = %d without a library", n)
	}
}

// fakeLibrary compiles C source into a shared library in dir.
func fakeLibrary(t *testing.T, dir, name, src string) string {
	t.Helper()
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "lib"+name+".so")
	if out, err := exec.Command(goEnv(t, "CC"), "-shared", "-fPIC", "-o", lib, c).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", lib, err, out)
	}
	return lib
}

// fakeVersion is a library with only Z3_get_version.
func fakeVersion(major, minor, build int) string {
	return fmt.Sprintf("void Z3_get_version(unsigned *major, unsigned *minor, unsigned *build, unsigned *rev) {\n"+
		"\t*major = %d; *minor = %d; *build = %d; *rev = 0;\n}\n", major, minor, build)
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	v := strings.Fields(string(out))
	if len(v) == 0 {
		t.Fatalf("go env %s is empty", key)
	}
	return v[0]
}
