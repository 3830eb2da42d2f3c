package formula

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Symbolic inputs: the recorder and the encoder of the angelic analysis,
// with the parameters of one function (the callback a fuzz target passes
// to f.Fuzz) made the free variables of the formula instead of recorded
// constants. A recorded run then gives its path conditions as functions of
// the inputs, and its specification (the checks and panics the angelic
// formula asserts) apart from the formula, so that a caller can ask for
// inputs that take another path (PathFormula.Flip) or for the part of the
// code that makes the run violate its specification (PathFormula.Core).

// Callback names the function whose parameters are a run's inputs: a
// function literal by the offset of its func keyword, a function
// declaration by the offset of its name, in File (an absolute path).
type Callback struct {
	File   string
	Offset int
}

// InputValue is one input of a run in the trace's encoding: an integer as
// itself, a Boolean as 0 or 1, a float as its IEEE bits.
type InputValue struct {
	Index int   // the callback's parameter index (0 is a fuzz callback's *testing.T)
	Value int64 //
}

// InputParam is a parameter of the callback the formula models.
type InputParam struct {
	Index int
	Name  string
	Type  string // as Go spells it: int, uint8, float64, bool...
}

// InputOptions configure an InputSession.
type InputOptions struct {
	// Edit adds the caller's edits to the build before it is built: the
	// ones that substitute a run's inputs, say.
	Edit func(*testbuild.Overlay) error
	// RunTimeout bounds one run (default 10s).
	RunTimeout time.Duration
}

// InputSession is a package's test binary instrumented for recording, with
// the callback's integer, float and Boolean parameters as inputs.
type InputSession struct {
	prog   *instrument.Program
	bin    *instrument.TestBinary
	cb     *instrument.Function
	params map[int]*instrument.Site // the callback's parameter sites by index
	work   string
	// removeWork removes work.
	removeWork func() error
}

// OpenInputs instruments and builds the test binary of package pkgPath for
// recording runs with the parameters of callback cb as inputs (none when
// cb is the zero Callback).
func OpenInputs(ctx context.Context, mod *testbuild.Module, pkgPath string, cb Callback, opts InputOptions) (*InputSession, error) {
	if opts.RunTimeout <= 0 {
		opts.RunTimeout = 10 * time.Second
	}
	pkg, keys, prog, err := instrument.LoadPackage(ctx, mod, pkgPath)
	if err != nil {
		return nil, err
	}
	defer mod.Hasher().Save()
	s := &InputSession{prog: prog, params: map[int]*instrument.Site{}}
	if cb.File != "" {
		if err := s.callback(cb); err != nil {
			return nil, err
		}
	}
	if opts.Edit != nil {
		if err := opts.Edit(prog.Overlay); err != nil {
			return nil, err
		}
	}
	if s.work, s.removeWork, err = scratch.MkdirTemp("inputs-"); err != nil {
		return nil, err
	}
	s.bin, err = instrument.BuildTestBinary(ctx, mod, keys, prog, pkg, s.work)
	if err != nil {
		s.removeWork()
		return nil, err
	}
	s.bin.Timeout = opts.RunTimeout
	return s, nil
}

// callback finds the function whose parameters are the inputs.
func (s *InputSession) callback(cb Callback) error {
	prog := s.prog
	// Keys are "file:offset" with the file as go/packages named it, which
	// may differ from cb.File by symbolic links: the name and offset decide.
	for key, fn := range prog.Funcs {
		i := strings.LastIndex(key, ":")
		if key[i+1:] != strconv.Itoa(cb.Offset) || filepath.Base(key[:i]) != filepath.Base(cb.File) {
			continue
		}
		if s.cb == nil || key[:i] == cb.File {
			s.cb = fn
		}
	}
	if s.cb == nil {
		return fmt.Errorf("no instrumented function at %s offset %d", cb.File, cb.Offset)
	}
	for _, st := range prog.Sites {
		// Inputs are integers, floats and Booleans (an input value is an
		// int64); a string or error parameter keeps its recorded value.
		if k := instrument.ValueKind(st.Typ); st.Kind == instrument.KindParam && st.Fn == s.cb && (k == 'i' || k == 'f' || k == 'b') {
			s.params[st.Index] = st
		}
	}
	return nil
}

// Close removes the session's scratch files.
func (s *InputSession) Close() { s.removeWork() }

// Params lists the parameters the formula makes inputs, by index.
func (s *InputSession) Params() []InputParam {
	var out []InputParam
	for _, i := range slices.Sorted(maps.Keys(s.params)) {
		st := s.params[i]
		out = append(out, InputParam{Index: i, Name: st.Text, Type: st.Typ.String()})
	}
	return out
}

