package instrument

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"
)

var parallelCall = regexp.MustCompile(`faultlinert_\.Parallel\((\w+) *\)`)

// options instruments src as a file of a package of its own, as a
// collection would: the names chosen against its identifiers.
func options(src []byte, coverage, atomic bool) FileOptions {
	return FileOptions{Coverage: coverage, Runtime: "m/internal/faultlinert",
		Options: Options{Names: pertest.NamesFor(src), Atomic: atomic}}
}

type tok struct {
	line int
	tok  token.Token
	lit  string
}

func tokens(t *testing.T, name string, src []byte) []tok {
	t.Helper()
	fset := token.NewFileSet()
	f := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, 0)
	var out []tok
	for {
		pos, tk, lit := s.Scan()
		if tk == token.EOF {
			return out
		}
		if tk == token.SEMICOLON {
			continue // inserted statements add semicolons
		}
		out = append(out, tok{f.Line(pos), tk, lit})
	}
}

// checkLinesKept asserts that every token of the original appears, in
// order, on the same line of the instrumented file, which must parse.
func checkLinesKept(t *testing.T, name string, src []byte, opts FileOptions) *Result {
	t.Helper()
	res, err := File(name, src, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out, err := testbuild.Apply(src, res.Edits)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), name, out, 0); err != nil {
		t.Fatalf("%s: instrumented source does not parse: %v\n%s", name, err, out)
	}
	// Per line, the original tokens must be a subsequence of the
	// instrumented ones (greedy matching decides that exactly).
	byLine := func(toks []tok) map[int][]tok {
		m := map[int][]tok{}
		for _, tk := range toks {
			m[tk.line] = append(m[tk.line], tk)
		}
		return m
	}
	// t.Parallel() is deliberately rewritten, and a blank *testing.T
	// named; undo that before comparing.
	srcLines, outLines := strings.Split(string(src), "\n"), strings.Split(string(out), "\n")
	for i := range outLines {
		if i < len(srcLines) && !strings.Contains(srcLines[i], "faultlinert_") {
			outLines[i] = parallelCall.ReplaceAllString(outLines[i], "$1.Parallel()")
		}
		if i < len(srcLines) && !strings.Contains(srcLines[i], "faultlineT_") {
			outLines[i] = strings.ReplaceAll(outLines[i], "faultlineT_ ", "_ ")
		}
	}
	undone := []byte(strings.Join(outLines, "\n"))
	orig, inst := byLine(tokens(t, name, src)), byLine(tokens(t, name, undone))
	for line, want := range orig {
		have, j := inst[line], 0
		for _, o := range want {
			for j < len(have) && (have[j].tok != o.tok || have[j].lit != o.lit) {
				j++
			}
			if j == len(have) {
				t.Fatalf("%s:%d: token %v %q is not on its line in the instrumented source", name, line, o.tok, o.lit)
			}
			j++
		}
	}
	if a, b := strings.Count(string(src), "\n"), strings.Count(string(out), "\n"); a != b {
		t.Fatalf("%s: %d lines became %d", name, a, b)
	}
	return res
}

func TestInstrumentationKeepsEveryLine(t *testing.T) {
	var files []string
	for _, root := range []string{"../..", "../../examples"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.Contains(path, "node_modules") {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) < 20 {
		t.Fatalf("found only %d Go files to instrument", len(files))
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		test := strings.HasSuffix(path, "_test.go")
		checkLinesKept(t, path, src, options(src, !test, false))
	}
}

// The golden archive holds source files and, for each, the lines every
// counter owns ("counter N: lines ...").
func TestBlockLines(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/blocks.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	for name, src := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		res := checkLinesKept(t, name, src, options(src, true, false))
		var got strings.Builder
		for i, b := range res.Blocks {
			got.WriteString("counter " + strconv.Itoa(i) + ":")
			for _, l := range b.Lines {
				got.WriteString(" " + strconv.Itoa(l))
			}
			got.WriteString("\n")
		}
		if want := string(files[strings.TrimSuffix(name, ".go")+".blocks"]); got.String() != want {
			t.Errorf("%s blocks:\n%s\nwant:\n%s", name, got.String(), want)
		}
	}
}

func TestHooks(t *testing.T) {
	src := []byte(`package p_test

import (
	"fmt"
	tst "testing"
)

func TestX(t *tst.T) {
	t.Parallel()
	t.Run("a", func(t *tst.T) { t.Parallel() })
	helper(t, 1)
}

func helper(t *tst.T, n int) {}

func ExampleX() { fmt.Println(1) }

func FuzzX(f *tst.F) { f.Fuzz(func(t *tst.T, b []byte) {}) }

func FuzzBlank(f *tst.F) { f.Fuzz(func(_ *tst.T, s string) {}) }

func TestUnnamed(t *tst.T) { t.Run("u", func(*tst.T) {}); t.Run("v", func(*tst.T, ...int) {}) }

func notATest(x int) {}
`)
	res := checkLinesKept(t, "x_test.go", src, options(src, false, false))
	out := string(apply(t, src, res))
	for _, want := range []string{
		`package p_test; import faultlinert_ "m/internal/faultlinert"`,
		"func TestX(t *tst.T) {defer faultlinert_.Enter(t)();",
		`t.Run("a", func(t *tst.T) {defer faultlinert_.Enter(t)(); faultlinert_.Parallel(t          ) })`,
		"func helper(t *tst.T, n int) {defer faultlinert_.Enter(t)();}",
		`func ExampleX() {defer faultlinert_.EnterExample("ExampleX")(); fmt.Println(1) }`,
		"f.Fuzz(func(t *tst.T, b []byte) {defer faultlinert_.Enter(t)();})",
		"f.Fuzz(func(faultlineT_ *tst.T, s string) {defer faultlinert_.Enter(faultlineT_)();})",
		`t.Run("u", func(faultlineT_ *tst.T) {defer faultlinert_.Enter(faultlineT_)();})`,
		`t.Run("v", func(faultlineT_ *tst.T, _ ...int) {defer faultlinert_.Enter(faultlineT_)();})`,
		"func notATest(x int) {}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("instrumented test file lacks %q:\n%s", want, out)
		}
	}
	if len(res.Blocks) != 0 {
		t.Errorf("test file got %d counters, want none", len(res.Blocks))
	}
}

func TestAtomicCounters(t *testing.T) {
	src := []byte("package p\n\nfunc F(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n")
	res := checkLinesKept(t, "p.go", src, options(src, true, true))
	out := string(apply(t, src, res))
	for _, want := range []string{
		`package p; import faultlineatomic_ "sync/atomic"`,
		"func F(x int) int {faultlineatomic_.AddUint32(&faultlineCounters_[0], 1);",
		"if x > 0 {faultlineatomic_.AddUint32(&faultlineCounters_[1], 1);",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("atomic instrumentation lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "]++") {
		t.Errorf("a plain increment is left:\n%s", out)
	}
}

func apply(t *testing.T, src []byte, res *Result) []byte {
	t.Helper()
	out, err := testbuild.Apply(src, res.Edits)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
