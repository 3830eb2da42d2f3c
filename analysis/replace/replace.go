package replace

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Bounds of value replacement for one failing test, beside the budget and
// Options.MaxRuns (which count its processes like every other run).
const (
	maxReplaceTrials = 400 // forced runs of the test, batched or not
	maxPassingRuns   = 3   // passing tests whose values are recorded
	maxPassingValues = 3   // values of passing runs tried per site
	trialsPerBatch   = 40  // forced runs in one process
)

// replaceScope says which executed sites value replacement tries.
type replaceScope int

const (
	ScopeEvery         replaceScope = iota // every site: the formula could not reach the check
	ScopeUnmodelled                        // the sites the formula does not model
	ScopeIntegerValues                     // integer value sites off the lines of verified fixes
)

// replaceable is a site of non-test code the failing run executed.
type replaceable struct {
	s    *instrument.Site
	last int // where its last instance ran: 2i+1 after trace event i, 2n for a value site after n trace events
	// A site of the formula: every instance and its value (a string's or
	// byte slice's in strs; opaque when the last was too long to record).
	insts  []instrument.Instance
	values []int64
	strs   []string
	opaque bool
	// A value site: its last instance and value, and whether it ran more
	// than once.
	inst  instrument.Instance
	value string
	many  bool
}

// trial is one forced run: values at one site.
type trial struct {
	s            *instrument.Site
	force        []instrument.ForcedValue
	was, angelic string
}

// replaceValues is value replacement (after Jeffrey, Gupta and Gupta,
// ISSTA 2008): one site at a time, latest executed first, the failing test
// runs with the site's value replaced by one the same site produced in
// passing runs, or by a simple neighbour (±1 for integers and floats, true
// or false for every instance of a condition, the empty string, nil, the
// zero value); each replacement that makes the test pass, confirmed by a
// run of its own, is a verified single-location candidate. The scope says
// which sites are tried.
func ReplaceValues(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, opts result.Options, scope replaceScope, res *result.TestResult) error {
	failing, sum, err := bin.RecordValues(ctx, t.Test, true)
	if err != nil {
		return err
	}
	if failing.Passed || failing.Truncated {
		return nil
	}
	all := scope == ScopeEvery
	sites := replaceables(prog, failing.Trace, sum, all, all || scope == ScopeUnmodelled && !opts.Strings)
	if scope == ScopeIntegerValues {
		sites = integerValueSites(sites, res)
	}
	if len(sites) == 0 {
		return nil
	}
	passing, runs, err := passingValues(ctx, bin, t, opts)
	if err != nil {
		return err
	}
	trials := makeTrials(sites, passing)
	tried, found, batched, err := runReplacements(ctx, prog, bin, t, trials, opts, res)
	mode := "one per run"
	if batched {
		mode = fmt.Sprintf("up to %d per run", trialsPerBatch)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("value replacement: %d of %d replacements tried (%s) at %d sites, values of %d passing runs; %d made the test pass",
		tried, len(trials), mode, len(sites), runs, found))
	return err
}

// replaceables lists the sites of non-test code the failing run executed,
// the last executed first: value sites, and the formula's sites too when
// all is set, or only its string and byte slice sites when seqs is (the
// formula takes those as recorded unless Options.Strings).
func replaceables(prog *instrument.Program, trace []instrument.Event, sum map[int32]*instrument.SiteSummary, all, seqs bool) []*replaceable {
	byID := map[int32]*replaceable{}
	var out []*replaceable
	if all || seqs {
		for i, ev := range trace {
			if ev.Site < 0 || int(ev.Site) >= len(prog.Sites) {
				continue
			}
			s := prog.Sites[ev.Site]
			if s.Hard || s.Kind == instrument.KindValue || !instrument.Forcible[s.Kind] || instrument.ValueKind(s.Typ) == 0 || !all && !instrument.IsSeq(s.Typ) && !instrument.IsAggregate(s.Typ) {
				continue
			}
			r := byID[s.Id]
			if r == nil {
				r = &replaceable{s: s}
				byID[s.Id] = r
				out = append(out, r)
			}
			r.insts, r.values, r.last = append(r.insts, ev.Inst), append(r.values, ev.Value), 2*i+1
			r.strs, r.opaque = append(r.strs, ev.Str), ev.Opaque
		}
	}
	for id, v := range sum {
		if id < 0 || int(id) >= len(prog.Sites) {
			continue
		}
		s := prog.Sites[id]
		if s.Hard || s.Kind != instrument.KindValue || v.Value == "" {
			continue
		}
		n := 0
		for _, c := range v.Counts {
			n += c
		}
		out = append(out, &replaceable{s: s, last: 2 * v.Seq, inst: v.Last, value: v.Value, many: n > 1})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].last != out[j].last {
			return out[i].last > out[j].last
		}
		return out[i].s.Id > out[j].s.Id
	})
	return out
}

