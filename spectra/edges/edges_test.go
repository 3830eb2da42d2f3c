package edges

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/txtar"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"
	"github.com/faultline-go/faultline/internal/txtartest"
	"github.com/faultline-go/faultline/spectra/instrument"
)

// passFunc is what CountersFile declares besides the counters.
const passFunc = "func faultlinePass_[T any](c *uint32, v T) T { *c++; return v }\n"

var update = flag.Bool("update", false, "rewrite the want section of testdata/flow.txtar")

// edgeCounts turns the counters of one file into traversals per edge.
func edgeCounts(res *Result, counters []uint64) []uint64 {
	out := make([]uint64, res.Edges)
	for slot, path := range res.Slots {
		for _, e := range path {
			out[e] += counters[slot]
		}
	}
	return out
}

func describe(f Func, b int) string {
	blk := f.Blocks[b]
	if blk.Line == 0 {
		return blk.Kind
	}
	return fmt.Sprintf("%s@%d", blk.Kind, blk.Line)
}

// TestFlow instruments p/p.go of testdata/flow.txtar, runs the driver and
// compares the traversals of every edge with the archive's want section.
func TestFlow(t *testing.T) {
	archive := filepath.Join("testdata", "flow.txtar")
	dir := txtartest.Extract(t, archive)
	file := filepath.Join(dir, "p", "p.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := File(file, src, Options{Names: NamesFor(src)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ambiguous != 0 {
		t.Errorf("%d ambiguous pairs", res.Ambiguous)
	}
	out, err := testbuild.Apply(src, res.Edits)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	counters := fmt.Sprintf("package p\n\nvar faultlineEdges_ = make([]uint32, %d)\n\nfunc FaultlineCounters() []uint32 { return faultlineEdges_ }\n\n%s", len(res.Slots), passFunc)
	if err := os.WriteFile(filepath.Join(dir, "p", "zz_counters.go"), []byte(counters), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s\ninstrumented:\n%s", err, stderr.String(), out)
	}
	var slots []uint64
	for _, f := range strings.Fields(string(stdout)) {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, n)
	}
	if len(slots) != len(res.Slots) {
		t.Fatalf("%d counters printed, %d expected", len(slots), len(res.Slots))
	}
	counts := edgeCounts(res, slots)
	var got strings.Builder
	next := 0
	for _, f := range res.Funcs {
		for _, e := range f.Edges {
			fmt.Fprintf(&got, "%s: %s -> %s: %d\n", f.Name, describe(f, e.From), describe(f, e.To), counts[next])
			next++
		}
	}
	checkConservation(t, res, counts)

	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ar.Files {
		if ar.Files[i].Name != "want" {
			continue
		}
		if *update {
			ar.Files[i].Data = []byte(got.String())
			if err := os.WriteFile(archive, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if want := string(ar.Files[i].Data); want != got.String() {
			t.Errorf("edge counts differ from the want section (-update rewrites it)\ngot:\n%s\nwant:\n%s", got.String(), want)
		}
	}
}

// checkConservation: every block but the virtual ones and those a panic
// leaves is left as often as it is entered.
func checkConservation(t *testing.T, res *Result, counts []uint64) {
	t.Helper()
	next := 0
	for _, f := range res.Funcs {
		in := make([]uint64, len(f.Blocks))
		out := make([]uint64, len(f.Blocks))
		for _, e := range f.Edges {
			in[e.To] += counts[next]
			out[e.From] += counts[next]
			next++
		}
		for b := range f.Blocks {
			if b == Entry || b == Exit || f.Name == "Crash" || f.Name == "Safe" {
				continue
			}
			if in[b] != out[b] {
				t.Errorf("%s: %s entered %d times, left %d times", f.Name, describe(f, b), in[b], out[b])
			}
		}
	}
}

// tricky is code whose instrumentation could break the build: labels on
// loops that break or continue, terminating statements at the end of
// functions with results, selects and switches with only a default, an
// empty function, a named bool type in conditions, generics, a literal at
// package level.
const tricky = `package p

import "os"

type B bool

var hook = func(b B) int {
	if b {
		return 1
	}
	return 0
}

func F(x int, b B) (r int) {
	switch {
	case x > 1 && bool(b):
	}
L:
	for b || x > 3 {
		select {
		default:
			continue L
		}
	}
	if x > 9 {
		goto L
	}
	for {
		if b {
			return 1
		}
		break
	}
	if b {
		return 2
	} else {
		panic("no")
	}
}

func G() {}

func H(c chan int) int {
	select {
	default:
	}
	switch x := 3; y := any(x).(type) {
	default:
		_ = y
	}
M:
	for range c {
		break M
	}
	switch {
	case true:
		return 1
	default:
		os.Exit(2)
		return 3
	}
}

func Max[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}

func Forever() int {
	for {
	}
}

func Empty(x int) (y int) {
	return
}

func Sel(c chan int) int {
	select {
	case <-c:
		return 1
	}
}

type Handler func()

type myErr struct{}

func (*myErr) Error() string { return "" }

func newErr() *myErr         { return nil }
func handler() func()        { return func() {} }
func two() (int, error)      { return 1, nil }
func I8(xs []int8, i int) int8 { return xs[i] }
func Named() Handler         { return handler() }
func Err() error             { return newErr() }
func Div(a, b int) int       { return a / b }
func F32(x int) float32      { return float32(x) / 2 }
func Shift(n uint) int64     { return 1 << n }
func Cmp(x []int) B          { return x[0] > 0 }
func MR(xs []int) (int, error) { return xs[0], nil }
func MC() (int, int)         { return len(two2()), I(two()) }
func MF() (int, error)       { return two() }
func Recv(c chan int) int    { return <-c }
func RO(c chan int) <-chan int { return (func() chan int { return c })() }
func two2() []int            { return nil }
func I(x int, _ error) int   { return x }
func Const() float64         { return 10 / 3 }
`

// TestTrickyCodeCompiles builds the instrumented tricky code, with plain
// and with atomic counters.
func TestTrickyCodeCompiles(t *testing.T) {
	for _, atomic := range []bool{false, true} {
		dir := t.TempDir()
		src := []byte(tricky)
		res, err := File("p.go", src, Options{Names: NamesFor(src), Atomic: atomic})
		if err != nil {
			t.Fatal(err)
		}
		out, err := testbuild.Apply(src, res.Edits)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			"go.mod":         "module example.com/p\n\ngo 1.22\n",
			"p.go":           string(out),
			"zz_counters.go": fmt.Sprintf("package p\n\nvar faultlineEdges_ = make([]uint32, %d)\n\n%s", len(res.Slots), passFunc),
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("go", "vet", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("atomic %v: %v\n%s\n%s", atomic, err, msg, out)
		}
		if res.Ambiguous != 0 {
			t.Errorf("%d ambiguous pairs", res.Ambiguous)
		}
	}
}

// TestLinesMatchCoverage: on real sources (this module's and those in the
// module cache), every line the coverage pass counts inside a function
// belongs to a block of the graphs, unless it cannot run, and no pair of
// probed blocks is ambiguous.
func TestLinesMatchCoverage(t *testing.T) {
	var files []string
	for _, root := range []string{"../..", filepath.Join(os.Getenv("HOME"), "go", "pkg", "mod", "github.com")} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				if d != nil && d.IsDir() && path != root {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && len(files) < 1000 {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) < 100 {
		t.Skipf("only %d source files found", len(files))
	}
	missing, ambiguous := 0, 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		cov, err := instrument.File(path, src, instrument.FileOptions{Coverage: true, Options: instrument.Options{Names: pertest.NamesFor(src)}})
		if err != nil || cov.Generated {
			continue
		}
		res, err := File(path, src, Options{Names: NamesFor(src)})
		if err != nil {
			t.Fatal(err)
		}
		ambiguous += res.Ambiguous
		owned := map[int]bool{}
		for _, f := range res.Funcs {
			for _, b := range f.Blocks {
				for _, l := range b.Lines {
					owned[l] = true
				}
			}
		}
		dead := deadLines(t, path, src)
		for _, b := range cov.Blocks {
			for _, l := range b.Lines {
				if !owned[l] && !dead[l] {
					missing++
					if missing <= 10 {
						t.Errorf("%s:%d: a counted line of no block", path, l)
					}
				}
			}
		}
	}
	if ambiguous > 0 {
		t.Errorf("%d ambiguous pairs in %d files", ambiguous, len(files))
	}
	t.Logf("%d files, %d counted lines of no block", len(files), missing)
}

// deadLines are the lines of statements go/cfg finds unreachable.
func deadLines(t *testing.T, path string, src []byte) map[int]bool {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	dead := map[int]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body == nil {
			return true
		}
		// go/cfg keeps no node for a branch statement, so an unreachable
		// goto after a terminating statement is found by its position.
		for _, n := range unreachableAfterTerminating(body) {
			for l := fset.Position(n.Pos()).Line; l <= fset.Position(n.End()).Line; l++ {
				dead[l] = true
			}
		}
		for _, b := range cfg.New(body, mayReturn).Blocks {
			if !b.Live {
				for _, n := range b.Nodes {
					for l := fset.Position(n.Pos()).Line; l <= fset.Position(n.End()).Line; l++ {
						dead[l] = true
					}
				}
			}
		}
		return true
	})
	return dead
}

// unreachableAfterTerminating returns the statements of body's lists that
// follow a terminating statement (the spec's return, goto, panic call, or a
// block or if-else ending in one) up to the next label: no path reaches them.
func unreachableAfterTerminating(body *ast.BlockStmt) []ast.Stmt {
	var out []ast.Stmt
	ast.Inspect(body, func(n ast.Node) bool {
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		}
		dead := false
		for _, s := range list {
			if _, ok := s.(*ast.LabeledStmt); ok {
				dead = false
			}
			if dead {
				out = append(out, s)
			} else if terminates(s) {
				dead = true
			}
		}
		return true
	})
	return out
}

// terminates reports a terminating statement, as far as needed here.
func terminates(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.GOTO
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := call.Fun.(*ast.Ident)
		return ok && id.Name == "panic"
	case *ast.BlockStmt:
		return len(s.List) > 0 && terminates(s.List[len(s.List)-1])
	case *ast.IfStmt:
		return s.Else != nil && terminates(s.Body) && terminates(s.Else)
	case *ast.LabeledStmt:
		return terminates(s.Stmt)
	}
	return false
}
