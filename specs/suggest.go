package specs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Options bound the search for one fuzz target.
type Options struct {
	Budget     time.Duration // wall-clock time per target (default 60s)
	MaxRuns    int           // runs of the target, recorded ones included (default 150)
	Passing    int           // sfo_p's passing inputs (default 20; negative: none)
	Rounds     int           // SAT-TAR's rounds, each adding at most one input (default 10)
	MaxFlips   int           // path conditions flipped per recorded run (default 64)
	RunTimeout time.Duration // one run (default 10s)
}

func (o *Options) defaults() {
	if o.Budget <= 0 {
		o.Budget = 60 * time.Second
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = 150
	}
	if o.Passing == 0 {
		o.Passing = 20
	}
	if o.Rounds <= 0 {
		o.Rounds = 10
	}
	if o.MaxFlips <= 0 {
		o.MaxFlips = 64
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = 10 * time.Second
	}
}

// Seed is one entry of a fuzz target's seed corpus as a collection saw it:
// a leaf test FuzzX/seed#N (from f.Add) or FuzzX/NAME (testdata/fuzz).
type Seed struct {
	Name    string `json:"name"`
	Failing bool   `json:"failing"`
}

// Request asks for the inputs that sharpen the ranking of one failing fuzz
// target.
type Request struct {
	Package string     `json:"package"`
	Target  string     `json:"target"`
	Seeds   []Seed     `json:"seeds"`
	Blocks  []BlockRef `json:"blocks"` // the matrix's blocks of the packages the target's binary is built from
}

// Statuses of a target's failing data after the search.
const (
	// Optimal: single-fault optimal as far as the formula reaches: no
	// input along a flipped path condition of any failing run fails
	// without executing every line all failing runs execute.
	Optimal = "optimal"
	// Improved: failing inputs were added, and the search was bounded
	// before it could tell whether more exist.
	Improved = "improved"
	// Bounded: nothing was added, and the search was bounded.
	Bounded = "bounded"
)

// Result is the search for one fuzz target.
type Result struct {
	Target  string  `json:"target"`
	Package string  `json:"package"`
	Seed    string  `json:"seed"`   // the failing entry the search starts from
	Status  string  `json:"status"` // Optimal, Improved or Bounded
	Inputs  []Input `json:"inputs"`
	// Shared counts the lines every failing run executes, before and
	// after the inputs; SeveralFaults says there is none (the failing
	// runs likely meet several faults).
	SharedBefore  int  `json:"sharedBefore"`
	SharedAfter   int  `json:"sharedAfter"`
	SeveralFaults bool `json:"severalFaults,omitempty"`
	// Core is the unsat core of the failing entry's violated checks;
	// Suspects is SAT-TAR's suspect list, the core after the loop's
	// rating refinement, and Cleared the suspects the refinement removed.
	Core     []analysis.Suspect `json:"core"`
	Suspects []analysis.Suspect `json:"suspects"`
	Cleared  []Cleared          `json:"cleared,omitempty"`
	Runs     int                `json:"runs"`
	Seconds  float64            `json:"seconds"`
	Notes    []string           `json:"notes,omitempty"`
}

// Input is one suggested input of a fuzz target.
type Input struct {
	Args    []string `json:"args"`    // as Go spells them
	Outcome string   `json:"outcome"` // "fail" or "pass": its run under the target's checks
	File    string   `json:"file"`    // testdata/fuzz/FuzzX/NAME, relative to the package directory
	Reason  string   `json:"reason"`  // why it was chosen
	By      string   `json:"by"`      // sfo, sfo_p or sattar
	Values  []Value  `json:"values"`
	// Hits are the matrix blocks its run executed.
	Hits []int `json:"-"`
}

