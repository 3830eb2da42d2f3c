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
	"time"
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
	scopeEvery         replaceScope = iota // every site: the formula could not reach the check
	scopeUnmodelled                        // the sites the formula does not model
	scopeIntegerValues                     // integer value sites off the lines of verified fixes
)

// fallBack is what follows the formula. When the formula could not reach
// the failing check (reached false), value replacement tries every site
// and predicate switching follows with at least a third of the time and
// of the runs left; when it could but verified nothing, value replacement
// tries the sites the formula does not model, and predicate switching
// follows if that verifies nothing either; when it verified a fix,
// replacement still tries the integer values the formula does not see
// (indices, slice bounds, literal operands), where an off-by-one hides
// from a formula that can only move the expressions around them.
func fallBack(ctx context.Context, prog *program, bin *testBinary, t Target, first *runResult, deadline time.Time, opts Options, res *TestResult, reached bool) error {
	scope := scopeEvery
	switch {
	case reached && hasVerified(res):
		scope = scopeIntegerValues
	case reached:
		scope = scopeUnmodelled
	}
	saved := bin.deadline
	share := opts
	if scope != scopeIntegerValues {
		// Predicate switching follows: it keeps a third of the time and of
		// the runs left.
		share, bin.deadline = bin.share(opts, deadline, 2, 3)
	}
	err := replaceValues(ctx, prog, bin, t, share, scope, res)
	bin.deadline = saved
	if errors.Is(err, errBudget) && time.Now().Before(deadline) {
		res.Notes = append(res.Notes, "value replacement cut by its share of the time budget")
		err = nil
	}
	if err != nil || scope == scopeIntegerValues || scope == scopeUnmodelled && hasVerified(res) {
		return err
	}
	return switchPredicates(ctx, prog, bin, t, first, deadline, opts, res)
}

// share is num/den of the runs and of the time left before deadline: the
// options bounding that many more runs, and the time it ends.
func (b *testBinary) share(opts Options, deadline time.Time, num, den int) (Options, time.Time) {
	opts.MaxRuns = b.runs + max(opts.MaxRuns-b.runs, 0)*num/den
	return opts, time.Now().Add(time.Until(deadline) * time.Duration(num) / time.Duration(den))
}

func hasVerified(res *TestResult) bool {
	for _, c := range res.Candidates {
		if c.Verified {
			return true
		}
	}
	return false
}

// replaceable is a site of non-test code the failing run executed.
type replaceable struct {
	s    *site
	last int // where its last instance ran: 2i+1 after trace event i, 2n for a value site after n trace events
	// A site of the formula: every instance and its value (a string's or
	// byte slice's in strs; opaque when the last was too long to record).
	insts  []instance
	values []int64
	strs   []string
	opaque bool
	// A value site: its last instance and value, and whether it ran more
	// than once.
	inst  instance
	value string
	many  bool
}

// trial is one forced run: values at one site.
type trial struct {
	s            *site
	force        []forcedValue
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
func replaceValues(ctx context.Context, prog *program, bin *testBinary, t Target, opts Options, scope replaceScope, res *TestResult) error {
	failing, sum, err := bin.recordValues(ctx, t.Test, true)
	if err != nil {
		return err
	}
	if failing.passed || failing.truncated {
		return nil
	}
	all := scope == scopeEvery
	sites := replaceables(prog, failing.trace, sum, all, all || scope == scopeUnmodelled && !opts.Strings)
	if scope == scopeIntegerValues {
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
func replaceables(prog *program, trace []event, sum map[int32]*siteSummary, all, seqs bool) []*replaceable {
	byID := map[int32]*replaceable{}
	var out []*replaceable
	if all || seqs {
		for i, ev := range trace {
			if ev.site < 0 || int(ev.site) >= len(prog.sites) {
				continue
			}
			s := prog.sites[ev.site]
			if s.hard || s.kind == kindValue || !forcible[s.kind] || valueKind(s.typ) == 0 || !all && !isSeq(s.typ) && !isAggregate(s.typ) {
				continue
			}
			r := byID[s.id]
			if r == nil {
				r = &replaceable{s: s}
				byID[s.id] = r
				out = append(out, r)
			}
			r.insts, r.values, r.last = append(r.insts, ev.inst), append(r.values, ev.value), 2*i+1
			r.strs, r.opaque = append(r.strs, ev.str), ev.opaque
		}
	}
	for id, v := range sum {
		if id < 0 || int(id) >= len(prog.sites) {
			continue
		}
		s := prog.sites[id]
		if s.hard || s.kind != kindValue || v.value == "" {
			continue
		}
		n := 0
		for _, c := range v.counts {
			n += c
		}
		out = append(out, &replaceable{s: s, last: 2 * v.seq, inst: v.last, value: v.value, many: n > 1})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].last != out[j].last {
			return out[i].last > out[j].last
		}
		return out[i].s.id > out[j].s.id
	})
	return out
}

// integerValueSites keeps the integer value sites on lines that host no
// verified candidate yet.
func integerValueSites(sites []*replaceable, res *TestResult) []*replaceable {
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
		if r.s.kind == kindValue && valueKind(r.s.typ) == 'i' && !fixed[line{r.s.file, r.s.pos.Line}] {
			out = append(out, r)
		}
	}
	return out
}

