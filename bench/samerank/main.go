// Command samerank checks that a change leaves faultline's rankings
// byte-identical. It builds faultline at a base revision (checked out with
// git worktree add into a temporary directory) and from the working tree,
// runs `faultline rank -json` and `faultline rank -json -order formula` with
// each on every module under examples/ and on three seeded faults of real
// modules, and reports per module and order whether the two outputs are
// byte-identical, with a diff when they are not. It exits 1 on a mismatch.
//
//	go run ./bench/samerank -base db00784
//
// Each binary gets its own empty store per module (FAULTLINE_CACHE), so
// both analyse from scratch, and the -order formula run finds the first
// run's analyses in the store on both sides alike ("cached" agrees).
// normalise sets the wall-clock timings of the angelic analysis
// ("seconds", "solveSeconds" and "sliceSeconds") to 0 before comparing.
// -self runs the working tree's binary on both sides: it shows what else varies between two runs of one
// binary (bench/README.md, "Same rankings across a refactor"): the angelic
// analysis, whose search is bounded by time, and on one module a line's
// spectrum. -flags=-angelic=false leaves the analysis out.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "samerank:", err)
		os.Exit(1)
	}
}

// errMismatch says that some ranking differed; the report says which.
var errMismatch = errors.New("rankings differ")

// orders are the rank invocations compared on every module, in the order
// they run against one store.
var orders = [][]string{{"rank", "-json"}, {"rank", "-json", "-order", "formula"}}

func run(args []string) error {
	fs := flag.NewFlagSet("samerank", flag.ContinueOnError)
	base := fs.String("base", "", "revision to compare the working tree with (default: the merge-base of HEAD and main, or HEAD~1 when that is HEAD)")
	self := fs.Bool("self", false, "compare the working tree's binary with itself: shows what varies between two runs")
	withBench := fs.Bool("bench", true, "also rank the seeded faults of real modules (fetched through the module proxy)")
	timeout := fs.Duration("timeout", 5*time.Minute, "limit on one rank run")
	extra := fs.String("flags", "", "more flags for every rank run, space-separated (-flags=-angelic=false compares the spectra and formulas alone)")
	work := fs.String("work", "", "scratch directory, kept (default: a temporary directory, removed afterwards)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root, err := gitOutput(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	if *work == "" {
		dir, err := os.MkdirTemp("", "faultline-samerank-")
		if err != nil {
			return fmt.Errorf("scratch directory: %w", err)
		}
		defer os.RemoveAll(dir)
		*work = dir
	} else if *work, err = filepath.Abs(*work); err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	workBin := filepath.Join(*work, "faultline-work")
	if err := build(ctx, root, workBin); err != nil {
		return fmt.Errorf("building the working tree: %w", err)
	}
	baseBin, baseName := workBin, "working tree"
	if !*self {
		rev, err := resolveBase(ctx, root, *base)
		if err != nil {
			return err
		}
		baseBin, baseName = filepath.Join(*work, "faultline-base"), rev
		if err := buildAt(ctx, root, rev, filepath.Join(*work, "base-src"), baseBin); err != nil {
			return fmt.Errorf("building %s: %w", rev, err)
		}
	}
	head, _ := gitOutput(ctx, root, "rev-parse", "--short", "HEAD")
	status, _ := gitOutput(ctx, root, "status", "--porcelain", "--untracked-files=no")
	if status != "" {
		head += " with uncommitted changes"
	}
	fmt.Printf("base: %s; working tree: %s\n\n", baseName, head)
	subjects, err := prepareSubjects(ctx, root, filepath.Join(*work, "subjects"), *withBench)
	if err != nil {
		return err
	}
	fmt.Println("| module | command | result |")
	fmt.Println("|---|---|---|")
	var diffs []string
	for _, s := range subjects {
		caches := [2]string{filepath.Join(*work, "store", "base", s.name), filepath.Join(*work, "store", "work", s.name)}
		for _, order := range orders {
			args := append(slices.Clone(order), strings.Fields(*extra)...)
			var outs [2]rankOutput
			for i, bin := range []string{baseBin, workBin} {
				outs[i] = rankIn(ctx, bin, s.dir, caches[i], *timeout, args)
			}
			result, diff := compare(ctx, *work, outs[0], outs[1])
			fmt.Printf("| %s | %s | %s |\n", s.name, strings.Join(args, " "), result)
			if diff != "" {
				diffs = append(diffs, fmt.Sprintf("### %s: %s\n\n%s", s.name, strings.Join(args, " "), diff))
			}
		}
	}
	if len(diffs) > 0 {
		fmt.Printf("\n%s\n", strings.Join(diffs, "\n"))
		return errMismatch
	}
	return nil
}

// rankOutput is what one rank run left: its normalised standard output,
// its exit code, and the tail of its standard error.
type rankOutput struct {
	stdout []byte
	code   int
	stderr string
}

// rankIn runs bin with args in dir against the store cache.
func rankIn(ctx context.Context, bin, dir, cache string, timeout time.Duration, args []string) rankOutput {
	env := append(gocmd.GoEnv(), "FAULTLINE_CACHE="+cache)
	res, err := gocmd.Run(ctx, dir, env, timeout, bin, args...)
	out := rankOutput{stdout: normalise(res.Stdout), stderr: gocmd.Tail(res.Stderr, 2000)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		out.code = exit.ExitCode()
	case err != nil:
		out.code = -1
		out.stderr = err.Error() + "\n" + out.stderr
	}
	return out
}

// timing matches the wall-clock fields of rank -json: the angelic
// analysis's time per failing test and its shares in the solver and in
// the slice, which differ on every run.
var timing = regexp.MustCompile(`("(?:seconds|solveSeconds|sliceSeconds)": )-?[0-9][0-9.eE+-]*`)

// normalise sets the timings of rank -json to 0 and leaves every other
// byte as it was.
func normalise(out []byte) []byte {
	return timing.ReplaceAll(out, []byte("${1}0"))
}

// compare says whether two runs agree, and gives a diff when they do not.
func compare(ctx context.Context, work string, base, cur rankOutput) (result, diff string) {
	if base.code != cur.code {
		return fmt.Sprintf("**exit %d vs %d**", base.code, cur.code),
			fmt.Sprintf("base stderr:\n\n%s\n\nworking tree stderr:\n\n%s\n", indent(base.stderr), indent(cur.stderr))
	}
	if bytes.Equal(base.stdout, cur.stdout) {
		if base.code != 0 {
			return fmt.Sprintf("identical (both exit %d)", base.code), ""
		}
		return fmt.Sprintf("identical (%d bytes)", len(cur.stdout)), ""
	}
	return "**differs**", indent(unifiedDiff(ctx, work, base.stdout, cur.stdout))
}

// unifiedDiff runs diff -u on the two outputs.
func unifiedDiff(ctx context.Context, work string, a, b []byte) string {
	dir, err := os.MkdirTemp(work, "diff-")
	if err != nil {
		return fmt.Sprintf("(no diff: %v)", err)
	}
	defer os.RemoveAll(dir)
	pa, pb := filepath.Join(dir, "base.json"), filepath.Join(dir, "work.json")
	if err := errors.Join(os.WriteFile(pa, a, 0o644), os.WriteFile(pb, b, 0o644)); err != nil {
		return fmt.Sprintf("(no diff: %v)", err)
	}
	out, err := exec.CommandContext(ctx, "diff", "-u", "--label", "base", "--label", "working tree", pa, pb).Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return fmt.Sprintf("(no diff: diff -u: %v)", err)
	}
	return string(out)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
