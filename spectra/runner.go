package spectra

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// testBinary is one built test binary and how to run it.
type testBinary struct {
	pkg       *listedPackage
	path      string
	run       string        // -test.run pattern, may be empty
	flags     []string      // further flags for the test binary
	timeout   time.Duration // per leaf test
	layout    string        // counter layout file
	test2json string        // path of the test2json tool
	root      string        // module root, to recognise module frames in panics
	workDir   string        // scratch directory for this binary
	trace     *phaseTrace
}

// leafResult is a leaf test with its verdict, before counters are mapped
// to blocks.
type leafResult struct {
	TestRun
	counters []int
}

// maxRestarts bounds how many times one binary is restarted after a test
// crashed or hung; each restart finishes at least one more test.
const maxRestarts = 10000

// runBinary runs every selected test of one binary, restarting the binary
// past each test that crashes or hangs, and returns the leaf tests.
func runBinary(ctx context.Context, b *testBinary, progress func(leafResult)) ([]leafResult, error) {
	done := map[string]bool{}
	var results []leafResult
	for attempt := 0; attempt < maxRestarts; attempt++ {
		p, err := runProcess(ctx, b, done, attempt)
		if err != nil {
			return results, err
		}
		for _, leaf := range p.leaves {
			if done[leaf.Name] {
				continue
			}
			done[leaf.Name] = true
			results = append(results, leaf)
			if progress != nil {
				progress(leaf)
			}
		}
		if !p.restart {
			if p.abnormal && len(p.leaves) == 0 && attempt == 0 {
				// The process died before or outside any test: package
				// init or TestMain. That is the package's verdict.
				leaf := leafResult{TestRun: TestRun{Package: b.pkg.ImportPath, Name: "TestMain", Verdict: Panic, Output: p.output}}
				leaf.FailSites = panicSites(p.output, b.root)
				leaf.counters = p.prelude
				results = append(results, leaf)
			}
			return results, nil
		}
		b.trace.since(p.started, fmt.Sprintf("process %d of %s: %d leaves, then %q", attempt, b.pkg.ImportPath, len(p.leaves), p.interrupted))
		if len(p.leaves) == 0 && (p.interrupted == "" || done[p.interrupted]) {
			return results, nil // a restart would run nothing new
		}
		if p.interrupted != "" {
			done[p.interrupted] = true
		}
	}
	return results, fmt.Errorf("%s: gave up after %d restarts", b.pkg.ImportPath, maxRestarts)
}

// processResult is what one test process left behind.
type processResult struct {
	leaves      []leafResult
	restart     bool   // the process died or was killed while tests were running
	interrupted string // the test to blame, when it had not finished
	abnormal    bool   // the process ended by a signal, a crash or os.Exit
	output      string
	prelude     []int
	started     time.Time
}