// RecordedRun is one recorded run of a leaf test.
type RecordedRun struct {
	Passed    bool
	Output    string
	Truncated bool         // the trace hit the runtime's bound: it is not replayed
	Inputs    []InputValue // the callback's modelled parameters on its first entry
	trace     []instrument.Event
	panicAt   int
}

// Record runs one leaf test with env added to its environment and reads
// its trace.
func (s *InputSession) Record(ctx context.Context, test string, env []string) (*RecordedRun, error) {
	s.bin.Env = env
	defer func() { s.bin.Env = nil }()
	r, err := s.bin.Run(ctx, test, nil)
	if err != nil {
		return nil, err
	}
	out := &RecordedRun{Passed: r.Passed, Output: r.Output, Truncated: r.Truncated, trace: r.Trace, panicAt: instrument.PanicAt(s.prog, r)}
	seen := map[int]bool{}
	for _, ev := range r.Trace {
		if int(ev.Site) >= len(s.prog.Sites) {
			continue
		}
		st := s.prog.Sites[ev.Site]
		if s.params[st.Index] == st && !seen[st.Index] {
			seen[st.Index] = true
			out.Inputs = append(out.Inputs, InputValue{Index: st.Index, Value: ev.Value})
		}
	}
	return out, nil
}

// ErrUnknown is returned by PathFormula.Flip when the solver gave up.
var ErrUnknown = errors.New("the solver gave up")

// Condition is one condition instance on a recorded run's path.
type Condition struct {
	File  string // relative to the module root
	Line  int
	Text  string
	Taken bool // the direction the run took
	Test  bool // a condition of test code
	Check bool // a test condition that guards a failure report
}

// Suspect is a statement of the code under test in an unsat core: with
// every other statement as written, the run's inputs cannot meet the
// specification unless this one changes.
type Suspect struct {
	File    string `json:"file"` // relative to the module root
	Line    int    `json:"line"`
	EndLine int    `json:"endLine"`
	Text    string `json:"text"`
}

// CoreResult is the unsat core of a failing test's violated checks.
type CoreResult struct {
	Package  string    `json:"package"`
	Test     string    `json:"test"`
	Suspects []Suspect `json:"suspects"`
	// Note says why a test has no core: it passed, its checks compare
	// values the formula does not model, it could not be replayed.
	Note    string  `json:"note,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Cores computes the core of each failing test (SAT-TAR's suspects) and
// hands each result to done as soon as it is complete. The targets of one
// package share one instrumented build, the angelic analysis's own; a
// package that cannot be built gives each of its targets a note.
func Cores(ctx context.Context, mod *testbuild.Module, targets []testbuild.Target, opts result.Options, done func(CoreResult) error) error {
	opts.Defaults()
	var order []string
	byPkg := map[string][]testbuild.Target{}
	for _, t := range targets {
		if _, ok := byPkg[t.Package]; !ok {
			order = append(order, t.Package)
		}
		byPkg[t.Package] = append(byPkg[t.Package], t)
	}
	for _, path := range order {
		sess, err := OpenInputs(ctx, mod, path, Callback{}, InputOptions{RunTimeout: opts.RunTimeout})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, t := range byPkg[path] {
			start := time.Now()
			r := CoreResult{Package: path, Test: t.Test, Suspects: []Suspect{}}
			if err != nil {
				r.Note = fmt.Sprintf("not analysed: %v", err)
			} else if r.Suspects, r.Note, err = sess.core(ctx, t.Test, opts.Budget); err != nil {
				if ctx.Err() != nil {
					if sess != nil {
						sess.Close()
					}
					return ctx.Err()
				}
				r.Note, err = fmt.Sprintf("not analysed: %v", err), nil
			}
			r.Seconds = time.Since(start).Seconds()
			if err := done(r); err != nil {
				if sess != nil {
					sess.Close()
				}
				return err
			}
		}
		if sess != nil {
			sess.Close()
		}
	}
	return nil
}

// core records one failing test and computes its core.
func (s *InputSession) core(ctx context.Context, test string, budget time.Duration) ([]Suspect, string, error) {
	run, err := s.Record(ctx, test, nil)
	if err != nil {
		return nil, "", err
	}
	if run.Passed {
		return nil, "the test passes", nil
	}
	f, err := s.Formula(run, min(10*time.Second, budget))
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	sus, err := f.Core()
	if err != nil {
		return nil, "", err
	}
	if len(sus) == 0 {
		return []Suspect{}, "no unsat core: no recognised check failed, or the failing check compares values the formula does not model", nil
	}
	return sus, "", nil
}
