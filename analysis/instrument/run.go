package instrument

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// maxTraceEvents bounds a trace (the runtime stops recording there): a
// forced value can make a loop run away, and such a run is not replayed.
const MaxTraceEvents = 200000

// event is one recorded dynamic instance of a site. A string or byte
// slice is recorded in str; opaque says it was too long to record, and
// value holds its length alone.
type Event struct {
	Site   int32
	Inst   Instance
	Value  int64
	Str    string
	Opaque bool
}

// forcedValue is a value the runtime substitutes at one dynamic instance:
// Str for a string or byte slice, Value for any other.
type ForcedValue struct {
	Site  int32   `json:"Site"`
	Act   int32   `json:"Act"`
	Local int32   `json:"Local"`
	Value int64   `json:"Value"`
	Str   *string `json:"Str,omitempty"`
	// Payload is the value of a value site (kindValue) as text, which
	// Value then does not hold.
	Payload string `json:"Payload,omitempty"`
}

// runResult is one run of the leaf test.
type RunResult struct {
	Passed    bool
	Elapsed   time.Duration
	Truncated bool // the trace hit the runtime's event bound
	Trace     []Event
	Output    string
	Memory    *testbuild.MemoryStop // set when the test memory bound stopped the run
	TimedOut  bool                  // the run was stopped at its own timeout (TestBinary.Timeout)
}

// testBinary is an instrumented test binary and where its runs keep their
// trace and forced values.
type TestBinary struct {
	mod      *testbuild.Module
	bin      *testbuild.Binary
	workDir  string
	Timeout  time.Duration
	Deadline time.Time // no run goes past it (zero: none)
	Runs     int
	OneByOne bool     // value replacement runs each replacement in a process of its own
	Env      []string // added to every run's environment
}

// errBudget stops the analysis of a test whose time budget ran out in the
// middle of a phase (a run, the encoding of a trace).
var ErrBudget = errors.New(NoteBudget)

// BudgetExhausted reports whether err is an analysis stopped by its time
// budget, for callers that fall back to something cheaper.
func BudgetExhausted(err error) bool { return errors.Is(err, ErrBudget) }

// noteBudget is the note of a test whose analysis the budget cut.
const NoteBudget = "time budget exhausted"

// buildTestBinary builds the package's instrumented test binary, or takes
// the one built before from the same sources and instrumentation.
func BuildTestBinary(ctx context.Context, mod *testbuild.Module, keys *testbuild.Keys, prog *Program, pkg *testbuild.Package, workDir string) (*TestBinary, error) {
	bin, err := mod.BuildTest(ctx, prog.Overlay, pkg, nil, keys.TestBinary(pkg))
	if err != nil {
		return nil, fmt.Errorf("building the instrumented test binary of %s: %w", pkg.ImportPath, err)
	}
	return &TestBinary{mod: mod, bin: bin, workDir: workDir, Timeout: 20 * time.Second}, nil
}

// run runs one leaf test with the given values forced and reads its trace.
func (b *TestBinary) Run(ctx context.Context, test string, force []ForcedValue) (*RunResult, error) {
	return b.RunEnv(ctx, test, force, nil)
}

// runEnv is run with more of the runtime's environment (extra).
func (b *TestBinary) RunEnv(ctx context.Context, test string, force []ForcedValue, extra []string) (*RunResult, error) {
	b.Runs++
	tracePath := filepath.Join(b.workDir, "trace.txt")
	forcePath := filepath.Join(b.workDir, "force.json")
	os.Remove(tracePath)
	env := append([]string{TraceEnv + "=" + tracePath, maxEventsEnv + "=" + strconv.Itoa(MaxTraceEvents)}, b.Env...)
	env = append(env, extra...)
	if len(force) > 0 {
		data, err := json.Marshal(force)
		if err != nil {
			return nil, fmt.Errorf("encoding forced values: %w", err)
		}
		if err := os.WriteFile(forcePath, data, 0o644); err != nil {
			return nil, fmt.Errorf("writing forced values: %w", err)
		}
		env = append(env, forceEnv+"="+forcePath)
	}
	timeout := b.Timeout
	if !b.Deadline.IsZero() {
		left := time.Until(b.Deadline)
		if left <= 0 {
			return nil, ErrBudget
		}
		timeout = min(timeout, left)
	}
	out, err := b.mod.RunTest(ctx, b.bin, test, timeout, env)
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", test, err)
	}
	if out.Verdict == testbuild.Timeout && !b.Deadline.IsZero() && !time.Now().Before(b.Deadline) {
		return nil, ErrBudget // killed by the budget, not by its own timeout
	}
	if err := environmentFailure(test, out.KilledOutside, out.ExitCode, out.Output); err != nil {
		return nil, err
	}
	res := &RunResult{Passed: out.Passed, Output: out.Output, Elapsed: out.Elapsed, TimedOut: out.Verdict == testbuild.Timeout}
	res.Memory = out.Memory
	res.Trace, err = readTrace(tracePath)
	if err != nil {
		return nil, err
	}
	res.Truncated = len(res.Trace) >= MaxTraceEvents
	return res, nil
}

// environmentFailure is the error of a run that the machine, not the
// test, ended: killed by a signal from outside, or its runtime unable to
// write what it recorded (a full disk). Its trace would pass for a run
// that recorded less.
func environmentFailure(test string, killedOutside bool, exitCode int, output string) error {
	if killedOutside {
		return &EnvironmentError{fmt.Sprintf("running %s: the test process was killed from outside", test)}
	}
	if exitCode != exitCannotRecord {
		return nil
	}
	for line := range strings.Lines(output) {
		if strings.HasPrefix(line, cannotRecordPrefix) {
			return &EnvironmentError{fmt.Sprintf("running %s: %s", test, strings.TrimSpace(line))}
		}
	}
	return nil
}

func readTrace(path string) ([]Event, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// site act local value, the value a quoted string, #length or an
		// integer.
		fields := strings.SplitN(sc.Text(), " ", 4)
		if len(fields) != 4 {
			continue // a line cut by a crash
		}
		s, err1 := strconv.ParseInt(fields[0], 10, 32)
		act, err2 := strconv.ParseInt(fields[1], 10, 32)
		local, err3 := strconv.ParseInt(fields[2], 10, 32)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		ev := Event{Site: int32(s), Inst: Instance{int32(act), int32(local)}}
		var err error
		switch payload := fields[3]; {
		case strings.HasPrefix(payload, `"`):
			ev.Str, err = strconv.Unquote(payload)
		case strings.HasPrefix(payload, "#"):
			ev.Value, err = strconv.ParseInt(payload[1:], 10, 64)
			ev.Opaque = true
		default:
			ev.Value, err = strconv.ParseInt(payload, 10, 64)
		}
		if err != nil {
			continue
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	return out, nil
}

// environmentError is a failure of the machine's rather than the code's,
// found where no system error says so: a test process killed by a signal
// faultline did not send, a runtime that could not write its trace.
type EnvironmentError struct{ msg string }

func (e *EnvironmentError) Error() string { return e.msg }