// integerValueSites keeps the integer value sites on lines that host no
// verified candidate yet.
func integerValueSites(sites []*replaceable, res *result.TestResult) []*replaceable {
	type line struct {
		file string
		line int
	}
	fixed := map[line]bool{}
	for _, c := range res.Candidates {
		if c.Verified {
			for _, l := range c.Locations {
				fixed[line{l.File, l.Line}] = true
			}
		}
	}
	var out []*replaceable
	for _, r := range sites {
		if r.s.Kind == instrument.KindValue && instrument.ValueKind(r.s.Typ) == 'i' && !fixed[line{r.s.File, r.s.Pos.Line}] {
			out = append(out, r)
		}
	}
	return out
}

// passingValues records the values of passing tests of the package: those
// the target names (the most similar first), or else the top-level tests
// whose names share the longest prefix with the failing one's. It returns
// the distinct values per site with their counts, and how many passing
// runs gave them. Recording takes at most a third of the runs left (a
// count, not a time, so that load does not change what is recorded).
func passingValues(ctx context.Context, bin *instrument.TestBinary, t testbuild.Target, opts result.Options) (map[int32]map[string]int, int, error) {
	stop := bin.Runs + max(opts.MaxRuns-bin.Runs, 0)/3
	names := opts.Passing[result.PassingKey(t)]
	if len(names) == 0 {
		listed, err := bin.ListTests(ctx)
		if err != nil {
			return nil, 0, err
		}
		names = similarTests(listed, t.Test)
	}
	out := map[int32]map[string]int{}
	runs := 0
	for _, name := range names {
		if runs >= maxPassingRuns || bin.Runs >= opts.MaxRuns || bin.Runs >= stop {
			break
		}
		run, sum, err := bin.RecordValues(ctx, name, false)
		if err != nil {
			return nil, 0, err
		}
		if !run.Passed {
			continue
		}
		runs++
		for id, s := range sum {
			m := out[id]
			if m == nil {
				m = map[string]int{}
				out[id] = m
			}
			for i, v := range s.Distinct {
				m[v] += s.Counts[i]
			}
		}
	}
	return out, runs, nil
}

// similarTests orders the top-level tests other than the failing test's
// own by the length of the prefix their names share with it.
func similarTests(listed []string, test string) []string {
	top, _, _ := strings.Cut(test, "/")
	shared := func(name string) int {
		n := 0
		for n < len(name) && n < len(top) && name[n] == top[n] {
			n++
		}
		return n
	}
	var out []string
	for _, name := range listed {
		if name != top {
			out = append(out, name)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return shared(out[i]) > shared(out[j]) })
	return out
}

// makeTrials lists the replacements to try, site by site in the order
// given, each site's most promising first.
func makeTrials(sites []*replaceable, passing map[int32]map[string]int) []trial {
	var out []trial
	for _, r := range sites {
		switch {
		case r.s.Kind == instrument.KindValue:
			out = append(out, valueTrials(r, passing[r.s.Id])...)
		case instrument.IsSeq(r.s.Typ) || instrument.IsAggregate(r.s.Typ):
			// A slice, struct or map the formula models is recorded as
			// bytes too: the values of passing runs, or empty.
			out = append(out, seqTrials(r, passing[r.s.Id])...)
		default:
			out = append(out, numericTrials(r, passing[r.s.Id])...)
		}
	}
	return out
}

