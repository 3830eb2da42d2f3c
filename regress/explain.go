package regress

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Options steer and bound the explanation of one failing test.
type Options struct {
	// Base is the revision to compare with; "" finds it by bisecting the
	// first-parent history.
	Base string
	// RunTimeout bounds one run of the test (default 60s); Budget the
	// dynamic step of one test (default 10m); MaxReruns its runs
	// (default 200); MaxCommits how far back bisecting looks (default
	// 5000).
	RunTimeout time.Duration
	Budget     time.Duration
	MaxReruns  int
	MaxCommits int
	// RecordTimeout bounds recording the failing run for the semantic
	// step (default half of Budget, which it counts against): on a large
	// package instrumenting and building can take the whole budget, and
	// the fallback then has none left.
	RecordTimeout time.Duration
	// Executed are the lines the failing test executed (its spectrum), for
	// the fallback when no cause holds the responsible change; nil takes
	// the statements the recorded run executed.
	Executed []Line
	// Passing counts, for each line of Executed, the passing tests that
	// executed it too (nil: not known): among changes that reverts
	// cannot tell apart, those the failing run executes and the fewest
	// passing tests do are the roots.
	Passing []int
	// Semantic bounds the recorded run and its cores.
	Semantic analysis.Options
	// Strategy is "after" (the default: semantic causes, then delta
	// debugging over their changes) or "ddmin" (plain delta debugging
	// over every change, for comparison).
	Strategy string
	// Progress, when set, hears what the explanation is doing.
	Progress func(string)
	// SkipCauses, when set, leaves AFTER's semantic step out and gives
	// the reason: the explanation falls back to delta debugging at once
	// and reports this reason for having no root among the causes. A
	// caller whose earlier attempt ran out of memory computing the causes
	// sets it to NoRootMemory.
	SkipCauses NoRootReason
	// Trace, when set, times the explanation's phases into
	// Explanation.Phases (FAULTLINE_DEBUG): where the time goes.
	Trace bool
	// alwaysRecord keeps the semantic step even where a few changes'
	// reverts one at a time give the root: tests of the causes and of
	// the fallback set it on their fixtures of two or three changes.
	alwaysRecord bool
}

// Line is one source line, relative to the module root.
type Line struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (o *Options) defaults() {
	if o.RunTimeout <= 0 {
		o.RunTimeout = 60 * time.Second
	}
	if o.Budget <= 0 {
		o.Budget = 10 * time.Minute
	}
	if o.MaxReruns <= 0 {
		o.MaxReruns = 200
	}
	if o.MaxCommits <= 0 {
		o.MaxCommits = 5000
	}
	if o.RecordTimeout <= 0 {
		o.RecordTimeout = o.Budget / 2
	}
	if o.Strategy == "" {
		o.Strategy = "after"
	}
}