// Cleared is a suspect the rating refinement took off the list.
type Cleared struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// Suggest searches for the inputs that sharpen the ranking of a failing
// fuzz target: sfo's failing inputs that avoid a line every failing run so
// far executes, sfo_p's passing inputs with new coverage, and SAT-TAR's
// inputs nearest the failing run on the suspects of its unsat core. Every
// input is run, and its run decides its outcome.
func Suggest(ctx context.Context, mod *testbuild.Module, req Request, opts Options) (*Result, error) {
	opts.defaults()
	start := time.Now()
	res := &Result{Target: req.Target, Package: req.Package, Status: Bounded, Inputs: []Input{}, Core: []analysis.Suspect{}, Suspects: []analysis.Suspect{}}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	listing, pkg, keys, err := mod.ListPackageKeys(ctx, req.Package)
	if err != nil {
		return nil, err
	}
	defer mod.Hasher().Save()
	targets, err := FuzzTargets(pkg.Dir, append(slices.Clone(pkg.TestGoFiles), pkg.XTestGoFiles...))
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(targets, func(t FuzzTarget) bool { return t.Name == req.Target })
	if i < 0 {
		return nil, fmt.Errorf("%s has no fuzz target %s whose fuzz function is a function literal or a function of the package taking supported arguments", req.Package, req.Target)
	}
	target := &targets[i]
	seed := slices.IndexFunc(req.Seeds, func(s Seed) bool { return s.Failing })
	if seed < 0 {
		return nil, fmt.Errorf("%s has no failing entry", req.Target)
	}
	res.Seed = req.Seeds[seed].Name
	work, remove, err := scratch.MkdirTemp("suggest-")
	if err != nil {
		return nil, err
	}
	defer remove()
	cb, err := newCoverBuild(ctx, mod, listing, keys, pkg, target, req.Blocks, work)
	if err != nil {
		return nil, err
	}
	cb.timeout = opts.RunTimeout
	sess, err := analysis.OpenInputs(ctx, mod, pkg.ImportPath, target.Callback(), analysis.InputOptions{
		RunTimeout: opts.RunTimeout,
		Edit:       func(o *testbuild.Overlay) error { return target.substitute(o, packageFiles(pkg), false) },
	})
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	s := newSearch(ctx, mod, cb, sess, target, pkg, req, opts, res, start.Add(opts.Budget))
	s.start, s.limit = start, 1
	err = s.run(req.Seeds[seed].Name)
	res.Runs = cb.runs + s.recorded
	if errors.Is(err, errBounded) {
		err = nil
	}
	return res, err
}

// errBounded stops a search that ran out of time or runs.
var errBounded = errors.New("the search reached its bounds")

// search is the state of one target's search.
type search struct {
	ctx      context.Context
	mod      *testbuild.Module
	cb       *coverBuild
	sess     *analysis.InputSession
	target   *FuzzTarget
	pkg      *testbuild.Package
	req      Request
	opts     Options
	res      *Result
	start    time.Time
	deadline time.Time
	limit    float64 // the share of the bounds the current phase may reach
	recorded int

	lines   []lineKey // the matrix's lines, by id
	lineID  map[lineKey]int32
	ofBlock map[int][]int32 // matrix block -> its lines

	leaf    string              // the failing entry every input runs through
	base    map[int]Value       // its arguments
	params  map[int]bool        // the arguments the formula models
	ran     map[string]*trial   // every input run, by its encoding
	order   []*trial            // in the order they ran
	entries []*trial            // the target's own entries
	added   map[string]bool     // inputs suggested
	failing []*trial            // the failing data: failing entries and failing inputs added
	passing []*trial            // the passing data: passing entries and passing inputs added
	flipped map[*trial][]*trial // inputs made by flipping a recorded run's path conditions
}

type lineKey struct {
	file string
	line int
}

// trial is one run of an input (or of an entry as it is).
type trial struct {
	name  string // the entry's leaf name, for an entry
	vals  map[int]Value
	out   *outcome
	cov   []int32  // lines executed, ascending
	sites []string // where it failed
	// An input made by flipping path condition flip of parent's run: its
	// own path conditions up to flip repeat the parent's (when the run
	// went where the formula said), so flipping them again gives nothing
	// new. depth counts such steps from a failing run.
	parent *trial
	flip   int
	depth  int
	conds  []analysis.Condition // its path conditions, once recorded
}

func newSearch(ctx context.Context, mod *testbuild.Module, cb *coverBuild, sess *analysis.InputSession, target *FuzzTarget, pkg *testbuild.Package, req Request, opts Options, res *Result, deadline time.Time) *search {
	s := &search{ctx: ctx, mod: mod, cb: cb, sess: sess, target: target, pkg: pkg, req: req, opts: opts, res: res, deadline: deadline,
		lineID: map[lineKey]int32{}, ofBlock: map[int][]int32{}, ran: map[string]*trial{}, added: map[string]bool{},
		params: map[int]bool{}, flipped: map[*trial][]*trial{}}
	for _, b := range req.Blocks {
		for _, l := range b.Lines {
			k := lineKey{b.File, l}
			id, ok := s.lineID[k]
			if !ok {
				id = int32(len(s.lines))
				s.lineID[k] = id
				s.lines = append(s.lines, k)
			}
			s.ofBlock[b.Index] = append(s.ofBlock[b.Index], id)
		}
	}
	for _, p := range sess.Params() {
		s.params[p.Index] = true
	}
	return s
}

// bounded reports whether the current phase has used its share of the
// bounds.
func (s *search) bounded() bool {
	if s.ctx.Err() != nil {
		return true
	}
	end := s.start.Add(time.Duration(s.limit * float64(s.deadline.Sub(s.start))))
	return time.Now().After(end) || float64(s.cb.runs+s.recorded) >= s.limit*float64(s.opts.MaxRuns)
}