func runProcess(ctx context.Context, b *testBinary, done map[string]bool, attempt int) (*processResult, error) {
	tag := strconv.Itoa(attempt)
	skipPath := filepath.Join(b.workDir, "skip"+tag)
	var skip bytes.Buffer
	for name := range done {
		skip.WriteString(strconv.Quote(name) + "\n")
	}
	if err := os.WriteFile(skipPath, skip.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("writing skip list: %w", err)
	}
	countersPath := filepath.Join(b.workDir, "counters"+tag)
	if err := os.WriteFile(countersPath, nil, 0o644); err != nil {
		return nil, fmt.Errorf("creating counters file: %w", err)
	}
	recordsR, recordsW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating record pipe: %w", err)
	}
	args := []string{"-test.v=test2json", "-test.count=1", "-test.timeout=0", "-test.paniconexit0"}
	if b.run != "" {
		args = append(args, "-test.run="+b.run)
	}
	// Finished top-level tests are skipped by the go test flag, since an
	// Example has no *testing.T for the runtime to skip; the runtime skips
	// finished subtests.
	var topLevel []string
	for name := range done {
		if !strings.Contains(name, "/") {
			topLevel = append(topLevel, regexp.QuoteMeta(name))
		}
	}
	if len(topLevel) > 0 {
		sort.Strings(topLevel)
		args = append(args, "-test.skip=^("+strings.Join(topLevel, "|")+")$")
	}
	args = append(args, b.flags...)
	cmd := exec.Command(b.path, args...)
	cmd.Dir = b.pkg.Dir
	cmd.Env = append(os.Environ(),
		"FAULTLINE_FD=3",
		"FAULTLINE_LAYOUT="+b.layout,
		"FAULTLINE_COUNTERS="+countersPath,
		"FAULTLINE_SKIP="+skipPath,
	)
	// The output streams into test2json while the tests run, so that its
	// conversion overlaps the tests instead of following them.
	convert, err := startTest2JSON(ctx, b.test2json, b.pkg.ImportPath)
	if err != nil {
		recordsR.Close()
		recordsW.Close()
		return nil, err
	}
	var output bytes.Buffer
	sink := io.MultiWriter(&output, convert.stdin)
	cmd.Stdout = sink
	cmd.Stderr = sink
	cmd.ExtraFiles = []*os.File{recordsW}
	// A test's own child process may hold the output pipe open after the
	// test process is gone.
	cmd.WaitDelay = time.Second
	started := time.Now()
	if err := cmd.Start(); err != nil {
		recordsR.Close()
		recordsW.Close()
		convert.abort()
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(b.path), err)
	}
	recordsW.Close()

	rr := newRecordReader()
	var mu sync.Mutex
	lastBoundary := time.Now()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		lines := bufio.NewScanner(recordsR)
		lines.Buffer(make([]byte, 1<<20), 1<<30)
		for lines.Scan() {
			mu.Lock()
			rr.line(lines.Text())
			lastBoundary = time.Now()
			mu.Unlock()
		}
	}()

	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()
	tick := time.NewTicker(watchInterval(b.timeout))
	defer tick.Stop()
	var killedFor string
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-waitDone:
			break wait
		case <-ctx.Done():
			cmd.Process.Kill()
			<-waitDone
			<-readDone
			recordsR.Close()
			convert.abort()
			return nil, ctx.Err()
		case <-tick.C:
			mu.Lock()
			if n := len(rr.stack); n > 0 && time.Since(lastBoundary) > b.timeout {
				killedFor = rr.stack[n-1].name
				cmd.Process.Kill()
			}
			mu.Unlock()
		}
	}
	<-readDone
	recordsR.Close()

	res := &processResult{output: output.String(), started: started}
	for _, msg := range rr.errors {
		b.trace.since(started, fmt.Sprintf("runtime of %s: %s", b.pkg.ImportPath, msg))
	}
	var exit *exec.ExitError
	if waitErr != nil && errors.As(waitErr, &exit) && exit.ExitCode() != 1 {
		res.abnormal = true // 1 is the exit code of failing tests
	}
	// The process must be restarted for the remaining tests when it died
	// inside a test, of a test's panic (even a top-level test's, which has
	// already left the stack), or abnormally between tests.
	switch {
	case len(rr.stack) > 0 || rr.panicked != "":
		res.restart = true
		res.interrupted = rr.interrupted(readCounters(countersPath))
	case res.abnormal && len(rr.leaves) > 0:
		res.restart = true
	}
	res.prelude = keys(rr.prelude)
	events, err := convert.events()
	if err != nil {
		return nil, err
	}
	for _, rec := range rr.leaves {
		if done[rec.name] {
			continue
		}
		ev := events[rec.name]
		leaf := leafResult{counters: rec.hits, TestRun: TestRun{Package: b.pkg.ImportPath, Name: rec.name, Elapsed: ev.elapsed, Output: ev.output}}
		switch {
		case rec.name == killedFor:
			leaf.Verdict = Timeout
			leaf.Output += fmt.Sprintf("faultline: killed after %s without finishing\n", b.timeout)
		case rec.panicked || !rec.finished:
			leaf.Verdict = Panic
			leaf.Output += panicOutput(events, rec.name, ev.output)
		case ev.action == "pass":
			leaf.Verdict = Pass
		case ev.action == "skip":
			leaf.Verdict = Skip
		default:
			leaf.Verdict = Fail
		}
		if leaf.Verdict == Panic || leaf.Verdict == Timeout {
			leaf.FailSites = panicSites(leaf.Output, b.root)
		} else if leaf.Verdict == Fail {
			leaf.FailSites = reportSites(leaf.Output, b.pkg.Dir, b.root)
		}
		res.leaves = append(res.leaves, leaf)
	}
	return res, nil
}

// panicOutput finds the trace of a test that took its process down:
// test2json charges it to the test's parent, or to no test at all.
func panicOutput(events map[string]*testEvent, name, own string) string {
	if strings.Contains(own, "panic:") {
		return ""
	}
	for parent := name; parent != ""; {
		i := strings.LastIndex(parent, "/")
		if i < 0 {
			parent = ""
		} else {
			parent = parent[:i]
		}
		if e := events[parent]; e != nil {
			if j := strings.Index(e.output, "panic:"); j >= 0 {
				return e.output[j:]
			}
		}
	}
	return ""
}

