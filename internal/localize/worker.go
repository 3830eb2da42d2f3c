package localize

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/specs"
)

// WorkerCommand is the argument that starts the faultline executable as an
// analysis worker. The command line routes it to RunWorker; it is not meant
// for people.
const WorkerCommand = "analyze-worker"

// workerEnv marks a worker process, for executables (test binaries) that
// cannot route WorkerCommand.
const workerEnv = "FAULTLINE_ANALYSIS_WORKER"

// IsWorker reports whether this process was started as an analysis worker.
func IsWorker(args []string) bool {
	return os.Getenv(workerEnv) == "1" || len(args) > 0 && args[0] == WorkerCommand
}

// workRequest is what a worker is asked to do, on its standard input.
type workRequest struct {
	Root      string // module root
	CacheRoot string // faultline's cache root (testbuild.Config.CacheDir)
	Targets   []testbuild.Target
	Options   analysis.Options
	// Verify, when set, asks to verify this candidate (a result holding
	// one candidate, as analysis.MarshalResult encodes it) instead.
	Verify json.RawMessage `json:",omitempty"`
	// Cores asks for the unsat cores of the targets (SAT-TAR's suspects)
	// instead of their analyses.
	Cores bool `json:",omitempty"`
	// Suggest, when set, asks for the inputs that sharpen the ranking of
	// one failing fuzz target instead.
	Suggest *suggestWork `json:",omitempty"`
	// Explain, when set, asks to explain these failing tests from the
	// git history instead.
	Explain []explainWork `json:",omitempty"`
	// TestMemory bounds each test process tree the worker runs; the
	// worker enforces it (testbuild.Config.TestMemory).
	TestMemory int64 `json:",omitempty"`
	// Memory and Deadline bound the worker; the parent enforces them. Env
	// is the worker's environment.
	Memory   int64     `json:"-"`
	Deadline time.Time `json:"-"`
	Env      []string  `json:"-"`
}

// suggestWork is a Suggest request.
type suggestWork struct {
	Request specs.Request
	Options specs.Options
}

// workReply is one line of a worker's standard output.
type workReply struct {
	Result       json.RawMessage        `json:"result,omitempty"`       // analysis.MarshalResult
	Verification *analysis.Verification `json:"verification,omitempty"` // the answer to a Verify request
	Core         *analysis.CoreResult   `json:"core,omitempty"`         // one target's core
	Suggestion   json.RawMessage        `json:"suggestion,omitempty"`   // specs.MarshalResult
	Explanation  json.RawMessage        `json:"explanation,omitempty"`  // one regress.Explanation
	Progress     string                 `json:"progress,omitempty"`     // what an explanation is doing
	Error        string                 `json:"error,omitempty"`        // the worker could not go on
	// Bug is a bug the worker reported (a panic of one test's analysis,
	// recovered), reported again in the parent where someone listens.
	Bug *bug.Report `json:"bug,omitempty"`
}

// workerFunc runs a request, handing each result (or the verification) to
// done as it comes.
type workerFunc func(ctx context.Context, req workRequest, done func(workReply)) error