// coverage turns a run's blocks into its lines.
func (s *search) coverage(hits []int) []int32 {
	seen := map[int32]bool{}
	var out []int32
	for _, b := range hits {
		for _, l := range s.ofBlock[b] {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}

// try runs an input through the failing entry, once.
func (s *search) try(vals map[int]Value) (*trial, error) {
	key := string(encodeInputs(vals))
	if t, ok := s.ran[key]; ok {
		return t, nil
	}
	if s.bounded() {
		return nil, errBounded
	}
	out, err := s.cb.run(s.ctx, s.leaf, vals)
	if err != nil {
		return nil, err
	}
	t := &trial{vals: vals, out: out, cov: s.coverage(out.Hits)}
	t.sites = s.failSites(out)
	s.ran[key] = t
	s.order = append(s.order, t)
	return t, nil
}

func (s *search) failSites(o *outcome) []string {
	if !o.Failing() {
		return nil
	}
	return failSites(o, s.pkg.Dir, s.mod.Root)
}

func (s *search) run(leaf string) error {
	s.leaf = leaf
	// The target's entries, as they are, in this build: the failing
	// entry first.
	names := []string{leaf}
	for _, e := range s.req.Seeds {
		if e.Name != leaf {
			names = append(names, e.Name)
		}
	}
	for _, name := range names {
		if s.bounded() {
			return errBounded
		}
		out, err := s.cb.run(s.ctx, name, nil)
		if err != nil {
			return err
		}
		t := &trial{name: name, vals: out.Args, out: out, cov: s.coverage(out.Hits)}
		t.sites = s.failSites(out)
		s.entries = append(s.entries, t)
		if out.Args != nil && name == leaf {
			s.ran[string(encodeInputs(out.Args))] = t
		}
		if out.Hits == nil {
			continue // died before writing its coverage: no evidence
		}
		if out.Failing() {
			s.failing = append(s.failing, t)
		} else {
			s.passing = append(s.passing, t)
		}
	}
	first := s.entries[0]
	if !first.out.Failing() {
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("%s passes when run again: nothing to sharpen", leaf))
		return nil
	}
	if first.out.Args == nil {
		return fmt.Errorf("%s did not enter the fuzz function", leaf)
	}
	s.base = first.out.Args
	if first.out.Hits == nil {
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("%s died before writing its coverage (a panic in another goroutine, an exit or a hang)", leaf))
		return nil
	}
	f, err := s.record(nil)
	if err != nil {
		return err
	}
	if f == nil {
		return nil
	}
	defer f.Close()
	// SAT-TAR's suspects first: the core needs no run.
	suspects, err := f.Core()
	if err != nil {
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("no unsat core: %v", err))
		suspects = nil
	}
	if len(suspects) > 0 {
		s.res.Core, s.res.Suspects = suspects, suspects
	} else if err == nil {
		s.res.Notes = append(s.res.Notes, "no unsat core: the failing check does not depend on values the formula models")
	}
	// The phases share the bounds: sfo may take 60 % of them, sfo_p
	// until 75 %, SAT-TAR the rest (and every run made before).
	phases := []struct {
		share float64
		run   func() error
	}{
		{0.6, func() error { return s.sfo(first, f) }},
		{0.75, s.sfoP},
		{1, func() error { return s.satTar(first, f) }},
	}
	for _, p := range phases {
		s.limit = p.share
		if err := p.run(); err != nil && !errors.Is(err, errBounded) {
			return err
		}
	}
	return nil
}

// record runs the failing entry with vals substituted (nil: as it is) in
// the recording build and replays it with the arguments as inputs. A run
// the formula cannot replay gives a note and a nil formula.
func (s *search) record(vals map[int]Value) (*analysis.PathFormula, error) {
	if s.bounded() {
		return nil, errBounded
	}
	var env []string
	if vals != nil {
		in := filepath.Join(s.cb.work, "record-input.txt")
		if err := os.WriteFile(in, encodeInputs(vals), 0o644); err != nil {
			return nil, fmt.Errorf("writing the input: %w", err)
		}
		env = append(env, inputEnv+"="+in)
	}
	s.recorded++
	rec, err := s.sess.Record(s.ctx, s.leaf, env)
	if err != nil {
		return nil, err
	}
	f, err := s.sess.Formula(rec, min(10*time.Second, max(time.Until(s.deadline), time.Second)))
	if err != nil {
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("a run of %s could not be replayed: %v", s.leaf, err))
		return nil, nil
	}
	return f, nil
}

// inputsOf converts a solver's values to arguments, the others taken from
// base.
func (s *search) inputsOf(base map[int]Value, vals []analysis.InputValue) map[int]Value {
	out := map[int]Value{}
	for i, v := range base {
		out[i] = v
	}
	for _, v := range vals {
		if b, ok := base[v.Index]; ok {
			b.Bits = v.Value
			out[v.Index] = b
		}
	}
	return out
}

