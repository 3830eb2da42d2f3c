// Command mutants checks that mutant schemata compile wherever the
// original code does, on real modules: for every package with tests of
// each module directory, it generates a mutant at every site of the
// package's non-test files, builds the one schemata test binary through
// the build layer, and runs its tests with no mutant active, which must
// pass as the plain build's do. It prints, per package, the mutants by
// operator, the generation and build times and the outcome.
//
//	go run ./bench/mutants [-run REGEXP] DIR...
//
// -run selects the tests of the unmutated runs (and of the plain one);
// the output of a test that fails is written to standard error.
//
// The directories must be writable copies (the module cache's are not).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/mutation"
	"github.com/faultline-go/faultline/internal/testbuild"
)

func main() {
	run := flag.String("run", "", "run only the tests matching the regular expression")
	skipPlain := flag.Bool("skip-plain", false, "do not run the plain tests first (when they are known to pass)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: mutants DIR...")
		os.Exit(2)
	}
	ctx := context.Background()
	fmt.Println("| module | package | mutants | by operator | generate | build | compiles | unmutated tests |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	failures := 0
	for _, dir := range flag.Args() {
		n, err := checkModule(ctx, dir, *run, !*skipPlain)
		failures += n
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
			failures++
		}
	}
	if failures > 0 {
		os.Exit(1)
	}
}

// checkModule checks every package with tests of one module and returns
// the number of packages whose schemata failed.
func checkModule(ctx context.Context, dir, run string, plainFirst bool) (int, error) {
	cache, err := os.MkdirTemp("", "faultline-mutbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(cache)
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: cache})
	if err != nil {
		return 0, err
	}
	listing, err := mod.List(ctx)
	if err != nil {
		return 0, err
	}
	failures := 0
	for _, p := range listing.All {
		if !p.HasTests() || p.Error != nil {
			continue
		}
		plain := exec.CommandContext(ctx, "go", "test", "-count=1", "-vet=off", "-run="+run, p.ImportPath)
		plain.Dir = mod.Root
		if plainFirst && plain.Run() != nil {
			continue // a package whose own tests fail plainly says nothing here
		}
		plainDir := p.Dir
		var lines []mutation.Loc
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(plainDir, f))
			if err != nil {
				return failures, err
			}
			rel, _ := filepath.Rel(mod.Root, filepath.Join(plainDir, f))
			for i := range strings.Count(string(data), "\n") {
				lines = append(lines, mutation.Loc{File: filepath.ToSlash(rel), Line: i + 1})
			}
		}
		start := time.Now()
		s, err := mutation.Generate(mod, lines, 1<<30)
		generate := time.Since(start)
		row := fmt.Sprintf("| %s | %s | ", filepath.Base(dir), p.ImportPath)
		if err != nil {
			fmt.Printf("%s - | - | %.1fs | - | **no**: %v | - |\n", row, generate.Seconds(), firstLine(err.Error()))
			failures++
			continue
		}
		if len(s.Mutants) == 0 {
			fmt.Printf("%s0 | - | %.1fs | - | - | - |\n", row, generate.Seconds())
			continue
		}
		ops := map[string]int{}
		for _, m := range s.Mutants {
			ops[m.Operator]++
		}
		var byOp []string
		for _, op := range []string{mutation.OpArithmetic, mutation.OpBoundary, mutation.OpNegation, mutation.OpLogical,
			mutation.OpConstant, mutation.OpAssignment, mutation.OpRemoval} {
			byOp = append(byOp, fmt.Sprintf("%s %d", op[:3], ops[op]))
		}
		start = time.Now()
		bin, err := s.Build(ctx, p.ImportPath)
		build := time.Since(start)
		if err != nil {
			fmt.Printf("%s%d | %s | %.1fs | %.1fs | **no**: %s | - |\n", row, len(s.Mutants), strings.Join(byOp, ", "),
				generate.Seconds(), build.Seconds(), firstLine(err.Error()))
			failures++
			continue
		}
		verdict := "pass"
		out, err := failingTests(ctx, mod, bin, run)
		if err != nil {
			verdict = "error: " + firstLine(err.Error())
			failures++
		} else if out != "" {
			verdict = "**fail**: " + out
			failures++
		}
		fmt.Printf("%s%d | %s | %.1fs | %.1fs | yes | %s |\n", row, len(s.Mutants), strings.Join(byOp, ", "),
			generate.Seconds(), build.Seconds(), verdict)
	}
	return failures, nil
}

// failingTests runs every test of a schemata binary with no mutant active
// and names those that did not pass ("" when all did).
func failingTests(ctx context.Context, mod *testbuild.Module, bin *testbuild.Binary, run string) (string, error) {
	p, err := mod.Start(ctx, testbuild.RunConfig{Binary: bin.Path, Package: bin.Package.ImportPath, Dir: bin.Package.Dir,
		Args: []string{"-test.count=1", "-test.timeout=0", "-test.paniconexit0", "-test.run=" + run}})
	if err != nil {
		return "", err
	}
	timer := time.AfterFunc(10*time.Minute, p.Kill)
	res, err := p.Wait()
	timer.Stop()
	if err != nil {
		return "", err
	}
	var failed []string
	for _, name := range res.Order {
		if v := res.Verdict(name); name != "" && v != testbuild.Pass && v != testbuild.Skip {
			failed = append(failed, name)
			fmt.Fprintf(os.Stderr, "%s %s (%s):\n%s\n", bin.Package.ImportPath, name, v, res.Output(name))
		}
	}
	return strings.Join(failed, ", "), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.ReplaceAll(s, "|", "\\|")
}
