package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// The runs of faultline on one fault. One run gives every order: with
// edge profiles and -evidence, each line carries its counts (the formulas
// are scored again from them), BlockRank's rank and the angelic findings,
// and the ranking is the combined order; the learned order is scored from
// the evidence by the model being evaluated.
var evalRuns = []struct {
	name  string
	flags []string
}{
	{"evidence", []string{"-edges", "-order", "combined", "-evidence"}},
}

// runMeta is what eval records of one fault besides faultline's reports.
type runMeta struct {
	Seconds map[string]float64 `json:"seconds"`          // wall time of each run
	Errors  map[string]string  `json:"errors,omitempty"` // a run that failed
	Load    [3]float64         `json:"load"`             // load average when the fault was done
}

// readRunMeta reads what eval recorded of the fault in dir; an error
// satisfying errors.Is(err, fs.ErrNotExist) says it is not evaluated yet.
func readRunMeta(dir string) (runMeta, error) {
	var meta runMeta
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return meta, err
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return meta, fmt.Errorf("%s: %w", dir, err)
	}
	return meta, nil
}

func runEval(ctx context.Context, args []string) error {
	fs, benchPath, work := rankingsFlagSet("eval", "directory of the materialized faults and faultline's reports (a run resumes)")
	mirrors := fs.String("mirrors", "", "directory of the projects' git histories (empty: the Go module proxy)")
	faultline := fs.String("faultline", "faultline", "the faultline binary")
	only := fs.String("faults", "", "comma-separated fault ids (default: every fault)")
	testTimeout := fs.String("timeout", "30s", "faultline's per-test timeout")
	deadline := fs.Duration("rank-deadline", 10*time.Minute, "hard limit on one faultline run")
	follow := fs.Duration("follow", 0, "keep evaluating faults the benchmark file gains, until none came for this long")
	more := fs.String("rank-flags", "", "more flags for each faultline rank, space-separated (say \"-mutants 200\", for the mutation columns)")
	redo := fs.Bool("redo-stale", false, "after the faults not yet ranked, rank again, newest fault first, those ranked by a faultline binary older than this one")
	// Several evals may share a work directory: each claims a fault before
	// it runs it.
	if err := fs.Parse(args); err != nil {
		return err
	}
	bin, err := filepath.Abs(*faultline)
	if err != nil {
		return err
	}
	var built time.Time
	if *redo {
		st, err := os.Stat(bin)
		if err != nil {
			return err
		}
		built = st.ModTime()
	}
	want := map[string]bool{}
	for _, id := range commaList(*only) {
		want[id] = true
	}
	idle := time.Now()
	for {
		b, err := realfault.LoadBenchmark(*benchPath)
		if err != nil {
			return err
		}
		did := 0
		faults := roundRobin(b.Faults)
		first := len(faults)
		if *redo {
			// The stale come second, newest first: they have rankings.
			stale := slices.Clone(faults)
			slices.SortStableFunc(stale, func(a, b *realfault.Fault) int { return strings.Compare(b.Date, a.Date) })
			faults = append(faults, stale...)
		}
		for k, f := range faults {
			if len(want) > 0 && !want[f.ID] {
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			dir := filepath.Join(*work, "eval", f.ID)
			// done: ranked, in the first pass at all, in the second by
			// this binary or a newer one.
			done := func() bool {
				st, err := os.Stat(filepath.Join(dir, "meta.json"))
				return err == nil && (k < first || !st.ModTime().Before(built))
			}
			if done() {
				continue
			}
			release, ok := claim(dir)
			if !ok {
				continue // another eval has it
			}
			if done() {
				release() // ranked meanwhile by another eval
				continue
			}
			did++
			p, _ := b.Project(f.Repo)
			err := evalFault(ctx, f, p.Env, dir, *mirrors, bin, *testTimeout, strings.Fields(*more), *deadline)
			release()
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", f.ID, err)
			}
		}
		if did > 0 {
			idle = time.Now()
		}
		if *follow == 0 || time.Since(idle) > *follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Minute):
		}
	}
}

// evalFault materializes a fault's faulty version and runs faultline on it.
// projectEnv are the variables the project's tests need (Project.Env);
// more are flags added to each run's.
func evalFault(ctx context.Context, f *realfault.Fault, projectEnv []string, dir, mirrors, bin, testTimeout string, more []string, deadline time.Duration) error {
	src := filepath.Join(dir, "src")
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		s, err := newSource(mirrors, f)
		if err != nil {
			return err
		}
		if err := materialize(ctx, s, f, src, false); err != nil {
			os.RemoveAll(src)
			return err
		}
	}
	store := filepath.Join(dir, "store")
	os.RemoveAll(store)
	defer os.RemoveAll(store)
	meta := runMeta{Seconds: map[string]float64{}, Errors: map[string]string{}}
	env := append([]string{"FAULTLINE_CACHE=" + store, "GOFLAGS=-mod=mod -buildvcs=false"}, projectEnv...)
	for _, r := range evalRuns {
		args := append([]string{"rank", "-json", "-timeout", testTimeout}, r.flags...)
		args = append(append(args, more...), patterns(f.Packages)...)
		res, err := gocmd.Run(ctx, src, append(gocmd.GoEnv(), env...), deadline, bin, args...)
		meta.Seconds[r.name] = res.Elapsed.Seconds()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && len(res.Stdout) == 0 {
			meta.Errors[r.name] = fmt.Sprintf("%v: %s", err, gocmd.Tail(res.Stderr, 1000))
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, r.name+".json"), res.Stdout, 0o644); err != nil {
			return err
		}
	}
	meta.Load = loadAverage()
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %s %v\n", f.ID, fmtSeconds(meta.Seconds), meta.Errors)
	return realfault.WriteFileAtomic(filepath.Join(dir, "meta.json"), data)
}

func fmtSeconds(s map[string]float64) string {
	var parts []string
	for _, r := range evalRuns {
		parts = append(parts, fmt.Sprintf("%s %.0fs", r.name, s[r.name]))
	}
	return strings.Join(parts, ", ")
}

// loadAverage reads the 1, 5 and 15 minute load averages (Linux).
func loadAverage() [3]float64 {
	var l [3]float64
	data, err := os.ReadFile("/proc/loadavg")
	if err == nil {
		fmt.Sscanf(string(data), "%g %g %g", &l[0], &l[1], &l[2])
	}
	return l
}

// roundRobin orders faults one per project in turn, so that a run cut
// short has covered as many projects as it could.
func roundRobin(faults []realfault.Fault) []*realfault.Fault {
	var projects []string
	byProject := map[string][]*realfault.Fault{}
	for i := range faults {
		f := &faults[i]
		if byProject[f.Repo] == nil {
			projects = append(projects, f.Repo)
		}
		byProject[f.Repo] = append(byProject[f.Repo], f)
	}
	var out []*realfault.Fault
	for k := 0; len(out) < len(faults); k++ {
		for _, p := range projects {
			if k < len(byProject[p]) {
				out = append(out, byProject[p][k])
			}
		}
	}
	return out
}

// claim takes a fault's directory for this process, so that several evals
// can share a work directory; an eval that was killed leaves its claim
// (dir/claimed, holding its process id) to be removed by hand.
func claim(dir string) (release func(), ok bool) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false
	}
	path := filepath.Join(dir, "claimed")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, false
	}
	fmt.Fprintln(f, os.Getpid())
	f.Close()
	return func() { os.Remove(path) }, true
}
