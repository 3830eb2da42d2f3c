// Command slicecheck measures the dynamic backward slice of the failing
// checks on real faults of bench/realfaults whose faulty line ties with
// others under Ochiai: how often the slice holds a faulty line, how much
// of the tie group it keeps, and what computing it costs beside the
// analysis it is part of.
//
// It reads the rankings realfaults eval wrote (-eval, each fault's
// evidence.json and src/), picks faults one project at a time whose best
// faulty line shares its Ochiai score with other lines, copies each
// fault's source into -work (the eval directory is left as it is), runs
// faultline rank -json there with the analysis on and a store of its own,
// and reads each analysed test's slice from the output.
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
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/realfault"
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
	bin := fs.String("faultline", "faultline", "the faultline binary")
	n := fs.Int("n", 25, "faults to measure")
	budget := fs.Duration("budget", 10*time.Second, "rank -budget: analysis time per failing test")
	maxAnalyzed := fs.Int("max-analyzed", 3, "rank -max-analyzed")
	deadline := fs.Duration("deadline", 5*time.Minute, "limit on one rank run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := realfault.LoadBenchmark(*bench)
	if err != nil {
		return err
	}
	picked, groups, err := pick(b, *eval, *n)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var measured, inSlice, withSlice int
	var keptShare, sliceSec, analysisSec float64
	fmt.Println("fault\ttie\tslice∩tie\tfaulty in slice\tslice s\tanalysis s")
	for i, f := range picked {
		out, err := rank(ctx, b, f, *eval, *work, *bin, *budget, *maxAnalyzed, *deadline)
		if err != nil {
			fmt.Printf("%s\terror: %v\n", f.ID, err)
			continue
		}
		measured++
		slice := map[key]bool{}
		var ss, as float64
		for _, t := range out.Angelic.Tests {
			ss += t.SliceSeconds
			as += t.Seconds
			for _, l := range t.Slice {
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
		fmt.Printf("%s\t%d\t%d\t%v\t%.3f\t%.1f\n", f.ID, len(groups[i]), kept, faulty, ss, as)
	}
	if measured == 0 {
		return fmt.Errorf("no fault measured")
	}
	fmt.Printf("\n%d faults measured (%d with a slice): a faulty line of the tie group in the slice for %d; the slice keeps on average %.0f %% of the tie group (faults with a slice); slices took %.2f s of %.0f s of analysis (%.2f %%)\n",
		measured, withSlice, inSlice, 100*keptShare/float64(max(withSlice, 1)), sliceSec, analysisSec, 100*sliceSec/max(analysisSec, 1e-9))
	return nil
}

// pick returns up to n faults, one project at a time, whose best faulty
// line ties with other lines under Ochiai in the eval run's ranking, with
// their tie groups.
func pick(b *realfault.Benchmark, eval string, n int) ([]*realfault.Fault, [][]key, error) {
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
			return nil, nil, fmt.Errorf("%s: %w", f.ID, err)
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
	for i, f := range picked {
		data, err := os.ReadFile(filepath.Join(eval, f.ID, "evidence.json"))
		if err != nil {
			return nil, nil, err
		}
		var out rankOutput
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.ID, err)
		}
		groups[i] = tieGroup(f, out.Lines)
	}
	return picked, groups, nil
}

// rank copies a fault's source and ranks it with the analysis on.
func rank(ctx context.Context, b *realfault.Benchmark, f *realfault.Fault, eval, work, bin string, budget time.Duration, maxAnalyzed int, deadline time.Duration) (*rankOutput, error) {
	dir := filepath.Join(work, f.ID)
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, "cp", "-r", filepath.Join(eval, f.ID, "src"), src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copying the source: %v: %s", err, out)
	}
	env := append(gocmd.GoEnv(), "FAULTLINE_CACHE="+filepath.Join(dir, "store"), "GOFLAGS=-mod=mod -buildvcs=false")
	if p, ok := b.Project(f.Repo); ok {
		env = append(env, p.Env...)
	}
	args := []string{"rank", "-json", "-timeout", "30s", "-budget", budget.String(), "-max-analyzed", fmt.Sprint(maxAnalyzed)}
	for _, p := range f.Packages {
		if p == "." {
			args = append(args, ".")
		} else {
			args = append(args, "./"+p)
		}
	}
	res, err := gocmd.Run(ctx, src, env, deadline, bin, args...)
	if err != nil && len(res.Stdout) == 0 {
		return nil, fmt.Errorf("%v: %s", err, gocmd.Tail(res.Stderr, 300))
	}
	var out rankOutput
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		return nil, err
	}
	if out.Angelic == nil {
		return nil, fmt.Errorf("no analysis in the output")
	}
	if err := os.WriteFile(filepath.Join(dir, "rank.json"), res.Stdout, 0o644); err != nil {
		return nil, err
	}
	return &out, nil
}
