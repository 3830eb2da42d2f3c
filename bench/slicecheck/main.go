// Command slicecheck measures the dynamic backward slice of the failing
// checks on real faults of bench/realfaults whose faulty line ties with
// others under Ochiai: how often the slice holds a faulty line, how much
// of the tie group it keeps, and what computing it costs beside the
// analysis it is part of.
//
// It reads the rankings realfaults eval wrote (-eval, each fault's
// evidence.json and src/), picks faults one project at a time whose best
// faulty line shares its Ochiai score with other lines, copies each
// fault's source into -work (the eval directory is left as it is),
// records the failing run of up to -tests of the fault's failing tests
// as the analysis does (no spectra are collected: the tie groups are the
// eval run's) and computes each one's slice. The analysis's own time per
// test is the eval run's (its rank -json "seconds").
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/bench/internal/realfault"
	"github.com/faultline-go/faultline/internal/testbuild"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "slicecheck:", err)
		os.Exit(1)
	}
}

// rankLine is what slicecheck reads of a ranked line.
type rankLine struct {
	File string `json:"file"`
	Line int    `json:"line"`
	EF   int    `json:"ef"`
	EP   int    `json:"ep"`
	NF   int    `json:"nf"`
	NP   int    `json:"np"`
}

// rankOutput is what slicecheck reads of rank -json.
type rankOutput struct {
	Lines   []rankLine `json:"lines"`
	Angelic *struct {
		Tests []struct {
			Test         string  `json:"test"`
			Seconds      float64 `json:"seconds"`
			SliceSeconds float64 `json:"sliceSeconds"`
			Slice        []struct {
				File     string `json:"file"`
				Line     int    `json:"line"`
				Distance int    `json:"distance"`
			} `json:"slice"`
		} `json:"tests"`
	} `json:"angelic"`
}

type key struct {
	file string
	line int
}

func ochiai(l rankLine) float64 {
	d := math.Sqrt(float64((l.EF + l.NF) * (l.EF + l.EP)))
	if d == 0 {
		return 0
	}
	return float64(l.EF) / d
}

// tieGroup returns the lines sharing the best faulty line's Ochiai score,
// or nil when no faulty line is ranked.
func tieGroup(f *realfault.Fault, lines []rankLine) []key {
	best := -1.0
	for _, l := range lines {
		if f.Holds(l.File, l.Line) {
			best = max(best, ochiai(l))
		}
	}
	if best < 0 {
		return nil
	}
	var group []key
	for _, l := range lines {
		if math.Abs(ochiai(l)-best) < 1e-12 {
			group = append(group, key{l.File, l.Line})
		}
	}
	return group
}

