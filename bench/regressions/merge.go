package main

import (
	"flag"
	"fmt"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// runMerge adds the regressions and counts of regressions files mined in
// other work directories to one file: mining keeps its verdicts in its
// work directory and writes the file from them alone, so a later mining
// run in a fresh work directory (new faults, more histories) is merged in
// rather than written over it.
func runMerge(args []string) error {
	flags := flag.NewFlagSet("merge", flag.ContinueOnError)
	into := flags.String("into", defaultRegressions, "the regressions file to add to")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() == 0 {
		return fmt.Errorf("usage: regressions merge [-into FILE] MINED.json [MINED.json ...]")
	}
	dst, err := loadRegressions(*into)
	if err != nil {
		return err
	}
	for _, path := range flags.Args() {
		src, err := loadRegressions(path)
		if err != nil {
			return err
		}
		if err := mergeRegressions(dst, src); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return realfault.SaveJSON(*into, dst)
}

// mergeRegressions adds src's regressions and counts to dst. The counts
// are summed, so src must come from faults and fixes dst has not counted:
// a regression of src that dst already holds (same id and source fault
// or fix) means src was merged before, and is an error.
func mergeRegressions(dst, src *Benchmark) error {
	have := map[string]bool{}
	key := func(r Regression) string { return r.ID + " " + r.Fault + " " + r.Fix }
	for _, r := range dst.Regressions {
		have[key(r)] = true
	}
	for _, r := range src.Regressions {
		if have[key(r)] {
			return fmt.Errorf("regression %s (fix %s) is already there: merged before?", r.ID, r.Fix)
		}
	}
	dst.Regressions = append(dst.Regressions, src.Regressions...)
	dst.Faults += src.Faults
	dst.Candidates += src.Candidates
	dst.Dropped = addCounts(dst.Dropped, src.Dropped)
	dst.Named.Fixes += src.Named.Fixes
	dst.Named.Candidates += src.Named.Candidates
	dst.Named.Dropped = addCounts(dst.Named.Dropped, src.Named.Dropped)
	return nil
}

func addCounts(dst, src map[string]int) map[string]int {
	if dst == nil {
		dst = map[string]int{}
	}
	for k, n := range src {
		dst[k] += n
	}
	return dst
}
