package main

import (
	"github.com/faultline-go/faultline/bench/internal/gocmd"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// RankReport is the object `faultline rank -json` prints. The harness
// recomputes scores from the four counts, so Score, Rank and Tie are only
// cross-checked.
type RankReport struct {
	localize.RankReport
	Angelic *AngelicSummary `json:"angelic,omitempty"`
}

// AngelicSummary is what rank's angelic analysis reports of its cost.
type AngelicSummary struct {
	Analyzed int `json:"analyzed"`
	Tests    []struct {
		Seconds      float64 `json:"seconds"`
		SolveSeconds float64 `json:"solveSeconds"`
		Cached       bool    `json:"cached"`
	} `json:"tests"`
	Fixes []struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		EndLine int    `json:"endLine"`
		Found   string `json:"found"` // solver, replacement or switch
	} `json:"fixes"`
}

// whyEmpty explains an empty ranking in one line.
func whyEmpty(r *RankReport) string {
	why := r.Message
	pkgs := make([]string, 0, len(r.BuildErrors))
	for p := range r.BuildErrors {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		why += fmt.Sprintf("; %s: %s", p, r.BuildErrors[p])
	}
	if why == "" {
		why = "faultline saw no failing test"
	}
	return why
}

// ParseRankReport decodes and sanity-checks faultline's JSON output.
func ParseRankReport(data []byte) (*RankReport, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var rep RankReport
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("decode faultline rank -json output (%q): %w", gocmd.Tail(data, 300), err)
	}
	for i, l := range rep.Lines {
		if l.File == "" || l.Line <= 0 {
			return nil, fmt.Errorf("faultline rank line %d has no file:line", i)
		}
		if l.EF < 0 || l.EP < 0 || l.NF < 0 || l.NP < 0 {
			return nil, fmt.Errorf("faultline rank line %d (%s:%d) has a negative count", i, l.File, l.Line)
		}
		if l.EF+l.NF != rep.Failed || l.EP+l.NP != rep.Passed {
			return nil, fmt.Errorf("faultline rank line %d (%s:%d): counts ef=%d nf=%d ep=%d np=%d disagree with %d failed, %d passed",
				i, l.File, l.Line, l.EF, l.NF, l.EP, l.NP, rep.Failed, rep.Passed)
		}
	}
	return &rep, nil
}

// Faultline runs the faultline binary on a module directory.
type Faultline struct {
	Binary      string        // path of the faultline executable
	TestTimeout string        // faultline's per-test -timeout
	Deadline    time.Duration // hard limit on one whole rank run
	// Env is added to the environment, for instance to give every run a
	// fresh spectrum store.
	Env []string
	// Flags are extra rank flags, such as the angelic analysis' bounds.
	Flags []string
}

// Rank runs `faultline rank -json -timeout T pkgs...` in dir.
func (f Faultline) Rank(ctx context.Context, dir string, pkgs []string) (*RankReport, time.Duration, error) {
	args := append([]string{"rank", "-json", "-timeout", f.TestTimeout}, f.Flags...)
	args = append(args, pkgs...)
	res, err := gocmd.Run(ctx, dir, append(gocmd.GoEnv(), f.Env...), f.Deadline, f.Binary, args...)
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) || res.TimedOut {
			return nil, res.Elapsed, fmt.Errorf("faultline rank in %s: %w: %s", dir, err, gocmd.Tail(res.Stderr, 1500))
		}
		return nil, res.Elapsed, fmt.Errorf("run faultline: %w", err)
	}
	rep, err := ParseRankReport(res.Stdout)
	if err != nil {
		return nil, res.Elapsed, fmt.Errorf("faultline rank in %s: %w", dir, err)
	}
	return rep, res.Elapsed, nil
}