// Explanation is a failing test explained from the history: the changes
// since the base responsible for the failure and how they reach it.
type Explanation struct {
	Test    string `json:"test"`
	Package string `json:"package"`
	// Base is the commit compared with; BaseFound says "given" or
	// "bisected", FirstBad names the first commit (first parent) at
	// which the test fails, when bisected ("" when only uncommitted
	// edits are responsible).
	Base        string `json:"base"`
	BaseSubject string `json:"baseSubject,omitempty"`
	BaseFound   string `json:"baseFound,omitempty"`
	FirstBad    string `json:"firstBad,omitempty"`
	// Bisected counts the commits built and run to find the base, and
	// those whose verdict came from the cache.
	Bisected       int `json:"bisected"`
	BisectedCached int `json:"bisectedCached"`
	// Changes are the root changes, then the auxiliary ones.
	Changes []Change `json:"changes"`
	// Cause is the chain from the responsible change to the failed check;
	// Tree the causes it is made of.
	Cause []CauseStep `json:"cause"`
	Tree  []CauseNode `json:"tree,omitempty"`
	// Total counts the candidate hunks between the base and the working
	// tree; Kept the changed files left as they are (tests, test data,
	// other files).
	Total int      `json:"total"`
	Kept  []string `json:"kept,omitempty"`
	// Neutral counts the hunks that change no behaviour (formatting,
	// comments, parentheses, renamed locals, the order of imports, a
	// constant written differently): they are never reverted, so never a
	// root.
	Neutral int `json:"neutral,omitempty"`
	// Reruns counts the runs of the test with a revert applied, Builds
	// the builds of reverts (a revert that does not compile is built but
	// not run).
	Reruns int `json:"reruns"`
	Builds int `json:"builds"`
	// TypeChecks counts the reverts whose compiling the type checker
	// decided in process, without a build.
	TypeChecks int `json:"typeChecks,omitempty"`
	// Found says which step found the root changes: "cause" (the
	// semantic causes' changes), "executed" (the changes the failing run
	// executes), "all" (every change), "ddmin", "only" (the one
	// change there is, without a search), "single" (among a few
	// changes, the only one whose revert alone passes, without
	// recording the failing run), or "partial" (the smallest set
	// tried whose revert passes, when the budget ran out first).
	Found string `json:"found,omitempty"`
	// NoRoot says why AFTER's causes gave no root change, when they gave
	// none: the changes, if any, then come from plain delta debugging
	// (ddmin) over the changes Found names.
	NoRoot NoRootReason `json:"noRoot,omitempty"`
	// Message says why nothing is explained, when nothing is.
	Message string   `json:"message,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Hashes are the contents of the working-tree files the explanation
	// names, as testbuild.Bytes hashes them, so that editors can map its
	// lines through later edits.
	Hashes map[string]string `json:"hashes,omitempty"`
	// Seconds is the whole explanation; SemanticSeconds the part spent
	// recording the failing run and computing its causes.
	Seconds         float64 `json:"seconds"`
	SemanticSeconds float64 `json:"semanticSeconds"`
	// Phases are the times of the explanation's kinds of work, when
	// Options.Trace asked for them.
	Phases []Phase `json:"phases,omitempty"`
	// BudgetRanOut says that the budget stopped a step before it ended:
	// with more time the explanation could differ, so it is not cached.
	BudgetRanOut bool `json:"budgetRanOut,omitempty"`
	// Cached says that the explanation was made before, for the same
	// content (CacheKey), and given again.
	Cached bool `json:"cached,omitempty"`
}

// Change is one hunk of an explanation, in the working tree's lines.
type Change struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"endLine"` // inclusive; Line-1 for a change that only deletes
	Role    string `json:"role"`    // "root" or "auxiliary"
	Old     string `json:"old"`
	New     string `json:"new"`
	OldLine int    `json:"oldLine"` // where the old text starts at the base
	// Commit is the commit the change came with: the newest commit that
	// last touched its lines, or for a change that only deletes the first
	// failing commit; nil for an uncommitted change.
	Commit *ChangeCommit `json:"commit,omitempty"`
}