// byCount orders the values of passing runs, the most frequent first.
func byCount(values map[string]int) []string {
	out := make([]string, 0, len(values))
	for v := range values {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if values[out[i]] != values[out[j]] {
			return values[out[i]] > values[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

func valueTrials(r *replaceable, passing map[string]int) []trial {
	tried := map[string]bool{r.value: true, "?": true}
	was := renderPayload(r.s, r.value)
	var out []trial
	add := func(v string) {
		if tried[v] {
			return
		}
		tried[v] = true
		out = append(out, trial{s: r.s, was: was, angelic: renderPayload(r.s, v),
			force: []instrument.ForcedValue{{Site: r.s.Id, Act: r.inst.Act, Local: r.inst.Local, Payload: v}}})
	}
	switch instrument.ValueKind(r.s.Typ) {
	case 'b':
		// A condition is first negated at every instance.
		out = append(out, forcedEvery(r.s, was, negation(r.s), instrument.ForcedValue{Payload: "!"}))
	case 'i':
		// An integer is first moved by one at every instance: an
		// off-by-one in an index, a bound or a literal is wrong each time
		// it runs, and a site that ran once in a run cut short (by a
		// panic, or t.Fatal) may run again once it is right.
		for _, by := range []int64{1, -1} {
			angelic := shiftedValue(r.s, by)
			if v, ok := movedPayload(r.value, by); ok && !r.many {
				// It ran once: the value that instance took, which
				// trying it alone would repeat.
				angelic = renderPayload(r.s, v)
				tried[v] = true
			}
			out = append(out, forcedEvery(r.s, was, angelic, instrument.ForcedValue{Payload: fmt.Sprintf("+%d", by)}))
		}
	}
	n := 0
	for _, v := range byCount(passing) {
		if n < maxPassingValues && !tried[v] {
			add(v)
			n++
		}
	}
	for _, v := range neighbours(r.s.Typ, r.value) {
		add(v)
	}
	return out
}

func numericTrials(r *replaceable, passing map[string]int) []trial {
	s := r.s
	last := len(r.insts) - 1
	var out []trial
	tried := map[string]bool{}
	one := func(v int64, angelic string) {
		k := fmt.Sprint("one ", v)
		if tried[k] || v == r.values[last] {
			return
		}
		tried[k] = true
		if angelic == "" {
			angelic = instrument.Render(s, v)
		}
		inst := r.insts[last]
		out = append(out, trial{s: s, was: instrument.Render(s, r.values[last]), angelic: angelic,
			force: []instrument.ForcedValue{{Site: s.Id, Act: inst.Act, Local: inst.Local, Value: v}}})
	}
	every := func(f func(int64) int64, angelic string) {
		if len(r.insts) == 1 {
			one(f(r.values[0]), "")
			return
		}
		var force []instrument.ForcedValue
		changed := false
		for i, inst := range r.insts {
			v := f(r.values[i])
			changed = changed || v != r.values[i]
			force = append(force, instrument.ForcedValue{Site: s.Id, Act: inst.Act, Local: inst.Local, Value: v})
		}
		if changed && !tried[angelic] {
			tried[angelic] = true
			out = append(out, trial{s: s, was: renderSome(s, r.values), angelic: angelic, force: force})
		}
	}
	// wildcard forces every instance, those after the recorded run ended
	// (at a t.Fatal or a panic) included: the edit its angelic text shows
	// changes them all.
	wildcard := func(angelic string, f instrument.ForcedValue) {
		if !tried[angelic] {
			tried[angelic] = true
			out = append(out, forcedEvery(s, renderSome(s, r.values), angelic, f))
		}
	}
	switch instrument.ValueKind(s.Typ) {
	case 'e': // nil-ness: nil for an error, an error for nil
		one(instrument.BoolValue(r.values[last] == 0).N, "")
		return out
	case 'b':
		wildcard(negation(s), instrument.ForcedValue{Payload: "!"})
		if len(r.insts) > 1 { // one instance: predicate switching flips it
			wildcard("true", instrument.ForcedValue{Value: 1})
			wildcard("false", instrument.ForcedValue{Value: 0})
		}
		return out
	case 'i':
		for _, by := range []int64{1, -1} {
			angelic := shiftedValue(s, by)
			if len(r.insts) == 1 {
				angelic = instrument.Render(s, r.values[0]+by) // the value its one instance took
				tried[fmt.Sprint("one ", r.values[0]+by)] = true
			}
			wildcard(angelic, instrument.ForcedValue{Payload: fmt.Sprintf("+%d", by)})
		}
		if len(r.insts) > 1 {
			one(r.values[last]+1, "")
			one(r.values[last]-1, "")
		}
	case 'f':
		step := func(d float64) func(int64) int64 {
			return func(v int64) int64 {
				return instrument.FloatValue(s.Typ, instrument.FloatOf(s.Typ, instrument.Value{N: v})+d).N
			}
		}
		every(step(1), shifted(s, "+ 1"))
		every(step(-1), shifted(s, "- 1"))
	}
	n := 0
	for _, text := range byCount(passing) {
		if v, err := strconv.ParseInt(text, 10, 64); err == nil && n < maxPassingValues && v != r.values[last] {
			one(v, "")
			n++
		}
	}
	one(0, "") // zero in every kind's encoding
	return out
}

// shifted is the expression of a site moved by one, as its edit: x - 1
// for a right-hand side, i += 2 for i++.
func shifted(s *instrument.Site, by string) string {
	if s.Kind == instrument.KindIncDec {
		name := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s.Text, "++"), "--"))
		step := 1 // what the statement adds
		if s.Op == token.DEC {
			step = -1
		}
		if by == "+ 1" {
			step++
		} else {
			step--
		}
		if step < 0 {
			return fmt.Sprintf("%s -= %d", name, -step)
		}
		return fmt.Sprintf("%s += %d", name, step)
	}
	text := s.Text
	if _, lit := s.Expr.(*ast.BasicLit); !lit && !token.IsIdentifier(text) {
		text = "(" + text + ")" // a site may stand for a name without an expression of its own
	}
	return text + " " + by
}

// everyInstance in a forced value's Act and Local forces every instance of
// its site (the runtime's EveryInstance).
const everyInstance = -1

// forcedEvery is the trial that forces f (a value, a shift or a negation)
// at every instance of s.
func forcedEvery(s *instrument.Site, was, angelic string, f instrument.ForcedValue) trial {
	f.Site, f.Act, f.Local = s.Id, everyInstance, everyInstance
	return trial{s: s, was: was, angelic: angelic, force: []instrument.ForcedValue{f}}
}

// shiftedValue is the edit that moves an integer value site by one at every
// instance: the literal itself when the site is one.
func shiftedValue(s *instrument.Site, by int64) string {
	if lit, ok := s.Expr.(*ast.BasicLit); ok && lit.Kind == token.INT {
		if n, err := strconv.ParseInt(lit.Value, 0, 64); err == nil {
			return strconv.FormatInt(n+by, 10)
		}
	}
	if by > 0 {
		return shifted(s, "+ 1")
	}
	return shifted(s, "- 1")
}

// renderSome renders the first values of a site's instances.
func renderSome(s *instrument.Site, values []int64) string {
	var parts []string
	for i, v := range values {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, instrument.Render(s, v))
	}
	return strings.Join(parts, ", ")
}

