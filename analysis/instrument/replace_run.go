package instrument

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// More of the runtime's environment (see package faultlineagx).
const (
	valuesEnv    = "FAULTLINE_AGX_VALUES"
	trialsEnv    = "FAULTLINE_AGX_TRIALS"
	trialSiteEnv = "FAULTLINE_AGX_TRIAL_SITE"
	trialLogEnv  = "FAULTLINE_AGX_TRIAL_LOG"
)

// maxSummaryBytes bounds the value summary read back from one run.
const maxSummaryBytes = 32 << 20

// maxSummaryLine bounds one line of it: a site whose value's text is
// longer (a large string or slice) is left out of the summary, so it
// stays concrete, rather than failing the test's analysis.
const maxSummaryLine = 1 << 20

// siteSummary is what one run recorded of one site: its last instance and
// the first distinct values with their counts. Values of integer, float
// and Boolean sites are their trace encoding in decimal; those of value
// sites the runtime's text.
type SiteSummary struct {
	Last     Instance
	Seq      int // trace events written before the last instance
	Value    string
	Distinct []string
	Counts   []int
}

// recordValues runs a leaf test with its value summary recorded, and with
// its trace when trace is set.
func (b *TestBinary) RecordValues(ctx context.Context, test string, trace bool) (*RunResult, map[int32]*SiteSummary, error) {
	path := filepath.Join(b.workDir, "values.txt")
	os.Remove(path)
	env := []string{valuesEnv + "=" + path}
	if !trace {
		env = append(env, TraceEnv+"=")
	}
	run, err := b.RunEnv(ctx, test, nil, env)
	if err != nil {
		return nil, nil, err
	}
	sum, err := readSummary(path)
	return run, sum, err
}

func readSummary(path string) (map[int32]*SiteSummary, error) {
	out := map[int32]*SiteSummary{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the value summary: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	read := 0
	tooLong := map[int32]bool{}
	for {
		data, long, err := nextLine(r, maxSummaryLine)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the value summary: %w", err)
		}
		line := string(data)
		if read += len(line); read > maxSummaryBytes {
			break
		}
		if long {
			if fields := strings.SplitN(line, " ", 3); len(fields) == 3 {
				if id, err := strconv.ParseInt(fields[1], 10, 32); err == nil {
					tooLong[int32(id)] = true
				}
			}
			continue
		}
		fields := strings.SplitN(line, " ", 6)
		switch {
		case len(fields) == 6 && fields[0] == "L":
			id, err1 := strconv.ParseInt(fields[1], 10, 32)
			act, err2 := strconv.ParseInt(fields[2], 10, 32)
			local, err3 := strconv.ParseInt(fields[3], 10, 32)
			seq, err4 := strconv.Atoi(fields[4])
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
				continue
			}
			s := summaryOf(out, int32(id))
			s.Last, s.Seq, s.Value = Instance{int32(act), int32(local)}, seq, fields[5]
		case len(fields) >= 4 && fields[0] == "D":
			fields = strings.SplitN(line, " ", 4)
			id, err1 := strconv.ParseInt(fields[1], 10, 32)
			n, err2 := strconv.Atoi(fields[2])
			if err1 != nil || err2 != nil {
				continue
			}
			s := summaryOf(out, int32(id))
			s.Distinct = append(s.Distinct, fields[3])
			s.Counts = append(s.Counts, n)
		}
	}
	for id := range tooLong {
		delete(out, id)
	}
	return out, nil
}

// nextLine reads one line without its end; a line longer than max is
// read to its end but returned cut to max bytes, with long set. It
// returns io.EOF only when nothing is left.
func nextLine(r *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, more, err := r.ReadLine()
		if err != nil {
			return line, long, err
		}
		if room := max - len(line); len(chunk) > room {
			chunk, long = chunk[:room], true
		}
		line = append(line, chunk...)
		if !more {
			return line, long, nil
		}
	}
}

func summaryOf(m map[int32]*SiteSummary, id int32) *SiteSummary {
	s := m[id]
	if s == nil {
		s = &SiteSummary{}
		m[id] = s
	}
	return s
}

// trialOutcome is what a batch of trials came to.
type trialOutcome struct {
	Passed []bool // one per trial that ended, in order
	// untrusted says the process's repetitions cannot stand for fresh
	// runs: two overlapped (a parallel test), or the unforced repetition
	// that closes the batch passed.
	Untrusted bool
}

