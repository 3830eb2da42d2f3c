package gocmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// TestID names one test: its package's import path and its full name
// (subtests with slashes).
type TestID struct {
	Package string `json:"package"`
	Test    string `json:"test"`
}

func (t TestID) String() string { return t.Package + " " + t.Test }

// TestOutcome summarises one plain go test run over a package set, counted
// in leaf tests (a test with subtests counts through its subtests).
type TestOutcome struct {
	Passed, Failed int
	BuildFailed    bool     // some package did not build or vet
	TimedOut       bool     // the run or a test binary hit its timeout
	FailedPackages []string // packages with a failing verdict, sorted
	// Leaves holds every leaf test's verdict: "pass", "fail" or "skip".
	Leaves map[TestID]string
	// All holds every test's verdict, parents too: a subtest whose name
	// holds a slash ("http://x") looks like its own parent's parent.
	All map[TestID]string
}

// Mixed reports whether the run has at least one failing and one passing
// test and nothing that would make a spectrum meaningless.
func (o TestOutcome) Mixed() bool {
	return o.Failed > 0 && o.Passed > 0 && !o.BuildFailed && !o.TimedOut
}

// testEvent is the subset of test2json's event a benchmark reads.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// ParseTestEvents summarises go test -json output.
func ParseTestEvents(out []byte) (TestOutcome, error) {
	final := make(map[TestID]string)
	var order []TestID
	o := TestOutcome{Leaves: map[TestID]string{}, All: final}
	failedPkgs := make(map[string]bool)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // go test prints build errors to stderr, but be tolerant
		}
		var ev testEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return TestOutcome{}, fmt.Errorf("parse go test -json event %q: %w", Tail(line, 200), err)
		}
		switch ev.Action {
		case "build-fail":
			o.BuildFailed = true
		case "output":
			if strings.Contains(ev.Output, "[build failed]") || strings.Contains(ev.Output, "[setup failed]") {
				o.BuildFailed = true
			}
			if strings.HasPrefix(ev.Output, "panic: test timed out") {
				o.TimedOut = true
			}
		case "pass", "fail", "skip":
			if ev.Test == "" {
				if ev.Action == "fail" {
					failedPkgs[ev.Package] = true
				}
				continue
			}
			k := TestID{ev.Package, ev.Test}
			if _, seen := final[k]; !seen {
				order = append(order, k)
			}
			final[k] = ev.Action
		}
	}
	if err := sc.Err(); err != nil {
		return TestOutcome{}, fmt.Errorf("read go test -json output: %w", err)
	}
	// A test is a leaf unless another test of its package is below it.
	parents := make(map[TestID]bool)
	for _, k := range order {
		if i := strings.LastIndex(k.Test, "/"); i >= 0 {
			for name := k.Test[:i]; ; {
				parents[TestID{k.Package, name}] = true
				j := strings.LastIndex(name, "/")
				if j < 0 {
					break
				}
				name = name[:j]
			}
		}
	}
	for _, k := range order {
		if parents[k] {
			continue
		}
		o.Leaves[k] = final[k]
		switch final[k] {
		case "pass":
			o.Passed++
		case "fail":
			o.Failed++
		}
	}
	for p := range failedPkgs {
		o.FailedPackages = append(o.FailedPackages, p)
	}
	sort.Strings(o.FailedPackages)
	return o, nil
}

// RunGoTest runs plain go test -json on pkgs in dir, with go test's own
// timeout and a slightly longer hard deadline on the whole command; flags
// go before the packages.
func RunGoTest(ctx context.Context, dir string, pkgs []string, timeout time.Duration, env []string, flags ...string) (TestOutcome, error) {
	args := append([]string{"test", "-json", "-count=1", "-timeout", timeout.String()}, flags...)
	args = append(args, pkgs...)
	res, err := Run(ctx, dir, append(GoEnv(), env...), timeout+time.Minute, "go", args...)
	if res.TimedOut {
		return TestOutcome{TimedOut: true}, nil
	}
	o, perr := ParseTestEvents(res.Stdout)
	if perr != nil {
		return TestOutcome{}, perr
	}
	if err != nil && o.Passed+o.Failed == 0 && !o.BuildFailed {
		// go test failed before running anything: a broken module, not a verdict.
		return o, fmt.Errorf("go test in %s: %w: %s", dir, err, Tail(res.Stderr, 2000))
	}
	if err != nil && len(res.Stderr) > 0 && bytes.Contains(res.Stderr, []byte("build failed")) {
		o.BuildFailed = true
	}
	return o, nil
}
