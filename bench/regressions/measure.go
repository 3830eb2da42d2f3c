package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
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

// Measurement is one run of faultline explain on a regression.
type Measurement struct {
	ID       string `json:"id"`
	Strategy string `json:"strategy"` // after or ddmin
	// Roots are the root changes reported, in the introducing commit's
	// lines; Auxiliary counts the auxiliary ones.
	Roots     []Span `json:"roots"`
	Auxiliary int    `json:"auxiliary"`
	// Total, Neutral, Reruns, Builds, Bisected, Found and NoRoot are
	// explain's own figures (see regress.Explanation).
	Total    int    `json:"total"`
	Neutral  int    `json:"neutral"`
	Reruns   int    `json:"reruns"`
	Builds   int    `json:"builds"`
	Bisected int    `json:"bisected"`
	Found    string `json:"found,omitempty"`
	NoRoot   string `json:"noRoot,omitempty"`
	// Message is explain's reason for explaining nothing; Error a failure
	// of the command itself.
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
	// Seconds is explain's own time for the test; Wall the command's.
	Seconds float64 `json:"seconds"`
	Wall    float64 `json:"wall"`
	// TypeChecks counts the reverts type-checked without a build; Phases
	// are explain's phase times (FAULTLINE_DEBUG), where it gives them.
	TypeChecks int     `json:"typeChecks,omitempty"`
	Phases     []Phase `json:"phases,omitempty"`
}

// Phase is one phase of explain's trace: its time and how often it ran.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Count   int     `json:"count"`
}

// Span is a change's lines in a file; EndLine < Line for a change that
// only deletes, the deleted text standing before Line.
type Span struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"endLine"`
}

// explainOutput is the part of faultline explain -json read here.
type explainOutput struct {
	Tests []struct {
		Message string
		Changes []struct {
			File, Role    string
			Line, EndLine int
		}
		Total, Neutral, Reruns, Builds, Bisected int
		TypeChecks                               int
		Found, NoRoot                            string
		Seconds                                  float64
		Phases                                   []Phase
	}
}

func runMeasure(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("measure", flag.ContinueOnError)
	bin := flags.String("faultline", "", "the faultline binary to measure")
	in := flags.String("regressions", defaultRegressions, "the regressions file")
	out := flags.String("out", defaultMeasured, "the measurements file (runs it already holds are not repeated)")
	mirrors := flags.String("mirrors", "/work/.mirror", "directory holding the projects' git histories")
	work := flags.String("work", defaultWork(), "scratch directory (clones, explain's caches)")
	strategies := flags.String("strategies", "after,ddmin", "comma-separated explain strategies to run")
	budget := flags.Duration("budget", 5*time.Minute, "explain's -budget: time for reverting and rerunning")
	timeout := flags.Duration("timeout", 10*time.Minute, "kill one explain after this long")
	only := flags.String("only", "", "comma-separated regression ids to measure (default: all)")
	total := flags.Duration("total", 8*time.Hour, "start no new run after this long")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *bin == "" {
		return errors.New("give -faultline /path/to/faultline")
	}
	b, err := loadRegressions(*in)
	if err != nil {
		return err
	}
	var done []Measurement
	if data, err := os.ReadFile(*out); err == nil {
		if err := json.Unmarshal(data, &done); err != nil {
			return fmt.Errorf("%s: %w", *out, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	have := map[string]bool{}
	for _, m := range done {
		have[m.ID+" "+m.Strategy] = true
	}
	deadline := time.Now().Add(*total)
	clones := map[string]*checkout{}
	for i, r := range b.Regressions {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), r.ID) {
			continue
		}
		order := strings.Split(*strategies, ",")
		if i%2 == 1 { // neither strategy always finds the build cache warmer
			slices.Reverse(order)
		}
		for _, s := range order {
			if have[r.ID+" "+s] {
				continue
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				return nil
			}
			co, ok := clones[r.Repo]
			if !ok {
				g, err := realfault.FindGitDir(*mirrors, r.Repo)
				if err != nil {
					return err
				}
				if co, err = openCheckout(ctx, g, *work, r.Repo); err != nil {
					return err
				}
				clones[r.Repo] = co
			}
			m, err := measure(ctx, co, *bin, *work, r, s, *budget, *timeout)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				m = Measurement{ID: r.ID, Strategy: s, Error: realfault.FirstLine(err.Error())}
			}
			done = append(done, m)
			have[r.ID+" "+s] = true
			if err := realfault.SaveJSON(*out, done); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s %s: %.0fs, %d roots, %s%s\n", r.ID, s, m.Wall, len(m.Roots), m.Message, m.Error)
		}
	}
	return nil
}

// measure runs faultline explain on a regression in a checkout of its
// introducing commit, with its parent as the base and a cache of its own.
func measure(ctx context.Context, co *checkout, bin, work string, r Regression, strategy string, budget, timeout time.Duration) (Measurement, error) {
	m := Measurement{ID: r.ID, Strategy: strategy, Roots: []Span{}}
	if _, err := co.at(ctx, r.Introducing, testSetup{Fix: r.Fix, Files: r.TestFiles, Dir: r.Dir, Test: r.Test, Migrate: r.Migrated, GoModFrom: r.GoModFrom}); err != nil {
		return m, err
	}
	cache := filepath.Join(work, "caches", r.ID+"-"+strategy)
	os.RemoveAll(cache)
	defer os.RemoveAll(cache)
	pkg := "."
	if r.Dir != "." {
		pkg = "./" + r.Dir
	}
	res, err := gocmd.Run(ctx, co.dir, append(gocmd.GoEnv(), "FAULTLINE_CACHE="+cache, "FAULTLINE_DEBUG=1"), timeout, bin, "explain", "-json",
		"-base", r.Base, "-strategy", strategy, "-max-explained", "1", "-parallel", "1", "-budget", budget.String(),
		"-run", runPattern(r.Test), pkg)
	m.Wall = res.Elapsed.Seconds()
	// The whole explanation (notes, auxiliary changes, cause tree) stays
	// in WORK for a look at why a report is as it is.
	if dir := filepath.Join(work, "explained"); os.MkdirAll(dir, 0o755) == nil {
		os.WriteFile(filepath.Join(dir, r.ID+"-"+strategy+".json"), res.Stdout, 0o644)
	}
	if res.TimedOut {
		m.Error = fmt.Sprintf("killed after %v", timeout)
		return m, nil
	}
	var ex explainOutput
	if jerr := json.Unmarshal(res.Stdout, &ex); jerr != nil || len(ex.Tests) != 1 {
		msg := gocmd.Tail(res.Stderr, 300)
		if err != nil {
			msg = err.Error() + ": " + msg
		}
		m.Error = strings.ReplaceAll(msg, "\n", " ")
		if len(bytes.TrimSpace(res.Stdout)) > 0 && jerr == nil {
			m.Error = "no failing test explained: " + m.Error
		}
		return m, nil
	}
	t := ex.Tests[0]
	m.Message, m.Total, m.Neutral, m.Reruns, m.Builds, m.Bisected = t.Message, t.Total, t.Neutral, t.Reruns, t.Builds, t.Bisected
	m.Found, m.NoRoot, m.Seconds = t.Found, t.NoRoot, t.Seconds
	m.TypeChecks, m.Phases = t.TypeChecks, t.Phases
	for _, c := range t.Changes {
		if c.Role == "root" {
			m.Roots = append(m.Roots, Span{File: c.File, Line: c.Line, EndLine: c.EndLine})
		} else {
			m.Auxiliary++
		}
	}
	return m, nil
}