// passingValues records the values of passing tests of the package: those
// the target names (the most similar first), or else the top-level tests
// whose names share the longest prefix with the failing one's. It returns
// the distinct values per site with their counts, and how many passing
// runs gave them. Recording takes at most a third of the time left.
func passingValues(ctx context.Context, bin *testBinary, t Target, opts Options) (map[int32]map[string]int, int, error) {
	stop := time.Now().Add(time.Until(bin.deadline) / 3)
	names := opts.Passing[PassingKey(t)]
	if len(names) == 0 {
		listed, err := bin.listTests(ctx)
		if err != nil {
			return nil, 0, err
		}
		names = similarTests(listed, t.Test)
	}
	out := map[int32]map[string]int{}
	runs := 0
	for _, name := range names {
		if runs >= maxPassingRuns || bin.runs >= opts.MaxRuns || time.Now().After(stop) {
			break
		}
		run, sum, err := bin.recordValues(ctx, name, false)
		if err != nil {
			return nil, 0, err
		}
		if !run.passed {
			continue
		}
		runs++
		for id, s := range sum {
			m := out[id]
			if m == nil {
				m = map[string]int{}
				out[id] = m
			}
			for i, v := range s.distinct {
				m[v] += s.counts[i]
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
		case r.s.kind == kindValue:
			out = append(out, valueTrials(r, passing[r.s.id])...)
		case isSeq(r.s.typ) || isAggregate(r.s.typ):
			// A slice, struct or map the formula models is recorded as
			// bytes too: the values of passing runs, or empty.
			out = append(out, seqTrials(r, passing[r.s.id])...)
		default:
			out = append(out, numericTrials(r, passing[r.s.id])...)
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
			force: []forcedValue{{Site: r.s.id, Act: r.inst.act, Local: r.inst.local, Payload: v}}})
	}
	switch valueKind(r.s.typ) {
	case 'b':
		// A condition is first negated at every instance.
		out = append(out, forcedEvery(r.s, was, negation(r.s), forcedValue{Payload: "!"}))
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
			out = append(out, forcedEvery(r.s, was, angelic, forcedValue{Payload: fmt.Sprintf("+%d", by)}))
		}
	}
	n := 0
	for _, v := range byCount(passing) {
		if n < maxPassingValues && !tried[v] {
			add(v)
			n++
		}
	}
	for _, v := range neighbours(r.s.typ, r.value) {
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
			angelic = render(s, v)
		}
		inst := r.insts[last]
		out = append(out, trial{s: s, was: render(s, r.values[last]), angelic: angelic,
			force: []forcedValue{{Site: s.id, Act: inst.act, Local: inst.local, Value: v}}})
	}
	every := func(f func(int64) int64, angelic string) {
		if len(r.insts) == 1 {
			one(f(r.values[0]), "")
			return
		}
		var force []forcedValue
		changed := false
		for i, inst := range r.insts {
			v := f(r.values[i])
			changed = changed || v != r.values[i]
			force = append(force, forcedValue{Site: s.id, Act: inst.act, Local: inst.local, Value: v})
		}
		if changed && !tried[angelic] {
			tried[angelic] = true
			out = append(out, trial{s: s, was: renderSome(s, r.values), angelic: angelic, force: force})
		}
	}
	// wildcard forces every instance, those after the recorded run ended
	// (at a t.Fatal or a panic) included: the edit its angelic text shows
	// changes them all.
	wildcard := func(angelic string, f forcedValue) {
		if !tried[angelic] {
			tried[angelic] = true
			out = append(out, forcedEvery(s, renderSome(s, r.values), angelic, f))
		}
	}
	switch valueKind(s.typ) {
	case 'e': // nil-ness: nil for an error, an error for nil
		one(boolValue(r.values[last] == 0).n, "")
		return out
	case 'b':
		wildcard(negation(s), forcedValue{Payload: "!"})
		if len(r.insts) > 1 { // one instance: predicate switching flips it
			wildcard("true", forcedValue{Value: 1})
			wildcard("false", forcedValue{Value: 0})
		}
		return out
	case 'i':
		for _, by := range []int64{1, -1} {
			angelic := shiftedValue(s, by)
			if len(r.insts) == 1 {
				angelic = render(s, r.values[0]+by) // the value its one instance took
				tried[fmt.Sprint("one ", r.values[0]+by)] = true
			}
			wildcard(angelic, forcedValue{Payload: fmt.Sprintf("+%d", by)})
		}
		if len(r.insts) > 1 {
			one(r.values[last]+1, "")
			one(r.values[last]-1, "")
		}
	case 'f':
		step := func(d float64) func(int64) int64 {
			return func(v int64) int64 { return floatValue(s.typ, floatOf(s.typ, value{n: v})+d).n }
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
func shifted(s *site, by string) string {
	if s.kind == kindIncDec {
		name := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s.text, "++"), "--"))
		step := 1 // what the statement adds
		if s.op == token.DEC {
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
	text := s.text
	if _, lit := s.expr.(*ast.BasicLit); !lit && !token.IsIdentifier(text) {
		text = "(" + text + ")" // a site may stand for a name without an expression of its own
	}
	return text + " " + by
}

// everyInstance in a forced value's Act and Local forces every instance of
// its site (the runtime's EveryInstance).
const everyInstance = -1

// forcedEvery is the trial that forces f (a value, a shift or a negation)
// at every instance of s.
func forcedEvery(s *site, was, angelic string, f forcedValue) trial {
	f.Site, f.Act, f.Local = s.id, everyInstance, everyInstance
	return trial{s: s, was: was, angelic: angelic, force: []forcedValue{f}}
}

// shiftedValue is the edit that moves an integer value site by one at every
// instance: the literal itself when the site is one.
func shiftedValue(s *site, by int64) string {
	if lit, ok := s.expr.(*ast.BasicLit); ok && lit.Kind == token.INT {
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
func renderSome(s *site, values []int64) string {
	var parts []string
	for i, v := range values {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, render(s, v))
	}
	return strings.Join(parts, ", ")
}

// testEnterSite is the enter site of the test function the leaf test is
// in, -1 when it is not instrumented (or not unique).
func testEnterSite(prog *program, test string) int32 {
	top, _, _ := strings.Cut(test, "/")
	id := int32(-1)
	for _, f := range prog.funcs {
		if f.hard && f.name == top {
			if id >= 0 {
				return -1
			}
			id = f.enter
		}
	}
	return id
}

// runReplacements runs the trials, batched when the test allows it, until
// the trials, the runs or the time run out, and adds a candidate for each
// site whose replacement made the test pass in a run of its own.
func runReplacements(ctx context.Context, prog *program, bin *testBinary, t Target, trials []trial, opts Options, res *TestResult) (tried, found int, batched bool, err error) {
	trialSite := testEnterSite(prog, t.Test)
	batching := trialSite >= 0 && !bin.oneByOne
	everBatched := false
	fixed := map[int32]bool{}
	queue := trials
	confirm := func(tr trial) error {
		if fixed[tr.s.id] {
			return nil
		}
		run, err := bin.run(ctx, t.Test, tr.force)
		if err != nil || !run.passed {
			return err
		}
		fixed[tr.s.id] = true
		found++
		res.Candidates = append(res.Candidates, Candidate{Verified: true, Found: FoundByReplacement, force: tr.force,
			Locations: []Location{{File: tr.s.file, Line: tr.s.pos.Line, Col: tr.s.pos.Column, EndLine: tr.s.end.Line,
				EndCol: tr.s.end.Column, Expr: tr.s.text, Original: tr.was, Angelic: tr.angelic}}})
		return nil
	}
	for len(queue) > 0 {
		if fixed[queue[0].s.id] {
			queue = queue[1:]
			continue
		}
		if tried >= maxReplaceTrials || bin.runs >= opts.MaxRuns {
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
		forces := make([][]forcedValue, len(batch))
		for i, tr := range batch {
			forces[i] = tr.force
		}
		out, err := bin.runTrials(ctx, t.Test, trialSite, forces, bin.timeout)
		if err != nil && !errors.Is(err, errBudget) {
			return tried, found, everBatched, err
		}
		if out.untrusted {
			// Repetitions in one process do not behave as fresh runs:
			// every trial gets a process of its own from here on.
			batching = false
			res.Notes = append(res.Notes, "value replacement runs one replacement per process: repeated runs of the test in one process do not fail as a fresh one does")
			continue
		}
		everBatched = true
		for i, passed := range out.passed {
			tried++
			if passed {
				if err := confirm(batch[i]); err != nil {
					return tried, found, everBatched, err
				}
			}
		}
		queue = queue[len(out.passed):]
		if err != nil {
			return tried, found, everBatched, err
		}
	}
	return tried, found, everBatched, nil
}
