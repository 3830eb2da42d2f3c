package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/faultline-go/faultline/bench/internal/realfault"
	"github.com/faultline-go/faultline/internal/localize"
)

// runTimes summarizes how long one eval directory's ranks took, so that
// the rank-time figures of bench/README.md come from a command rather than
// from a script beside it.
func runTimes(args []string) error {
	flags, benchPath, work := rankingsFlagSet("times", "eval's directory")
	faults := flags.String("faults", "", "comma-separated fault ids (default: every fault eval ran)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	b, err := realfault.LoadBenchmark(*benchPath)
	if err != nil {
		return err
	}
	want := commaList(*faults)
	return evalTimes(os.Stdout, b, *work, want)
}

// evalTimes writes, over the faults of b that eval ran in work (those in
// want, when it names any), each rank's wall time (median, 90th percentile,
// worst), the mutation analysis's own time, how many analyses left
// mutants unrun and how many mutants ran of those generated, and the load
// at each rank's start.
func evalTimes(w io.Writer, b *realfault.Benchmark, work string, want []string) error {
	var secs, loads, mutSecs, runShare []float64
	mutated, unrun, fixes, failed := 0, 0, 0, 0
	for i := range b.Faults {
		f := &b.Faults[i]
		if len(want) > 0 && !slices.Contains(want, f.ID) {
			continue
		}
		meta, err := readRunMeta(filepath.Join(work, "eval", f.ID))
		if errors.Is(err, fs.ErrNotExist) {
			continue // not run
		}
		if err != nil {
			return err
		}
		secs, loads = append(secs, meta.Seconds["evidence"]), append(loads, meta.Load[0])
		if meta.Errors["evidence"] != "" {
			failed++
		}
		m, err := readMutation(work, f.ID)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", f.ID, err)
		}
		if m != nil && m.Generated > 0 {
			mutated++
			mutSecs = append(mutSecs, m.Seconds)
			runShare = append(runShare, float64(m.Run)/float64(m.Generated))
			if m.Run < m.Generated {
				unrun++
			}
			fixes += len(m.Fixes)
		}
	}
	if len(secs) == 0 {
		return errors.New("times: no fault was run")
	}
	fmt.Fprintf(w, "%d faults run (%d of them with no output): rank median %.1f s, 90th percentile %.1f s, worst %.1f s; load (1 min) at the start median %.1f\n",
		len(secs), failed, median(secs), percentile(secs, 90), slices.Max(secs), median(loads))
	if mutated > 0 {
		fmt.Fprintf(w, "mutation analyses: %d, median %.1f s, worst %.1f s; %d left mutants unrun; mutants run of those generated, median %.0f %%; %d verified operator fixes\n",
			mutated, median(mutSecs), slices.Max(mutSecs), unrun, 100*median(runShare), fixes)
	}
	return nil
}

// readMutation reads the mutation object of a fault's ranking (nil when
// the mutation analysis did not run).
func readMutation(work, id string) (*localize.Mutation, error) {
	data, err := os.ReadFile(filepath.Join(work, "eval", id, "evidence.json"))
	if err != nil {
		return nil, err
	}
	var r struct {
		Mutation *localize.Mutation `json:"mutation"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return r.Mutation, nil
}

// percentile is the nearest-rank p-th percentile of xs.
func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))]
}