// runTrials runs a leaf test once per trial in one process (-test.count),
// each repetition with its trial's values forced, and one more repetition
// forcing nothing, which must fail as the test does. The repetitions are
// told apart by the entries of the test function whose enter site is
// trialSite. A repetition that does not end within perTrial, or takes the
// process down, fails; the trials after it are not run (len(passed) says
// how many were).
func (b *TestBinary) RunTrials(ctx context.Context, test string, trialSite int32, trials [][]ForcedValue, perTrial time.Duration) (trialOutcome, error) {
	b.Runs++
	trialsPath := filepath.Join(b.workDir, "trials.json")
	logPath := filepath.Join(b.workDir, "trials.log")
	os.Remove(logPath)
	data, err := json.Marshal(trials)
	if err != nil {
		return trialOutcome{}, fmt.Errorf("encoding trials: %w", err)
	}
	if err := os.WriteFile(trialsPath, data, 0o644); err != nil {
		return trialOutcome{}, fmt.Errorf("writing trials: %w", err)
	}
	// The trace goes nowhere, but its event bound still stops a forced
	// value sent astray (the runtime counts events per trial).
	env := []string{TraceEnv + "=" + os.DevNull, maxEventsEnv + "=" + strconv.Itoa(MaxTraceEvents),
		trialsEnv + "=" + trialsPath, trialSiteEnv + "=" + strconv.Itoa(int(trialSite)), trialLogEnv + "=" + logPath}
	n := len(trials) + 1
	args := []string{"-test.run=" + testbuild.TestPattern(test), "-test.count=" + strconv.Itoa(n), "-test.timeout=0"}
	var (
		mu       sync.Mutex
		verdicts []bool
		proc     *testbuild.Process
	)
	watchdog := time.AfterFunc(perTrial, func() {
		mu.Lock()
		defer mu.Unlock()
		if proc != nil {
			proc.Kill()
		}
	})
	defer watchdog.Stop()
	left := time.Until(b.Deadline)
	if !b.Deadline.IsZero() && left <= 0 {
		return trialOutcome{}, ErrBudget
	}
	p, err := b.mod.Start(ctx, testbuild.RunConfig{Binary: b.bin.Path, Package: b.bin.Package.ImportPath, Dir: b.bin.Package.Dir,
		Args: args, Env: env, OnEvent: func(ev testbuild.Event) {
			if ev.Test != test || (ev.Action != "pass" && ev.Action != "fail") {
				return
			}
			mu.Lock()
			verdicts = append(verdicts, ev.Action == "pass")
			mu.Unlock()
			watchdog.Reset(perTrial)
		}})
	if err != nil {
		return trialOutcome{}, err
	}
	mu.Lock()
	proc = p
	mu.Unlock()
	var budget *time.Timer
	if !b.Deadline.IsZero() {
		budget = time.AfterFunc(left, p.Kill)
		defer budget.Stop()
	}
	res, err := p.Wait()
	if ctx.Err() != nil {
		return trialOutcome{}, ctx.Err()
	}
	if err != nil {
		return trialOutcome{}, err
	}
	mu.Lock()
	out := trialOutcome{Passed: verdicts}
	mu.Unlock()
	if res.Killed && !b.Deadline.IsZero() && !time.Now().Before(b.Deadline) {
		return out, ErrBudget // the trial running when the budget ended has no verdict
	}
	if err := environmentFailure(test, res.KilledOutside(), res.ExitCode, res.Output(test)+res.Output("")); err != nil {
		return trialOutcome{}, err
	}
	ran := len(out.Passed)
	if ran < n {
		// The repetition running when the process ended failed.
		out.Passed = append(out.Passed, false)
		ran++
	}
	if len(out.Passed) == n {
		out.Untrusted = out.Passed[n-1] // the unforced repetition passed
		out.Passed = out.Passed[:n-1]
	}
	// Every repetition must have started a trial: one that did not (the
	// test function is not instrumented) ran with nothing forced.
	log, _ := os.ReadFile(logPath)
	if strings.Contains(string(log), "overlap") || strings.Count(string(log), "\n") < ran {
		out.Untrusted = true
	}
	return out, nil
}

// listTests lists the top-level tests of the binary.
func (b *TestBinary) ListTests(ctx context.Context) ([]string, error) {
	b.Runs++
	var mu sync.Mutex
	var names []string
	p, err := b.mod.Start(ctx, testbuild.RunConfig{Binary: b.bin.Path, Package: b.bin.Package.ImportPath, Dir: b.bin.Package.Dir,
		Args: []string{"-test.list=."}, OnEvent: func(ev testbuild.Event) {
			if ev.Action != "output" {
				return
			}
			name := strings.TrimSpace(ev.Output)
			if strings.HasPrefix(name, "Test") && !strings.ContainsAny(name, " \t") {
				mu.Lock()
				names = append(names, name)
				mu.Unlock()
			}
		}})
	if err != nil {
		return nil, err
	}
	limit := b.Timeout
	if !b.Deadline.IsZero() {
		limit = min(limit, max(time.Until(b.Deadline), 0))
	}
	timer := time.AfterFunc(limit, p.Kill)
	defer timer.Stop()
	if _, err := p.Wait(); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	return names, nil
}