// testEnterSite is the enter site of the test function the leaf test is
// in, -1 when it is not instrumented (or not unique).
func testEnterSite(prog *instrument.Program, test string) int32 {
	top, _, _ := strings.Cut(test, "/")
	id := int32(-1)
	for _, f := range prog.Funcs {
		if f.Hard && f.Name == top {
			if id >= 0 {
				return -1
			}
			id = f.Enter
		}
	}
	return id
}

// runReplacements runs the trials, batched when the test allows it, until
// the trials, the runs or the time run out, and adds a candidate for each
// site whose replacement made the test pass in a run of its own.
func runReplacements(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, trials []trial, opts result.Options, res *result.TestResult) (tried, found int, batched bool, err error) {
	trialSite := testEnterSite(prog, t.Test)
	batching := trialSite >= 0 && !bin.OneByOne
	everBatched := false
	fixed := map[int32]bool{}
	queue := trials
	confirm := func(tr trial) error {
		if fixed[tr.s.Id] {
			return nil
		}
		run, err := bin.Run(ctx, t.Test, tr.force)
		if err != nil || !run.Passed {
			return err
		}
		fixed[tr.s.Id] = true
		found++
		res.Candidates = append(res.Candidates, result.Candidate{Verified: true, Found: result.FoundByReplacement, Force: tr.force,
			Locations: []result.Location{{File: tr.s.File, Line: tr.s.Pos.Line, Col: tr.s.Pos.Column, EndLine: tr.s.End.Line,
				EndCol: tr.s.End.Column, Expr: tr.s.Text, Original: tr.was, Angelic: tr.angelic}}})
		return nil
	}
	for len(queue) > 0 {
		if fixed[queue[0].s.Id] {
			queue = queue[1:]
			continue
		}
		if tried >= maxReplaceTrials || bin.Runs >= opts.MaxRuns {
			res.Notes = append(res.Notes, "value replacement cut by the run bound")
			break
		}
		if ctx.Err() != nil {
			return tried, found, everBatched, ctx.Err()
		}
		if !batching {
			tr := queue[0]
			queue = queue[1:]
			tried++
			if err := confirm(tr); err != nil {
				return tried, found, everBatched, err
			}
			continue
		}
		var batch []trial
		for _, tr := range queue {
			if len(batch) == min(trialsPerBatch, maxReplaceTrials-tried) {
				break
			}
			batch = append(batch, tr)
		}
		forces := make([][]instrument.ForcedValue, len(batch))
		for i, tr := range batch {
			forces[i] = tr.force
		}
		out, err := bin.RunTrials(ctx, t.Test, trialSite, forces, bin.Timeout)
		if err != nil && !errors.Is(err, instrument.ErrBudget) {
			return tried, found, everBatched, err
		}
		if out.Untrusted {
			// Repetitions in one process do not behave as fresh runs:
			// every trial gets a process of its own from here on.
			batching = false
			res.Notes = append(res.Notes, "value replacement runs one replacement per process: repeated runs of the test in one process do not fail as a fresh one does")
			continue
		}
		everBatched = true
		for i, passed := range out.Passed {
			tried++
			if passed {
				if err := confirm(batch[i]); err != nil {
					return tried, found, everBatched, err
				}
			}
		}
		queue = queue[len(out.Passed):]
		if err != nil {
			return tried, found, everBatched, err
		}
	}
	return tried, found, everBatched, nil
}