func run(args []string) error {
	fs := flag.NewFlagSet("slicecheck", flag.ContinueOnError)
	bench := fs.String("bench", "bench/realfaults/faults.json", "the benchmark file")
	eval := fs.String("eval", "/tmp/rf/eval", "realfaults eval's directory of rankings (read only)")
	work := fs.String("work", filepath.Join(os.TempDir(), "slicecheck"), "directory for the copies of the faults' sources and the rankings")
	n := fs.Int("n", 25, "faults to measure")
	tests := fs.Int("tests", 3, "failing tests per fault whose slices are computed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := realfault.LoadBenchmark(*bench)
	if err != nil {
		return err
	}
	picked, groups, analysisSeconds, err := pick(b, *eval, *n)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var measured, inSlice, withSlice int
	var keptShare, sliceSec, analysisSec float64
	fmt.Println("fault\ttie\tslice\tslice∩tie\tfaulty in slice\tslice s/test\tanalysis s/test")
	for i, f := range picked {
		found, ss, err := record(ctx, f, projectEnv(b, f), *eval, *work, *tests)
		if err != nil {
			fmt.Printf("%s\terror: %v\n", f.ID, err)
			continue
		}
		as := analysisSeconds[i]
		measured++
		slice := map[key]bool{}
		for _, sl := range found {
			for _, l := range sl {
				slice[key{l.File, l.Line}] = true
			}
		}
		sliceSec += ss
		analysisSec += as
		kept, faulty := 0, false
		for _, k := range groups[i] {
			if slice[k] {
				kept++
				faulty = faulty || f.Holds(k.file, k.line)
			}
		}
		if len(slice) > 0 {
			withSlice++
			keptShare += float64(kept) / float64(len(groups[i]))
		}
		if faulty {
			inSlice++
		}
		fmt.Printf("%s\t%d\t%d\t%d\t%v\t%.3f\t%.1f\n", f.ID, len(groups[i]), len(slice), kept, faulty, ss, as)
	}
	if measured == 0 {
		return fmt.Errorf("no fault measured")
	}
	fmt.Printf("\n%d faults measured (%d with a slice): a faulty line of the tie group in the slice for %d; the slice keeps on average %.0f %% of the tie group (faults with a slice); a slice took %.3f s per test against the analysis's %.1f s (%.2f %%)\n",
		measured, withSlice, inSlice, 100*keptShare/float64(max(withSlice, 1)), sliceSec/float64(measured), analysisSec/float64(measured), 100*sliceSec/max(analysisSec, 1e-9))
	return nil
}

// pick returns up to n faults, one project at a time, whose best faulty
// line ties with other lines under Ochiai in the eval run's ranking, with
// their tie groups.
func pick(b *realfault.Benchmark, eval string, n int) ([]*realfault.Fault, [][]key, []float64, error) {
	byProject := map[string][]*realfault.Fault{}
	var projects []string
	for i := range b.Faults {
		f := &b.Faults[i]
		data, err := os.ReadFile(filepath.Join(eval, f.ID, "evidence.json"))
		if err != nil {
			continue
		}
		var out rankOutput
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", f.ID, err)
		}
		if g := tieGroup(f, out.Lines); len(g) > 1 {
			if byProject[f.Repo] == nil {
				projects = append(projects, f.Repo)
			}
			byProject[f.Repo] = append(byProject[f.Repo], f)
		}
	}
	slices.Sort(projects)
	var picked []*realfault.Fault
	for round := 0; len(picked) < n; round++ {
		added := false
		for _, p := range projects {
			if round < len(byProject[p]) && len(picked) < n {
				picked = append(picked, byProject[p][round])
				added = true
			}
		}
		if !added {
			break
		}
	}
	groups := make([][]key, len(picked))
	seconds := make([]float64, len(picked))
	for i, f := range picked {
		data, err := os.ReadFile(filepath.Join(eval, f.ID, "evidence.json"))
		if err != nil {
			return nil, nil, nil, err
		}
		var out rankOutput
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", f.ID, err)
		}
		groups[i] = tieGroup(f, out.Lines)
		if out.Angelic != nil && len(out.Angelic.Tests) > 0 {
			for _, t := range out.Angelic.Tests {
				seconds[i] += t.Seconds
			}
			seconds[i] /= float64(len(out.Angelic.Tests))
		}
	}
	return picked, groups, seconds, nil
}

// projectEnv is the environment a fault's tests run in, as realfaults
// eval gives it.
func projectEnv(b *realfault.Benchmark, f *realfault.Fault) []string {
	env := append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false")
	if p, ok := b.Project(f.Repo); ok {
		env = append(env, p.Env...)
	}
	return env
}

// record copies a fault's source, records the failing run of up to limit
// of its failing tests and returns their slices and the mean time a slice
// took.
func record(ctx context.Context, f *realfault.Fault, env []string, eval, work string, limit int) ([][]analysis.SliceLine, float64, error) {
	dir := filepath.Join(work, f.ID)
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(dir); err != nil {
		return nil, 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	if out, err := exec.CommandContext(ctx, "cp", "-r", filepath.Join(eval, f.ID, "src"), src).CombinedOutput(); err != nil {
		return nil, 0, fmt.Errorf("copying the source: %v: %s", err, out)
	}
	defer os.RemoveAll(dir)
	mod, err := testbuild.Open(src, testbuild.Config{CacheDir: filepath.Join(dir, "cache"), Env: env})
	if err != nil {
		return nil, 0, err
	}
	var out [][]analysis.SliceLine
	var took time.Duration
	var errs []string
	for _, t := range f.Failing {
		if len(out) == limit {
			break
		}
		run, err := analysis.RecordFailingRun(ctx, mod, testbuild.Target{Package: t.Package, Test: t.Test}, analysis.Options{})
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		start := time.Now()
		out = append(out, run.Slice())
		took += time.Since(start)
		run.Close()
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("no failing run recorded: %s", strings.Join(errs, "; "))
	}
	return out, took.Seconds() / float64(len(out)), nil
}
