// Package noisytest writes modules for tests whose tests print outputs of
// awkward sizes, with or without a final newline, and reads go test's own
// verdicts for them: the oracle the verdicts faultline records must match.
package noisytest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"
)

// ModulePath is the path of the modules WriteModule writes.
const ModulePath = "example.com/noisy"

// Printer is one test that prints Size bytes ('x's, the last one a newline
// when Newline is set) and then ends with Verdict: "pass", "fail" or
// "skip".
type Printer struct {
	Name    string // the top-level test's name, Test...
	Sub     string // when set, a subtest of this name prints and ends with Verdict
	Size    int
	Newline bool
	Stderr  bool // print to standard error rather than standard output
	Verdict string
}

// Leaf is the name of the leaf test the printer is.
func (p Printer) Leaf() string {
	if p.Sub != "" {
		return p.Name + "/" + p.Sub
	}
	return p.Name
}

// Package is the tests of one package, in the order they run.
type Package struct {
	Dir   string // slash-separated, relative to the module's root
	Tests []Printer
}

// Sizes are the output sizes worth testing: one byte, either side of and
// at the 4 KB lines test2json reads in, and larger multiples of 4 KB.
var Sizes = []int{1, 4095, 4096, 4097, 64 << 10, 1 << 20}

// Rotations returns one package per output size and newline choice, each
// holding a test for every size and newline choice, rotated so that each
// combination runs first in one package and last in another; verdicts vary
// along the way.
func Rotations() []Package {
	type output struct {
		size    int
		newline bool
	}
	var outputs []output
	for _, size := range Sizes {
		outputs = append(outputs, output{size, false}, output{size, true})
	}
	verdicts := []string{"pass", "fail", "pass", "skip", "pass"}
	var pkgs []Package
	for i := range outputs {
		pkg := Package{Dir: fmt.Sprintf("p%02d", i)}
		for j := range outputs {
			o := outputs[(i+j)%len(outputs)]
			pkg.Tests = append(pkg.Tests, Printer{
				Name:    fmt.Sprintf("Test%02d_%02d", i, j),
				Size:    o.size,
				Newline: o.newline,
				Stderr:  j%3 == 2,
				Verdict: verdicts[(i+j)%len(verdicts)],
			})
		}
		pkgs = append(pkgs, pkg)
	}
	return pkgs
}

// WriteModule writes a module of the packages into dir. Each package has
// a function its tests call, so that it has code to instrument.
func WriteModule(t testing.TB, dir string, pkgs []Package) {
	t.Helper()
	files := fstest.MapFS{"go.mod": {Data: []byte("module " + ModulePath + "\n\ngo 1.22\n")}}
	for _, pkg := range pkgs {
		name := pkg.Dir[strings.LastIndex(pkg.Dir, "/")+1:]
		files[pkg.Dir+"/"+name+".go"] = &fstest.MapFile{Data: fmt.Appendf(nil, `package %s

// Repeat returns n bytes: x's, the last a newline when newline is set.
func Repeat(n int, newline bool) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'x'
	}
	if newline && n > 0 {
		b[n-1] = '\n'
	}
	return b
}
`, name)}
		var src strings.Builder
		fmt.Fprintf(&src, "package %s\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nvar _ = os.Stdout\n", name)
		for _, p := range pkg.Tests {
			stream := "os.Stdout"
			if p.Stderr {
				stream = "os.Stderr"
			}
			end := ""
			switch p.Verdict {
			case "fail":
				end = "\n\tt.Fail()"
			case "skip":
				end = "\n\tt.SkipNow()"
			}
			body := fmt.Sprintf("%s.Write(Repeat(%d, %v))%s", stream, p.Size, p.Newline, end)
			if p.Sub != "" {
				body = fmt.Sprintf("t.Run(%q, func(t *testing.T) {\n\t\t%s\n\t})", p.Sub, strings.ReplaceAll(body, "\n\t", "\n\t\t"))
			}
			fmt.Fprintf(&src, "\nfunc %s(t *testing.T) {\n\t%s\n}\n", p.Name, body)
		}
		files[pkg.Dir+"/"+name+"_test.go"] = &fstest.MapFile{Data: []byte(src.String())}
	}
	if err := os.CopyFS(dir, files); err != nil {
		t.Fatal(err)
	}
}

// GoTestVerdicts runs go test -v on every package of the module in dir and
// returns each test's verdict ("pass", "fail", "skip") by name. The
// verbose text is read rather than go test -json, whose converter is the
// one that loses verdicts after long unterminated output.
func GoTestVerdicts(t testing.TB, dir string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "test", "-v", "-count=1", "./...")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		t.Fatalf("go test: %v", err)
	}
	// A test ends with "--- PASS: Name (0.00s)", and what it printed
	// without a final newline runs into that line.
	verdicts := map[string]string{}
	for _, report := range strings.Split(string(out), "--- ")[1:] {
		verdict, rest, _ := strings.Cut(report, ": ")
		name, _, timed := strings.Cut(rest, " (")
		if (verdict == "PASS" || verdict == "FAIL" || verdict == "SKIP") && timed {
			verdicts[name] = strings.ToLower(verdict)
		}
	}
	if len(verdicts) == 0 {
		t.Fatalf("go test reported no test:\n%.2000s", out)
	}
	return verdicts
}

// Parent reports whether a test of the verdicts has subtests: it is not a
// leaf test.
func Parent(verdicts map[string]string, name string) bool {
	for other := range verdicts {
		if strings.HasPrefix(other, name+"/") {
			return true
		}
	}
	return false
}
