// Command regressions is faultline's benchmark of real regressions and its
// measure of faultline explain on them. It mines, from the real faults of
// bench/realfaults, each fault's bug-introducing commit the SZZ way: the
// lines the fix deletes or changes are blamed (git blame -w) at the fix's
// parent, and a blamed commit is kept as a regression when the fix's
// failing test, with the fix's test files put in, passes at the commit's
// parent and fails at the commit. The ground truth is the introducing
// commit's hunks that hold the blamed lines.
//
// Subcommands:
//
//	mine     find the regressions (resumable; verdicts kept in -work)
//	measure  run faultline explain (AFTER, then plain ddmin) on each
//	         regression in a checkout of its introducing commit, with the
//	         commit's parent as the base (resumable)
//	report   score the measured explanations against the truth: the
//	         figures for bench/README.md and the table of
//	         bench/regressions.md
//	merge    add the regressions and counts mined in another work
//	         directory to the regressions file
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "regressions:", err)
		os.Exit(1)
	}
}

// Default files, relative to the module root.
const (
	defaultFaults      = "bench/realfaults/faults.json"
	defaultRegressions = "bench/regressions/regressions.json"
	defaultMeasured    = "bench/regressions/measured.json"
)

func defaultWork() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "faultline-regressions")
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: regressions mine|measure|report|merge [flags]")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	switch args[0] {
	case "mine":
		return runMine(ctx, args[1:])
	case "measure":
		return runMeasure(ctx, args[1:])
	case "report":
		return runReport(args[1:])
	case "merge":
		return runMerge(args[1:])
	}
	return fmt.Errorf("unknown subcommand %q: want mine, measure, report or merge", args[0])
}
