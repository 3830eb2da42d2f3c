package testbuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/faultline-go/faultline/internal/scratch"
)

// RunConfig says how to run one process of a test binary.
type RunConfig struct {
	Binary  string
	Package string   // import path, as test2json reports it
	Dir     string   // working directory: the package's, as go test uses
	Args    []string // flags for the binary; -test.v=test2json is added unless Quiet
	Env     []string // added to the module's environment
	// ExtraFiles are inherited by the process as descriptors 3, 4, ...
	ExtraFiles []*os.File
	// OnEvent, when set, sees each event as it arrives, from another
	// goroutine.
	OnEvent func(Event)
	// Memory bounds the resident memory of the process and everything it
	// starts, in bytes; past it they are killed (Result.Memory). 0 means
	// the module's TestMemory.
	Memory int64
	// Quiet runs the binary without -test.v: it prints what failing tests
	// logged and nothing for the others, so no event reports a test that
	// passed or skipped; the caller learns those from elsewhere (the
	// per-test runtime's records). A binary of thousands of tiny tests
	// spends more on -test.v's three lines a test than on the tests.
	Quiet bool
}

// Process is a running test binary whose output is converted to test2json's
// events as it streams (converter).
type Process struct {
	cmd     *exec.Cmd
	events  *eventReader
	started time.Time
	read    chan struct{} // closed when the output is converted
	waited  chan error

	mu     sync.Mutex
	killed bool
	memory *MemoryStop // set when the memory bound stopped the process
	watch  *memoryWatch
}

// Result is what one test process left behind.
type Result struct {
	Tests    map[string]*TestEvents // by full test name; "" is output outside any test
	Order    []string               // test names in the order their first event came
	ExitCode int                    // -1 when the process ended by a signal
	Killed   bool                   // ended by Kill or by the context
	Elapsed  time.Duration          // the process's, start to end
	// Memory is set when the process tree went over its memory bound and
	// was killed for it; the tests it was running get the verdict Memory.
	Memory *MemoryStop
}

// OutputGrace is how long the output of a test process that has exited is
// still read: what the process wrote is in its pipes by then, and a child
// it left running must not hold the run open.
const OutputGrace = time.Second

// Start starts a test binary, its output converted to test2json's events
// as it runs.
func (m *Module) Start(ctx context.Context, cfg RunConfig) (*Process, error) {
	p := &Process{events: newEventReader(cfg.OnEvent), read: make(chan struct{}), waited: make(chan error, 1)}
	convert := newConverter(p.events.event)
	args := cfg.Args
	if !cfg.Quiet {
		args = append([]string{"-test.v=test2json"}, args...)
	}
	p.cmd = exec.Command(cfg.Binary, args...)
	p.cmd.Dir = cfg.Dir
	p.cmd.Env = append(append([]string{}, m.env...), cfg.Env...)
	// One pipe for both, so that it keeps their order.
	out, err := NewPipe()
	if err != nil {
		return nil, err
	}
	p.cmd.Stdout = out.Writer()
	p.cmd.Stderr = out.Writer()
	p.cmd.ExtraFiles = cfg.ExtraFiles
	setProcessGroup(p.cmd)
	started := make(chan error, 1)
	go func() {
		// The process dies with faultline's thread that started it
		// (Pdeathsig), and the runtime ends a thread only when a goroutine
		// locked to it exits: locked here until the process has ended, the
		// thread outlives it.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p.started = time.Now()
		if err := p.cmd.Start(); err != nil {
			out.Close()
			started <- err
			return
		}
		out.CloseWriter()
		copied := make(chan struct{})
		go func() {
			defer close(copied)
			if _, err := io.Copy(&lineStarts{w: convert}, out); err != nil {
				io.Copy(io.Discard, out) // the process must not block on a full pipe
			}
		}()
		// Should faultline die before the group, the next one to start
		// stops what is left of it (whatever the system's death signal
		// missed); a failure to record costs only that.
		scratch.NoteGroup(cfg.Binary, p.cmd.Process.Pid)
		started <- nil
		err := p.cmd.Wait()
		killGroup(p.cmd) // whatever the test started dies with it
		out.Finish(copied)
		convert.close()
		close(p.read)
		p.waited <- err
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(cfg.Binary), err)
	}
	go func() {
		select {
		case <-ctx.Done():
			p.Kill()
		case <-p.read:
		}
	}()
	bound := cfg.Memory
	if bound <= 0 {
		bound = m.testMemory
	}
	p.watch = &m.memory
	p.watch.add(p, bound)
	return p, nil
}

// Kill ends the test process and every process it started.
func (p *Process) Kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	killGroup(p.cmd)
}

// Pid is the test process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Wait waits for the process and its events. A process that failed,
// crashed or was killed is a result, not an error.
func (p *Process) Wait() (*Result, error) {
	waitErr := <-p.waited
	res := &Result{Elapsed: time.Since(p.started), ExitCode: p.cmd.ProcessState.ExitCode()}
	p.watch.remove(p)
	p.mu.Lock()
	res.Killed = p.killed
	res.Memory = p.memory
	p.mu.Unlock()
	var exit *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exit) {
		return nil, fmt.Errorf("running %s: %w", filepath.Base(p.cmd.Path), waitErr)
	}
	p.events.mu.Lock()
	res.Tests, res.Order = p.events.tests, p.events.order
	p.events.mu.Unlock()
	return res, nil
}