// RunWorker is the worker's main: it reads one request from in, analyses
// its targets and writes each result to out as soon as it is complete.
// Bugs reported meanwhile go to out too. A panic outside one test's
// analysis (which the analysis recovers itself) is reported once and ends
// the request with an error: the parent loses the target it was on, as
// when a worker dies.
func RunWorker(ctx context.Context, in io.Reader, out io.Writer) (err error) {
	enc := &replyEncoder{enc: json.NewEncoder(out)}
	defer bug.Default.Handle(func(r bug.Report) { enc.Encode(workReply{Bug: &r}) })()
	defer func() {
		if v := recover(); v != nil {
			bug.Reportf("analysis worker: %v", v) // with the stack of the panic
			err = fmt.Errorf("faultline failed: %v", v)
			enc.Encode(workReply{Error: err.Error()})
		}
	}()
	var req workRequest
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		return fmt.Errorf("reading the analysis request: %w", err)
	}
	fail := func(err error) error {
		enc.Encode(workReply{Error: err.Error()})
		return err
	}
	mod, err := testbuild.Open(req.Root, testbuild.Config{CacheDir: req.CacheRoot, TestMemory: req.TestMemory})
	if err != nil {
		return fail(err)
	}
	if req.Explain != nil {
		if err := explainEach(ctx, mod, req.Explain, func(r workReply) error { return enc.Encode(r) }); err != nil {
			return fail(err)
		}
		return nil
	}
	if req.Verify != nil {
		r, err := analysis.UnmarshalResult(req.Verify)
		if err != nil || len(r.Candidates) != 1 {
			return fail(fmt.Errorf("a verify request needs one candidate: %v", err))
		}
		v, err := analysis.Verify(ctx, mod, testbuild.Target{Package: r.Package, Test: r.Test}, r.Candidates[0], req.Options)
		if err != nil {
			return fail(err)
		}
		return enc.Encode(workReply{Verification: &v})
	}
	if req.Suggest != nil {
		r, err := specs.Suggest(ctx, mod, req.Suggest.Request, req.Suggest.Options)
		if err != nil {
			return fail(err)
		}
		data, err := specs.MarshalResult(r)
		if err != nil {
			return fail(err)
		}
		return enc.Encode(workReply{Suggestion: data})
	}
	if req.Cores {
		err := analysis.Cores(ctx, mod, req.Targets, req.Options, func(r analysis.CoreResult) error {
			return enc.Encode(workReply{Core: &r})
		})
		if err != nil {
			return fail(err)
		}
		return nil
	}
	err = analysis.AnalyzeEach(ctx, mod, req.Targets, req.Options, func(r analysis.TestResult) error {
		data, err := analysis.MarshalResult(r)
		if err != nil {
			return err
		}
		return enc.Encode(workReply{Result: data})
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// replyEncoder writes replies one at a time: a bug may be reported from
// any goroutine of the worker.
type replyEncoder struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// Encode writes one reply line.
func (e *replyEncoder) Encode(r workReply) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enc.Encode(r)
}

// memoryPoll is how often a worker's memory is read.
const memoryPoll = 100 * time.Millisecond

// processWorker runs analyses in a child process of the executable exe,
// which it stops when the process holds more memory than the request
// allows or outlives its deadline.
func processWorker(exe string) workerFunc {
	return func(ctx context.Context, req workRequest, done func(workReply)) error {
		// The worker dies with this thread (DieWithParent), which stays
		// locked until the worker has ended.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		wctx, cancel := context.WithDeadline(ctx, req.Deadline)
		defer cancel()
		cmd := exec.CommandContext(wctx, exe, WorkerCommand)
		cmd.Env = append(append([]string{}, req.Env...), workerEnv+"=1")
		testbuild.DieWithParent(cmd)
		cmd.WaitDelay = testbuild.OutputGrace
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return fmt.Errorf("starting the analysis: %w", err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return fmt.Errorf("starting the analysis: %w", err)
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting the analysis: %w", err)
		}
		var bound error
		watched := make(chan struct{})
		stop := make(chan struct{})
		go func() {
			defer close(watched)
			tick := time.NewTicker(memoryPoll)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if rss, ok := residentBytes(cmd.Process.Pid); ok && rss > req.Memory {
						bound = &memoryBoundError{bound: req.Memory}
						cmd.Process.Kill()
						return
					}
				}
			}
		}()
		// A worker that ended before it read the whole request (a panic
		// at its start) closed the pipe: what it wrote before it ended,
		// its bug report and error, is read all the same.
		sendErr := json.NewEncoder(stdin).Encode(req)
		stdin.Close()
		var failure string
		lines := bufio.NewScanner(stdout)
		lines.Buffer(make([]byte, 1<<20), 1<<30)
		for lines.Scan() {
			var reply workReply
			if json.Unmarshal(lines.Bytes(), &reply) != nil {
				continue
			}
			if reply.Error != "" {
				failure = reply.Error
				continue
			}
			if reply.Bug != nil {
				bug.Default.Add(*reply.Bug)
				continue
			}
			done(reply)
		}
		waitErr := cmd.Wait()
		close(stop)
		<-watched
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case bound != nil:
			return bound
		case errors.Is(wctx.Err(), context.DeadlineExceeded):
			return errors.New("the analysis outlived its time bound and was stopped")
		case failure != "":
			return errors.New(failure)
		case waitErr != nil:
			return fmt.Errorf("the analysis ended abnormally: %v", waitErr)
		case sendErr != nil:
			return fmt.Errorf("sending the analysis its request: %w", sendErr)
		}
		return nil
	}
}

// memoryBoundError says that a worker was stopped for holding more memory
// than its request's bound.
type memoryBoundError struct{ bound int64 }

func (e *memoryBoundError) Error() string {
	return fmt.Sprintf("memory bound (%d MB) reached: the analysis was stopped", e.bound>>20)
}

// residentBytes reads a process's resident memory (Linux); false where the
// system does not say.
func residentBytes(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb << 10, true
			}
		}
	}
	return 0, false
}