func watchInterval(timeout time.Duration) time.Duration {
	if d := timeout / 20; d > 10*time.Millisecond {
		if d > time.Second {
			return time.Second
		}
		return d
	}
	return 10 * time.Millisecond
}

// readCounters returns the indices of the non-zero counters a dead process
// left in its counters file.
func readCounters(path string) []int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var hits []int
	for i := 0; i+4 <= len(data); i += 4 {
		if data[i]|data[i+1]|data[i+2]|data[i+3] != 0 {
			hits = append(hits, i/4)
		}
	}
	return hits
}

// testEvent summarises test2json's events for one test.
type testEvent struct {
	action  string
	elapsed time.Duration
	output  string
}

// eventConverter runs the test2json tool on a test binary's
// -test.v=test2json output while the binary runs.
type eventConverter struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout bytes.Buffer
}

func startTest2JSON(ctx context.Context, tool, pkg string) (*eventConverter, error) {
	t := &eventConverter{cmd: exec.CommandContext(ctx, tool, "-t", "-p", pkg)}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("running test2json: %w", err)
	}
	t.stdin = stdin
	t.cmd.Stdout = &t.stdout
	if err := t.cmd.Start(); err != nil {
		return nil, fmt.Errorf("running test2json: %w", err)
	}
	return t, nil
}

func (t *eventConverter) abort() {
	t.stdin.Close()
	t.cmd.Process.Kill()
	t.cmd.Wait()
}

// events ends the input and groups the events by test name; "" holds
// output outside tests.
func (t *eventConverter) events() (map[string]*testEvent, error) {
	t.stdin.Close()
	if err := t.cmd.Wait(); err != nil && t.stdout.Len() == 0 {
		return nil, fmt.Errorf("running test2json: %w", err)
	}
	return parseEvents(t.stdout.Bytes()), nil
}

// parseEvents groups test2json's JSON events by test name.
func parseEvents(out []byte) map[string]*testEvent {
	events := map[string]*testEvent{}
	get := func(name string) *testEvent {
		if events[name] == nil {
			events[name] = &testEvent{}
		}
		return events[name]
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var ev struct {
			Action  string
			Test    string
			Elapsed float64
			Output  string
		}
		if err := dec.Decode(&ev); err != nil {
			break
		}
		e := get(ev.Test)
		switch ev.Action {
		case "output":
			if !strings.HasPrefix(ev.Output, "=== ") && !strings.HasPrefix(ev.Output, "--- ") {
				e.output += ev.Output
			}
		case "pass", "fail", "skip":
			e.action = ev.Action
			e.elapsed = time.Duration(ev.Elapsed * float64(time.Second))
		}
	}
	get("")
	return events
}

var (
	// "    file_test.go:12: message", as testing prints t.Error and friends.
	reportLine = regexp.MustCompile(`(?m)^\s+([^\s:]+\.go):(\d+): `)
	// "\t/abs/path/file.go:123 +0x1d", a frame of a goroutine trace.
	traceLine = regexp.MustCompile(`(?m)^\t(\S+\.go):(\d+)`)
)

// reportSites returns where a failing test reported its failure.
func reportSites(output, pkgDir, root string) []Site {
	var sites []Site
	for _, m := range reportLine.FindAllStringSubmatch(output, -1) {
		line, _ := strconv.Atoi(m[2])
		if rel, ok := relToRoot(filepath.Join(pkgDir, m[1]), root); ok {
			sites = appendSite(sites, Site{rel, line})
		}
	}
	return sites
}

// panicSites returns the innermost frame inside the module of each
// goroutine trace in the output, skipping faultline's own runtime.
func panicSites(output, root string) []Site {
	var sites []Site
	for _, block := range strings.Split(output, "\ngoroutine ") {
		for _, m := range traceLine.FindAllStringSubmatch(block, -1) {
			if strings.Contains(m[1], "/internal/faultlinert/") {
				continue
			}
			if rel, ok := relToRoot(m[1], root); ok {
				line, _ := strconv.Atoi(m[2])
				sites = appendSite(sites, Site{rel, line})
				break
			}
		}
	}
	return sites
}

func appendSite(sites []Site, s Site) []Site {
	for _, x := range sites {
		if x == s {
			return sites
		}
	}
	return append(sites, s)
}

func relToRoot(path, root string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