// TakeSettled returns the events of a test that test2json reported passed
// or skipped, a verdict nothing later in the process changes (Verdict), and
// removes them from the process's result, so that a caller done with the
// test does not hold them until the process ends. It returns nil for any
// other test, its events kept.
func (p *Process) TakeSettled(name string) *TestEvents {
	p.events.mu.Lock()
	defer p.events.mu.Unlock()
	t := p.events.tests[name]
	if t == nil || t.Action != "pass" && t.Action != "skip" {
		return nil
	}
	delete(p.events.tests, name)
	return t
}

// WaitWithin waits for the process, killed once timeout has passed (its
// unfinished tests then get the verdict Timeout). Should ctx end first, its
// error is returned rather than what the killed process left.
func (p *Process) WaitWithin(ctx context.Context, timeout time.Duration) (*Result, error) {
	timer := time.AfterFunc(timeout, p.Kill)
	res, err := p.Wait()
	timer.Stop()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, err
}

// Verdict is a test's outcome: what test2json reported for it or, for a
// test that started and has no pass, fail or skip event, what the process's
// end says: Timeout when it was killed, Pass when it exited 0 (tests run
// with -test.paniconexit0, so that means every test that ran passed), and
// Panic otherwise. A test test2json never saw start did not run as far as
// it knows: Timeout or Panic.
func (r *Result) Verdict(name string) Verdict {
	if r.stoppedForMemory(name) {
		return Memory
	}
	t := r.Tests[name]
	if t != nil {
		switch t.Action {
		case "pass":
			return Pass
		case "skip":
			return Skip
		case "fail":
			if r.Killed {
				return Timeout
			}
			return Fail
		}
	}
	switch {
	case r.Killed:
		return Timeout
	case t != nil && r.ExitCode == 0:
		return Pass
	}
	return Panic
}

// Reported reports whether test2json reported a test's end: a pass, fail
// or skip event.
func (r *Result) Reported(name string) bool {
	t := r.Tests[name]
	return t != nil && t.Action != ""
}

// KilledOutside reports a process ended by a signal that faultline did
// not send: killed from outside (the OOM killer, a user's kill -9), which
// says nothing about the test.
func (r *Result) KilledOutside() bool { return r.ExitCode == -1 && !r.Killed }

// Abnormal reports a process that ended other than by exiting normally (0)
// or with failing tests (1): a signal, a crash, os.Exit with another code.
func (r *Result) Abnormal() bool { return r.ExitCode != 0 && r.ExitCode != 1 }

// Output returns a test's output, "" for an unknown test.
func (r *Result) Output(name string) string {
	if t := r.Tests[name]; t != nil {
		return t.Output()
	}
	return ""
}

// TestPattern is a -test.run pattern selecting exactly one leaf test: every
// level anchored and quoted.
func TestPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Outcome is one leaf test's run.
type Outcome struct {
	// Memory is set when the memory bound stopped the test (Verdict Memory).
	Memory   *MemoryStop
	Verdict  Verdict
	Passed   bool // the test passed and its process exited cleanly
	Elapsed  time.Duration
	Output   string // the test's output, then its parents' and any printed outside tests
	ExitCode int
	// KilledOutside says the process ended by a signal faultline did not
	// send (Result.KilledOutside).
	KilledOutside bool
}

// RunTest runs one leaf test of a binary, killed after timeout; extra
// are further flags for the binary (-test.coverprofile=..., say).
func (m *Module) RunTest(ctx context.Context, bin *Binary, test string, timeout time.Duration, env []string, extra ...string) (*Outcome, error) {
	args := append([]string{"-test.run=" + TestPattern(test), "-test.count=1", "-test.timeout=0", "-test.paniconexit0"}, extra...)
	p, err := m.Start(ctx, RunConfig{Binary: bin.Path, Package: bin.Package.ImportPath, Dir: bin.Package.Dir, Args: args, Env: env})
	if err != nil {
		return nil, err
	}
	res, err := p.WaitWithin(ctx, timeout)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Verdict: res.Verdict(test), ExitCode: res.ExitCode, Elapsed: res.Elapsed, KilledOutside: res.KilledOutside()}
	if out.Verdict == Fail && res.Abnormal() {
		out.Verdict = Panic // the one test running took the process down
	}
	out.Passed = out.Verdict == Pass && res.ExitCode == 0
	// test2json charges what a panicking subtest prints to its parent, or
	// to no test at all: the run's output is the leaf's and its parents'.
	output := res.Output(test)
	for _, name := range res.Order {
		if name != "" && strings.HasPrefix(test, name+"/") {
			output += res.Output(name)
		}
	}
	out.Output = output + res.Output("")
	if out.Verdict == Memory {
		out.Memory = res.Memory
		out.Output += res.MemoryNote()
	}
	return out, nil
}
