package cmd

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A faultline built without cgo ranks by the formula and says once, in one
// line, that the angelic analysis needs Z3 and how to get it.
func TestWithoutCgo(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "faultline-nocgo")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/faultline")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	checkWithoutZ3(t, bin, nil, "built without cgo (CGO_ENABLED=0)")
}

// So does a faultline built with cgo on a machine without libz3, which
// FAULTLINE_LIBZ3 naming a missing file stands for: the binary starts
// without the library and loads it only for the analysis.
func TestWithoutLibz3(t *testing.T) {
	if runtime.GOOS == "linux" {
		f, err := elf.Open(faultlineBin)
		if err != nil {
			t.Fatal(err)
		}
		libs, err := f.ImportedLibraries()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, lib := range libs {
			if strings.Contains(lib, "libz3") {
				t.Errorf("faultline is linked with %s; it should load libz3 at run time", lib)
			}
		}
	}
	missing := filepath.Join(t.TempDir(), "libz3.so.4")
	checkWithoutZ3(t, faultlineBin, []string{"FAULTLINE_LIBZ3=" + missing}, missing+": cannot open shared object file")
}

func checkWithoutZ3(t *testing.T, bin string, env []string, why string) {
	dir := copyModule(t, "../../examples/money")
	env = append(env, "FAULTLINE_CACHE="+t.TempDir())
	oneLine := func(cmd, stderr, want string) {
		t.Helper()
		stderr = withoutProgress(stderr)
		for _, w := range []string{want, "the angelic analysis needs Z3", why, `"sudo apt-get install libz3-4"`} {
			if !strings.Contains(stderr, w) {
				t.Errorf("faultline %s: standard error does not say %q:\n%s", cmd, w, stderr)
			}
		}
		if n := strings.Count(stderr, "\n"); n != 1 {
			t.Errorf("faultline %s: %d lines on standard error, want one:\n%s", cmd, n, stderr)
		}
	}

	formula, stderr, code := runBinary(t, bin, dir, env, "rank", "-angelic=false")
	if code != 0 || withoutProgress(stderr) != "" {
		t.Fatalf("rank -angelic=false: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(formula, "most suspicious lines by ochiai:\n") || !strings.Contains(formula, "money.go:152") {
		t.Errorf("rank -angelic=false does not rank by ochiai or misses the faulty line money.go:152:\n%s", formula)
	}
	stdout, stderr, code := runBinary(t, bin, dir, env, "rank")
	if code != 0 {
		t.Fatalf("rank: exit %d\n%s", code, stderr)
	}
	if stdout != formula {
		t.Errorf("rank without Z3 differs from rank -angelic=false:\n%s\nwant:\n%s", stdout, formula)
	}
	oneLine("rank", stderr, "faultline: ranking by ochiai alone: ")

	_, stderr, code = runBinary(t, bin, dir, env, "fix")
	if code != 1 {
		t.Errorf("fix: exit %d, want 1", code)
	}
	oneLine("fix", stderr, "faultline fix: ")

	// Standard input at its end: the server starts, says why it serves
	// formula rankings only, and stops cleanly.
	cmd := exec.Command(bin, "serve")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("serve: %v", err)
	}
	oneLine("serve", string(out), "faultline serve: serving formula rankings only: ")
}