// CauseStep is one statement of a cause.
type CauseStep struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"endLine"`
	Text    string `json:"text,omitempty"`
	Why     string `json:"why"`
	// Change is the index in Explanation.Changes of the change the
	// statement falls in, or -1.
	Change int `json:"change"`
}

// CauseNode is one cause of the tree: the statements that force an
// outcome (the failed check, or a critical predicate's direction).
// Parent is the index of the cause whose statement the predicate
// influences (-1 for the failed check's cause); Edge says how.
type CauseNode struct {
	Outcome    CauseStep   `json:"outcome"`
	Statements []CauseStep `json:"statements"`
	Parent     int         `json:"parent"`
	Edge       string      `json:"edge,omitempty"`
}

// Explain explains one failing leaf test of mod from the git history: it
// finds the base (given, or by bisecting), diffs the module between the
// base and the working tree into statement-sized hunks, and alternates
// AFTER's semantic step (causes from the recorded failing run) with its
// dynamic step (asymmetric delta debugging over the causes' hunks, each
// revert built through an overlay). A condition that leaves nothing to
// explain (the test passes now, no passing base, no responsible change) is
// an explanation with a Message; errors are failures of the machinery.
func Explain(ctx context.Context, mod *testbuild.Module, t testbuild.Target, opts Options) (*Explanation, error) {
	opts.defaults()
	start := time.Now()
	ex := &Explanation{Test: t.Test, Package: t.Package, Changes: []Change{}, Cause: []CauseStep{}}
	var trace *phases
	if opts.Trace {
		trace = newPhases()
	}
	defer func() {
		ex.Seconds = time.Since(start).Seconds()
		ex.Phases = trace.list()
		if ex.NoRoot == NoRootBudget {
			ex.BudgetRanOut = true
		}
	}()
	say := func(format string, args ...any) {
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf(format, args...))
		}
	}
	r, err := openRepo(ctx, mod.Root, mod.Env())
	if err != nil {
		return nil, err
	}
	head, err := r.head(ctx)
	if err != nil {
		return nil, err
	}
	modRel, err := r.relToTop(mod.Root)
	if err != nil {
		return nil, err
	}
	listed := time.Now()
	_, pkg, err := mod.ListPackage(ctx, t.Package)
	if err != nil {
		return nil, err
	}
	trace.since("list", listed)
	run, err := newRunner(mod, pkg, t.Test, opts.RunTimeout)
	if err != nil {
		return nil, err
	}
	run.phases = trace
	defer run.close()
	defer func() {
		if run.note != "" {
			ex.Notes = append(ex.Notes, run.note)
		}
	}()

	hist, err := newHistory(r, run, mod, modRel, pkg)
	if err != nil {
		return nil, err
	}
	hist.log = opts.Progress
	stopBase := fetchBase(ctx, r, hist, opts.Base)
	say("running %s in the working tree", t.Test)
	now, err := run.runWorkingTree(ctx)
	if err != nil {
		stopBase(true)
		return nil, err
	}
	// The base's verdict is needed only when the test fails here.
	stopBase(now.Verdict == pass || now.Verdict == noBuild || now.Verdict == noTest || now.Verdict == memoryStopped)
	switch now.Verdict {
	case pass:
		ex.Message = "the test passes in the working tree: nothing to explain (if it failed before, it fails only at times)"
		return ex, nil
	case noBuild:
		ex.Message = "the test does not build in the working tree: " + firstLines(now.Message, 3)
		return ex, nil
	case noTest:
		ex.Message = fmt.Sprintf("%s does not run in %s: %s", t.Test, t.Package, firstLines(now.Message, 2))
		return ex, nil
	case memoryStopped:
		ex.Message = fmt.Sprintf("the test %s in the working tree (-test-memory raises the bound)", now.Message)
		return ex, nil
	}

	based := time.Now()
	base, err := findBase(ctx, r, hist, head, modRel, opts, ex, say)
	trace.since("base", based)
	var edge *EdgeError
	if errors.As(err, &edge) {
		ex.Message = edge.Msg
		return ex, nil
	}
	if err != nil {
		return nil, err
	}
	ex.Base = base

	diffed := time.Now()
	cs, err := collectChanges(ctx, r, base, mod.Root, modRel)
	if err != nil {
		return nil, err
	}
	trace.since("diff", diffed)
	ex.Total, ex.Kept = len(cs.hunks), cs.kept
	if len(cs.hunks) == 0 {
		ex.Message = "no Go file outside the tests, and neither go.mod nor go.sum, changed between the base and the working tree"
		if len(cs.kept) > 0 {
			ex.Message += fmt.Sprintf(": only %s, which stay as they are", strings.Join(cs.kept, ", "))
		}
		return ex, nil
	}
	say("%d hunks between %s and the working tree", len(cs.hunks), short(base))
	neutralStart := time.Now()
	neutral := neutralHunks(cs)
	trace.since("neutral", neutralStart)
	ex.Neutral = len(neutral)
	all := make([]int, 0, len(cs.hunks))
	for i := range cs.hunks {
		if !slices.Contains(neutral, i) {
			all = append(all, i)
		}
	}
	if len(all) == 0 {
		ex.Message = fmt.Sprintf("all %d changes between the base and the working tree change no behaviour (formatting, comments, parentheses, renamed locals, imports reordered): the failure is not caused by these changes", len(cs.hunks))
		if len(cs.kept) > 0 {
			ex.Message += fmt.Sprintf(" (unless by the files kept as they are: %s)", strings.Join(cs.kept, ", "))
		}
		return ex, nil
	}
	if len(neutral) > 0 {
		say("%d of them change no behaviour and are set aside", len(neutral))
	}
	o := newOracle(cs, run, mod.Root, time.Now().Add(opts.Budget), opts.MaxReruns)
	o.log = opts.Progress
	o.phases = trace
	x := &explainer{ex: ex, cs: cs, o: o, mod: mod, target: t, opts: opts, say: say, neutral: neutral}
	defer func() {
		ex.Reruns, ex.Builds, ex.TypeChecks = o.reruns, o.builds, o.typeChecks
		if o.memoryStops > 0 {
			ex.Notes = append(ex.Notes, fmt.Sprintf("the test memory bound stopped %s, which count as failing (-test-memory raises the bound)", count(o.memoryStops, "run with a revert", "runs with reverts")))
		}
	}()
	if err := o.knowBase(ctx, hist, base, all); err != nil {
		return nil, err
	}
	ok, err := o.passes(ctx, all)
	if err != nil {
		return x.stopped(err)
	}
	if !ok {
		ex.Message = fmt.Sprintf("the test still fails with all %d changes reverted: the failure is not caused by these changes", len(all))
		if len(cs.kept) > 0 {
			ex.Message += fmt.Sprintf(" (unless by the files kept as they are: %s)", strings.Join(cs.kept, ", "))
		} else {
			ex.Message += "; it may be flaky or come from the environment"
		}
		return ex, nil
	}

	var root []int
	switch {
	case len(all) == 1:
		// The one change, whose revert passes, is the root: there is
		// nothing to search, and recording the failing run for causes
		// would cost more than the rest of the explanation.
		ex.Found, root = "only", all
	case opts.Strategy == "ddmin":
		ex.Found = "ddmin"
		root, err = ddmin(ctx, all, o.passes)
	default:
		if root, err = x.single(ctx, all); err == nil && len(root) == 0 {
			root, err = x.after(ctx, all)
		}
		if err == nil && len(root) > 0 {
			root, err = x.standalone(ctx, root)
		}
		if err == nil && len(root) > 0 {
			root, err = x.undodge(ctx, root)
		}
	}
	if errors.Is(err, errBudget) && len(o.best) > 0 && len(o.best) < len(all) {
		// A smaller revert that passes is an answer, if not a minimal one.
		root, err, ex.Found = o.best, nil, "partial"
		ex.BudgetRanOut = true
		ex.Notes = append(ex.Notes, fmt.Sprintf("the budget (%s, %d reruns) ran out before the search ended: the root changes are the smallest set tried whose revert passes, not a minimal one", opts.Budget, opts.MaxReruns))
	}
	if err != nil {
		return x.stopped(err)
	}
	if len(root) == 0 {
		ex.Message = "no set of changes tried makes the test pass when reverted"
		return ex, nil
	}
	// A rerun without any revert tells a flaky failure from a real one.
	if v, err := run.runWorkingTree(ctx); err == nil && v.Verdict == pass {
		ex.Notes = append(ex.Notes, "the test passed on a second run without any revert: it may fail only at times")
	}
	aux, err := o.auxFor(ctx, root)
	if err == nil {
		root, aux, err = x.separate(ctx, root, aux)
	}
	if err != nil {
		return x.stopped(err)
	}
	x.assemble(root, aux)
	attributed := time.Now()
	attributeChanges(ctx, r, modRel, ex)
	trace.since("attribute", attributed)
	return ex, nil
}

// fetchBase builds and runs the test at the given base beside the working
// tree's build and run, where the machine has more than one core: both
// are needed whenever the test fails, and each is mostly a build. The
// verdict is kept in hist for findBase. The returned stop waits for it,
// cancelling it first when cancel says it is not needed; it must be
// called before hist is used again.
func fetchBase(ctx context.Context, r *repo, hist *history, base string) (stop func(cancel bool)) {
	if base == "" || runtime.GOMAXPROCS(0) < 2 {
		return func(bool) {}
	}
	commit, err := r.resolve(ctx, base)
	if err != nil {
		return func(bool) {} // findBase says so
	}
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		hist.verdictAt(bctx, commit) // an error is met again in findBase
	}()
	return func(stop bool) {
		if stop {
			cancel()
		}
		<-done
		cancel()
	}
}

// maxFew bounds the changes single reverts one at a time.
const maxFew = 3

// single returns, among at most maxFew changes, the only one whose revert
// alone passes (built alone or with its auxiliary changes), or nil. Then
// no causes can name a smaller root and delta debugging would find the
// same one, so recording the failing run, which costs more than a few
// builds, is skipped; the verdicts stay memoised for the search that
// follows otherwise.
func (x *explainer) single(ctx context.Context, all []int) ([]int, error) {
	if len(all) > maxFew || x.opts.alwaysRecord {
		return nil, nil
	}
	var passing []int
	for _, id := range all {
		ok, err := x.o.passes(ctx, []int{id})
		if err != nil {
			return nil, err
		}
		if ok {
			passing = append(passing, id)
		}
	}
	if len(passing) != 1 {
		return nil, nil
	}
	x.ex.Found = "single"
	return passing, nil
}

// explainer is the state of one explanation's search.
type explainer struct {
	ex     *Explanation
	cs     *changeSet
	o      *oracle
	mod    *testbuild.Module
	target testbuild.Target
	opts   Options
	say    func(string, ...any)
	causes []causeRec
	tried  map[string]bool
	// neutral are the hunks that change no behaviour, never reverted.
	neutral []int
	// executed are the hunks the failing run executes.
	executed []int
	// causeTime is the time the causes took so far (causeDeadline).
	causeTime time.Duration
	// recordRun records the failing run (nil: analysis.RecordFailingRun).
	recordRun func(context.Context, *testbuild.Module, testbuild.Target, analysis.Options) (*analysis.FailingRun, error)
}

// causeRec is one cause found, the hunks its statements fall in, and the
// cause it hangs from.
type causeRec struct {
	c      *analysis.Cause
	hunks  []int
	parent int
}

// maxCauses bounds the causes one explanation computes.
const maxCauses = 64

// after is AFTER's Algorithm 1: the cause of the failed check, delta
// debugging over the changes of the causes so far, and critical
// predicates to extend the causes until a revert passes. When the causes
// give no root change it records why and falls back to the smallest
// failure-inducing change ddmin finds among the changes the failing run
// executes, then among every change; when the root's revert runs with more
// than maxRefined hunks (a rewrite ddmin could not split), the changes are
// searched again over groups of hunks that compile together, then over
// their hunks (reduce).
func (x *explainer) after(ctx context.Context, all []int) ([]int, error) {
	x.tried = map[string]bool{}
	dd := func(c []int, found string) ([]int, error) {
		c = sorted(without(c, x.neutral))
		if len(c) == 0 || x.tried[key(c)] {
			return nil, nil
		}
		x.tried[key(c)] = true
		x.say("delta debugging over %d hunks (%s)", len(c), found)
		root, err := asymmetricDD(ctx, c, 2, x.o.passes)
		if err == nil && len(root) > 0 {
			x.ex.Found = found
		}
		return root, err
	}
	var run *analysis.FailingRun
	if x.opts.SkipCauses != "" {
		x.ex.NoRoot = x.opts.SkipCauses
	} else if r, err := x.record(ctx); err != nil {
		x.ex.Notes = append(x.ex.Notes, "no semantic cause: "+err.Error())
		x.ex.NoRoot = semanticMiss(err)
	} else {
		run = r
	}
	x.executed = x.executedHunks(run)
	if run != nil {
		defer run.Close()
		unbuildable := x.o.unbuildable
		root, err := x.semantic(ctx, run, dd)
		if errors.Is(err, errBudget) {
			x.ex.NoRoot = NoRootBudget
		}
		if err != nil || len(root) > 0 {
			return root, err
		}
		switch {
		case x.ex.NoRoot != "":
		case x.o.unbuildable > unbuildable:
			x.ex.NoRoot = NoRootNoBuild
		default:
			x.ex.NoRoot = NoRootOutside
		}
	}
	x.say("no root change among the causes (%s): delta debugging over the changes", x.ex.NoRoot.Text())
	fallback := func(c []int, found string) ([]int, error) {
		c = sorted(without(c, x.neutral))
		if len(c) == 0 || x.tried[key(c)] {
			return nil, nil
		}
		x.tried[key(c)] = true
		if ok, err := x.o.passes(ctx, c); err != nil || !ok {
			return nil, err
		}
		x.say("ddmin over %d hunks (%s)", len(c), found)
		root, err := ddmin(ctx, c, x.o.passes)
		if err == nil && len(root) > 0 && x.completedSize(ctx, root) > maxRefined {
			// Plain delta debugging circled back to a rewrite whose hunks
			// compile only together; the search over the groups that
			// compile together can split it. On smaller reverts it was
			// measured to trade true hunks for other single hunks whose
			// revert passes too (bench/README.md).
			if small, err2 := x.reduce(ctx, c); err2 != nil {
				err = err2
			} else if len(small) > 0 {
				root = small
			}
		}
		if err == nil && len(root) > 0 {
			x.ex.Found = found
		}
		return root, err
	}
	if root, err := fallback(union(x.executedHunks(run), x.causeHunks()), "executed"); err != nil || len(root) > 0 {
		return root, err
	}
	return fallback(all, "all")
}

// completedSize is the number of hunks the revert of root runs with: root
// and the auxiliary hunks it needs to compile (root alone when those are
// not known within the budget).
func (x *explainer) completedSize(ctx context.Context, root []int) int {
	aux, err := x.o.auxFor(ctx, root)
	if err != nil {
		return len(root)
	}
	return len(root) + len(aux)
}

// hunksAt returns the candidate hunks that lines first..last of a file
// fall in.
func (x *explainer) hunksAt(file string, first, last int) []int {
	var out []int
	for _, f := range x.cs.files {
		if f.Rel != file {
			continue
		}
		for _, h := range f.Hunks {
			if h.touches(first, last) {
				out = append(out, h.ID)
			}
		}
	}
	return out
}

// causeHunks is changes(Γ): the hunks of every cause so far.
func (x *explainer) causeHunks() []int {
	var out []int
	for _, c := range x.causes {
		out = append(out, c.hunks...)
	}
	return sorted(out)
}

// executedHunks are the hunks the failing run executes: touched by a line
// of its spectrum, or else by a statement the recorded run executed, or
// inside a function whose lines it executed (a deleted statement).
func (x *explainer) executedHunks(run *analysis.FailingRun) []int {
	var out []int
	if x.opts.Executed != nil {
		for _, l := range x.opts.Executed {
			out = append(out, x.hunksAt(l.File, l.Line, l.Line)...)
		}
	} else if run != nil {
		for _, s := range run.Executed() {
			out = append(out, x.hunksAt(s.File, s.Line, s.EndLine)...)
		}
	}
	return sorted(out)
}

// stopped turns a budget that ran out into a message.
func (x *explainer) stopped(err error) (*Explanation, error) {
	if errors.Is(err, errBudget) {
		x.ex.BudgetRanOut = true
		x.ex.Message = fmt.Sprintf("the explanation stopped: its budget (%s, %d reruns) ran out before a revert made the test pass", x.opts.Budget, x.opts.MaxReruns)
		return x.ex, nil
	}
	return nil, err
}

// assemble fills the explanation's changes and cause chain.
func (x *explainer) assemble(root, aux []int) {
	index := map[int]int{}
	for _, role := range []struct {
		ids  []int
		name string
	}{{root, "root"}, {aux, "auxiliary"}} {
		for _, id := range sorted(role.ids) {
			h := x.cs.hunks[id]
			first, last := h.Lines()
			index[id] = len(x.ex.Changes)
			x.ex.Changes = append(x.ex.Changes, Change{File: h.File, Line: first, EndLine: last, Role: role.name,
				Old: strings.Join(h.Old, ""), New: strings.Join(h.New, ""), OldLine: h.OldStart})
		}
	}
	step := func(s analysis.Statement) CauseStep {
		cs := CauseStep{File: s.File, Line: s.Line, EndLine: s.EndLine, Text: s.Text, Why: s.Why, Change: -1}
		for _, id := range x.hunksAt(s.File, s.Line, s.EndLine) {
			if i, ok := index[id]; ok {
				cs.Change = i
				break
			}
		}
		return cs
	}
	// The causes on the way from a root change to the failed check.
	inRoot := setOf(root)
	keep := map[int]bool{}
	for i, c := range x.causes {
		if slices.ContainsFunc(c.hunks, inRoot) {
			for j := i; j >= 0 && !keep[j]; j = x.causes[j].parent {
				keep[j] = true
			}
		}
	}
	if len(keep) == 0 && len(x.causes) > 0 {
		keep[0] = true
	}
	renumber := map[int]int{}
	for i, c := range x.causes {
		if !keep[i] {
			continue
		}
		node := CauseNode{Outcome: step(c.c.Outcome), Parent: -1}
		if c.parent >= 0 {
			node.Parent = renumber[c.parent]
		}
		if p := c.c.Predicate; p != nil {
			node.Edge = edgeText(p)
		}
		at := map[string]int{}
		for _, s := range c.c.Statements {
			k := fmt.Sprintf("%s:%d", s.File, s.Line)
			if i, ok := at[k]; ok { // several sites of one statement
				if !strings.Contains(node.Statements[i].Why, s.Why) {
					node.Statements[i].Why += ", " + s.Why
				}
				continue
			}
			at[k] = len(node.Statements)
			node.Statements = append(node.Statements, step(s))
		}
		renumber[i] = len(x.ex.Tree)
		x.ex.Tree = append(x.ex.Tree, node)
	}
	x.ex.Cause = chain(x.ex.Tree)
	x.ex.Hashes = map[string]string{}
	for _, c := range x.ex.Changes {
		x.hash(c.File)
	}
	for _, s := range x.ex.Cause {
		x.hash(s.File)
	}
}

func (x *explainer) hash(rel string) {
	if _, ok := x.ex.Hashes[rel]; ok {
		return
	}
	if data, err := os.ReadFile(filepath.Join(x.mod.Root, filepath.FromSlash(rel))); err == nil {
		x.ex.Hashes[rel] = testbuild.Bytes(data)
	}
}