// excluded lists the modelled arguments of every input run so far.
func (s *search) excluded() [][]analysis.InputValue {
	var out [][]analysis.InputValue
	for _, t := range s.order {
		var vec []analysis.InputValue
		for i, v := range t.vals {
			if s.params[i] {
				vec = append(vec, analysis.InputValue{Index: i, Value: v.Bits})
			}
		}
		out = append(out, vec)
	}
	for _, t := range s.entries {
		if t.vals == nil {
			continue
		}
		var vec []analysis.InputValue
		for i, v := range t.vals {
			if s.params[i] {
				vec = append(vec, analysis.InputValue{Index: i, Value: v.Bits})
			}
		}
		out = append(out, vec)
	}
	return out
}

// flips runs an input for each path condition of a recorded run after
// those its parent's run shares (up to MaxFlips), calling each with it;
// complete says every condition was tried and the solver answered for
// each.
func (s *search) flips(from *trial, f *analysis.PathFormula, each func(*trial) error) (complete bool, err error) {
	from.conds = f.Conditions()
	first := 0
	if p := from.parent; p != nil && p.conds != nil && len(from.conds) > from.flip && len(p.conds) > from.flip {
		flipped := p.conds[from.flip]
		flipped.Taken = !flipped.Taken
		if slices.Equal(from.conds[:from.flip], p.conds[:from.flip]) && from.conds[from.flip] == flipped {
			first = from.flip + 1
		}
	}
	n := len(from.conds)
	complete = true
	if n-first > s.opts.MaxFlips {
		n, complete = first+s.opts.MaxFlips, false
	}
	f.Restart()
	for i := first; i < n; i++ {
		if s.bounded() {
			return false, errBounded
		}
		vals, err := f.Flip(i, s.excluded())
		if errors.Is(err, analysis.ErrUnknown) {
			complete = false
			continue
		}
		if err != nil {
			return false, err
		}
		if vals == nil {
			continue
		}
		t, err := s.try(s.inputsOf(from.vals, vals))
		if err != nil {
			return false, err
		}
		if t.parent == nil && t.name == "" {
			t.parent, t.flip, t.depth = from, i, from.depth+1
		}
		s.flipped[from] = append(s.flipped[from], t)
		if err := each(t); err != nil {
			return false, err
		}
	}
	return complete, nil
}

// suggest adds an input to the result.
func (s *search) suggest(t *trial, by, reason string) {
	key := string(encodeInputs(t.vals))
	if s.added[key] {
		return
	}
	s.added[key] = true
	vals := s.ordered(t.vals)
	in := Input{Outcome: "pass", Reason: reason, By: by, Values: vals, Hits: t.out.Hits}
	if t.out.Failing() {
		in.Outcome = "fail"
	}
	for _, v := range vals {
		in.Args = append(in.Args, v.String())
	}
	in.File = filepath.ToSlash(filepath.Join("testdata", "fuzz", s.target.Name, CorpusName(MarshalCorpus(vals))))
	s.res.Inputs = append(s.res.Inputs, in)
}

// ordered lists arguments by parameter index.
func (s *search) ordered(vals map[int]Value) []Value {
	idx := make([]int, 0, len(vals))
	for i := range vals {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]Value, len(idx))
	for k, i := range idx {
		out[k] = vals[i]
	}
	return out
}

// names spells lines as file:line, at most max of them.
func (s *search) names(ids []int32, max int) string {
	var parts []string
	for k, id := range ids {
		if k == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(ids)-max))
			break
		}
		l := s.lines[id]
		parts = append(parts, fmt.Sprintf("%s:%d", l.file, l.line))
	}
	return strings.Join(parts, ", ")
}

// intersect and minus work on ascending line lists.
func intersect(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			out = append(out, x)
		}
	}
	return out
}

func minus(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
		}
	}
	return out
}

// wireResult is a Result whole, with each input's matrix blocks: the form
// results pass between processes and are cached in.
type wireResult struct {
	Result
	Hits [][]int `json:"hits"`
}

// MarshalResult encodes a result whole.
func MarshalResult(r *Result) ([]byte, error) {
	w := wireResult{Result: *r}
	for _, in := range r.Inputs {
		w.Hits = append(w.Hits, in.Hits)
	}
	data, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encoding the suggestions for %s: %w", r.Target, err)
	}
	return data, nil
}

// UnmarshalResult decodes what MarshalResult encoded.
func UnmarshalResult(data []byte) (*Result, error) {
	var w wireResult
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("decoding suggestions: %w", err)
	}
	if len(w.Hits) != len(w.Inputs) {
		return nil, fmt.Errorf("decoding suggestions: %d inputs with %d coverage lists", len(w.Inputs), len(w.Hits))
	}
	for i := range w.Inputs {
		w.Inputs[i].Hits = w.Hits[i]
	}
	return &w.Result, nil
}
