package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.lsp.dev/protocol"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// view is one module of the workspace and its spectrum engine. It owns the
// collection runs of the module (one at a time, the newest winning), the
// watch on the engine's store, and the module's current snapshot.
type view struct {
	srv *Server
	// root is the module's root as the client names its files, through
	// the workspace folder's symbolic link if need be (clientRoot);
	// ws.Root() is its real path.
	root      string
	ws        Workspace
	localizer Localizer // nil: the module is ranked by the formula alone

	ctx    context.Context // the view's lifetime
	cancel context.CancelFunc

	mu          sync.Mutex
	matrix      *localize.Matrix       // latest engine result
	digest      string                 // fingerprint of matrix
	loc         *localize.Localization // the localization service's latest state for matrix
	snap        *snapshot.Snapshot
	seq         uint64
	focus       string
	current     *run        // latest collection run, possibly finished
	timer       *time.Timer // pending debounced run
	reload      *time.Timer // pending store reload
	lastShown   string      // last build failure shown, not to repeat it
	lastRanking string      // digest of the ranking last announced
	diag        diagState
	analysis    context.CancelFunc     // of the localization of the current matrix
	evidence    snapshot.EvidenceCache // the learned order's evidence over matrix
	watcher     *fsnotify.Watcher
	deferred    deferredWork // refused until the user agrees to run the module's code
	// explained are the latest explanations from the git history, by
	// package and test; shown while the files they name are unchanged.
	explained map[localize.Target]localize.Explanation
	history   *bool // whether the module lies in a git work tree, once asked
	// stoppedShown are the tests ("package name") the memory bound stopped
	// that the user was told of, not to repeat it on every save.
	stoppedShown map[string]bool
	// arrived is when the results matrix holds arrived, until diagnostics
	// over them are published: for the trace.
	arrived time.Time
}

// run is one collection.
type run struct {
	cancel context.CancelFunc
	done   chan struct{}
	matrix *localize.Matrix
	err    error

	// Guarded by the view's mu: settled is set once the run's whole
	// result is taken, after which results so far are stale; loading and
	// loadAgain make the loads of results so far one at a time (see
	// partial); packagesDone and failing are the counts of the last
	// progress, failingIn the packages with a failing test so far.
	settled, loading, loadAgain bool
	packagesDone, failing       int
	failingIn                   map[string]bool
}

func newView(srv *Server, ws Workspace, root string) *view {
	ctx, cancel := context.WithCancel(srv.ctx)
	v := &view{srv: srv, root: root, ws: ws, ctx: ctx, cancel: cancel}
	l, err := srv.opts.Localizer(ws)
	if err != nil {
		srv.client.logf(protocol.MessageTypeWarning, "%s: ranking by the formula alone: %v", v.root, err)
	}
	v.localizer = l
	return v
}

// start shows what the store already holds, starts watching it, and runs the
// tests when automatic runs are on.
func (v *view) start(autoRun bool) {
	if err := v.watch(); err != nil {
		v.srv.client.logf(protocol.MessageTypeWarning, "%s: not watching the store: %v", v.root, err)
	}
	start := time.Now()
	if m, err := v.ws.Load(); err == nil && m != nil {
		v.srv.trace.phase(v.root, "load the store", time.Since(start), fmt.Sprintf("%d tests", len(m.Tests)))
		v.update(m)
	}
	if autoRun {
		v.runNow()
	}
}

// stop cancels the view's background work and waits for its collection
// run to wind down, so no run outlives the session.
func (v *view) stop() {
	if r := v.halt(); r != nil {
		<-r.done
	}
}

// halt stops the view's background work without waiting for its run to
// wind down, and returns that run (nil for none).
func (v *view) halt() *run {
	v.cancel()
	v.mu.Lock()
	if v.timer != nil {
		v.timer.Stop()
	}
	if v.reload != nil {
		v.reload.Stop()
	}
	w, r := v.watcher, v.current
	v.watcher = nil
	v.mu.Unlock()
	if w != nil {
		w.Close()
	}
	return r
}

// close stops the view and withdraws what it shows.
func (v *view) close() {
	v.stop()
	v.srv.clearDiagnostics(v)
}

// schedule runs the tests after the debounce delay, unless another save
// comes first: each call restarts the delay.
func (v *view) schedule() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ctx.Err() != nil {
		return
	}
	if v.timer != nil {
		v.timer.Stop()
	}
	v.timer = time.AfterFunc(v.srv.opts.Debounce, func() { v.srv.guard("a scheduled test run", func() { v.runNow() }) })
}

// runNow starts a collection, cancelling the one in progress, and returns
// it. The new run waits for the cancelled one to wind down, so the engine
// never collects the same module twice at once.
func (v *view) runNow() *run {
	ctx, cancel := context.WithCancel(v.ctx)
	r := &run{cancel: cancel, done: make(chan struct{})}
	v.mu.Lock()
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	prev := v.current
	v.current = r
	v.mu.Unlock()
	if prev != nil {
		prev.cancel()
	}
	v.srv.spawn("running the tests of "+v.root, func() { v.collect(ctx, r, prev) })
	return r
}

func (v *view) collect(ctx context.Context, r *run, prev *run) {
	defer close(r.done)
	defer r.cancel()
	if prev != nil {
		<-prev.done
	}
	if err := ctx.Err(); err != nil {
		r.err = err
		return
	}
	if err := v.mayRun(deferredWork{run: true}); err != nil {
		r.err = err
		return
	}
	st := v.srv.currentSettings()
	p := v.srv.beginProgress(ctx, "faultline: running tests in "+filepath.Base(v.root))
	v.srv.status(statusParams{State: "building", Root: v.root, Message: "building tests"})
	start := time.Now()
	m, err := v.ws.Collect(ctx, localize.CollectOptions{
		Packages:   []string{"./..."},
		Timeout:    st.Timeout,
		Parallel:   st.Parallel,
		TestMemory: st.TestMemory,
		Edges:      st.Technique().BlockRank(),
		Progress: func(pr localize.Progress) {
			v.progress(p, pr)
			v.packageDone(r, pr, start)
		},
	})
	v.srv.trace.phase(v.root, "collect", time.Since(start), "")
	v.mu.Lock()
	r.settled = true
	v.mu.Unlock()
	r.matrix, r.err = m, err
	switch {
	case ctx.Err() != nil:
		p.end("cancelled: a newer run replaced this one")
		if r.err == nil {
			r.err = ctx.Err()
		}
		return
	case err != nil:
		p.end("failed")
		msg := fmt.Sprintf("faultline could not run the tests of %s: %v", v.root, err)
		v.srv.client.showMessage(protocol.MessageTypeError, msg)
		v.srv.status(statusParams{State: "error", Root: v.root, Message: msg})
		return
	}
	p.end(summary(m))
	v.update(m)
}

// progress forwards the engine's progress to the editor: building takes the
// first 30 percent, running the rest, both counted in packages.
func (v *view) progress(p *progress, pr localize.Progress) {
	frac := 0
	if pr.Packages > 0 {
		frac = pr.PackagesDone * 100 / pr.Packages
	}
	state, pct := "building", 30*frac/100
	msg := fmt.Sprintf("built %d/%d packages", pr.PackagesDone, pr.Packages)
	if pr.Phase == "run" {
		state, pct = "running", 30+70*frac/100
		msg = fmt.Sprintf("%d/%d packages done, %d tests run, %d failing", pr.PackagesDone, pr.Packages, pr.Tests, pr.Failing)
	}
	p.report(msg, pct)
	v.srv.status(statusParams{State: state, Root: v.root, Done: pr.PackagesDone, Total: pr.Packages, Failing: pr.Failing, Message: msg})
}

// packageDone follows a run's progress package by package: when a package
// with a failing test finishes before the others, the results so far are
// shown. A package whose tests all pass changes little of what is shown,
// and is left for the whole result.
func (v *view) packageDone(r *run, pr localize.Progress, start time.Time) {
	if pr.Phase != "run" {
		return
	}
	v.mu.Lock()
	if pr.Failing > r.failing && pr.Current != "" {
		if r.failingIn == nil {
			r.failingIn = map[string]bool{}
		}
		r.failingIn[pr.Current] = true // a leaf of Current failed
	}
	r.failing = max(r.failing, pr.Failing)
	more := pr.PackagesDone > r.packagesDone
	r.packagesDone = max(r.packagesDone, pr.PackagesDone)
	show := more && r.failingIn[pr.Current] && pr.PackagesDone < pr.Packages
	v.mu.Unlock()
	if !more {
		return
	}
	v.srv.trace.phase(v.root, "tests done", time.Since(start), fmt.Sprintf("%d/%d packages, last %s", pr.PackagesDone, pr.Packages, pr.Current))
	if show {
		v.partial(r)
	}
}

// partial shows the results of the packages done so far while the others
// run: the store takes each package's results as soon as they are
// complete, so loading it gives them beside the earlier results of the
// packages that did not change. They are shown in the formula's order and
// not analysed: the analysis waits for the run's whole result. Loads go
// one at a time, and asking while one is under way asks for one more.
func (v *view) partial(r *run) {
	v.mu.Lock()
	if r.settled || r.loading {
		r.loadAgain = !r.settled
		v.mu.Unlock()
		return
	}
	r.loading = true
	v.mu.Unlock()
	v.srv.spawn("showing the results so far of "+v.root, func() {
		for v.loadPartial(r) {
		}
	})
}

// loadPartial loads and shows the results so far once, and says whether
// they were asked for again meanwhile.
func (v *view) loadPartial(r *run) bool {
	start := time.Now()
	m, err := v.ws.Load()
	loaded := time.Since(start)
	v.mu.Lock()
	again := r.loadAgain && !r.settled
	r.loadAgain, r.loading = false, again
	take := err == nil && m != nil && hasFailure(m) && v.current == r && !r.settled && v.ctx.Err() == nil
	if take {
		// The analysis of the previous results would only be dropped.
		if v.analysis != nil {
			v.analysis()
			v.analysis = nil
		}
		// No digest: results so far never stand for a whole result,
		// which must replace them even when equal.
		v.matrix, v.digest, v.loc, v.arrived = m, "", nil, time.Now()
		v.evidence.Keep(m)
	}
	v.mu.Unlock()
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			v.srv.client.logf(protocol.MessageTypeLog, "%s: loading the results so far: %v", v.root, err)
		}
		return again
	}
	if m != nil {
		v.srv.trace.phase(v.root, "load results so far", loaded, fmt.Sprintf("%d tests", len(m.Tests)))
	}
	if take {
		v.rebuildAs(m, rebuildPartial)
	}
	return again
}

// summary says in a few words how a collection went.
func summary(m *localize.Matrix) string {
	failed, passed := 0, 0
	for _, t := range m.Tests {
		switch {
		case t.Verdict.Failing():
			failed++
		case t.Verdict == localize.VerdictPass:
			passed++
		}
	}
	if len(m.BuildErrors) > 0 {
		return fmt.Sprintf("%d packages did not build", len(m.BuildErrors))
	}
	msg := fmt.Sprintf("%d failing, %d passing", failed, passed)
	if n := len(m.MemoryNotes()); n > 0 {
		msg += fmt.Sprintf(", %d stopped by the test memory bound", n)
	}
	return msg
}

// update takes a new engine result. A result identical to the current one
// (a store reload after our own run) changes nothing.
func (v *view) update(m *localize.Matrix) {
	digest := snapshot.Fingerprint(m)
	v.mu.Lock()
	if v.snap != nil && digest == v.digest {
		v.mu.Unlock()
		return
	}
	v.matrix, v.digest, v.loc, v.arrived = m, digest, nil, time.Now()
	v.evidence.Keep(m)
	var stopped []string
	for _, t := range m.Tests {
		if n, key := t.MemoryNote(), t.Package+" "+t.Name; n != "" && !v.stoppedShown[key] {
			if v.stoppedShown == nil {
				v.stoppedShown = map[string]bool{}
			}
			v.stoppedShown[key] = true
			stopped = append(stopped, n)
		}
	}
	v.mu.Unlock()
	if len(stopped) > 0 {
		v.srv.client.showMessage(protocol.MessageTypeWarning, fmt.Sprintf("faultline: in %s, %s (the testMemory setting raises the bound)", v.root, strings.Join(stopped, "; ")))
	}
	// The first answer is the formula's: the learned order's evidence
	// and the analysis start once it is published, and refine it.
	first := rebuildFull
	if choicesOf(v.srv.currentSettings()).ShownOrder == localize.OrderLearned && hasFailure(m) {
		first = rebuildFirst
	}
	if published := v.rebuildAs(m, first); published != nil {
		select {
		case <-published:
		case <-v.ctx.Done():
		}
	}
	v.localize()
	if first == rebuildFirst {
		v.rebuild()
	}
}

// rebuildKind says what a rebuild shows.
type rebuildKind int

const (
	rebuildFull    rebuildKind = iota // the latest result under the settings
	rebuildFirst                      // the same in the formula's order, which needs no evidence gathered
	rebuildPartial                    // a run's results so far, as rebuildFirst
)

// rebuild derives a new snapshot from the latest result and the current
// settings, then republishes everything shown.
func (v *view) rebuild() { v.rebuildAs(nil, rebuildFull) }

// rebuildAs derives a new snapshot of the kind asked for, from the latest
// result when it is want (any, for nil), and republishes everything
// shown. It returns a channel closed once the diagnostics are published,
// or nil when it shows nothing.
func (v *view) rebuildAs(want *localize.Matrix, kind rebuildKind) <-chan struct{} {
	choices := choicesOf(v.srv.currentSettings())
	if kind != rebuildFull {
		choices.ShownOrder = localize.OrderFormula
	}
	v.mu.Lock()
	m, loc, focus := v.matrix, v.loc, v.focus
	if m == nil || want != nil && m != want {
		v.mu.Unlock()
		return nil
	}
	v.seq++
	seq := v.seq
	v.mu.Unlock()
	start := time.Now()
	snap, err := snapshot.BuildSnapshot(seq, v.root, m, loc, choices, focus, v.srv.cache, &v.evidence)
	if err != nil {
		v.srv.client.logf(protocol.MessageTypeError, "%s: %v", v.root, err)
		return nil
	}
	if v.srv.trace.on() {
		analysed := ""
		if loc != nil && loc.Angelic != nil {
			analysed = fmt.Sprintf(", %d failing tests analysed", loc.Angelic.Analyzed)
		}
		v.srv.trace.phase(v.root, "rank", time.Since(start), fmt.Sprintf("%s order, %d tests, %d lines%s", choices.ShownOrder, len(m.Tests), len(snap.Ranking.Lines), analysed))
	}
	v.mu.Lock()
	if v.seq != seq { // a newer rebuild overtook this one
		v.mu.Unlock()
		return nil
	}
	v.snap = snap
	showBuild := snap.BuildErrors != "" && snap.BuildErrors != v.lastShown
	v.lastShown = snap.BuildErrors
	v.mu.Unlock()

	if showBuild {
		v.srv.client.showMessage(protocol.MessageTypeError,
			fmt.Sprintf("faultline: tests of %s do not build:\n%s", v.root, snap.BuildErrors))
	}
	v.srv.announce(v, snap, kind != rebuildPartial)
	return v.srv.diagnose(v)
}

func (v *view) snapshot() *snapshot.Snapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.snap
}

// setFocus localizes the view to one failing test ("" for all of them).
func (v *view) setFocus(test string) {
	v.mu.Lock()
	v.focus = test
	v.mu.Unlock()
	v.rebuild()
}

// watch follows the engine's store, so results written by another process
// (faultline test in a terminal, another editor) show up without running
// anything here.
func (v *view) watch() error {
	store := filepath.Clean(v.ws.StorePath())
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("creating watcher: %w", err)
	}
	if err := w.Add(filepath.Dir(store)); err != nil {
		w.Close()
		return fmt.Errorf("watching %s: %w", filepath.Dir(store), err)
	}
	v.mu.Lock()
	v.watcher = w
	v.mu.Unlock()
	v.srv.spawn("watching the store of "+v.root, func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) == store && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename) != 0 {
					v.storeChanged()
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				v.srv.client.logf(protocol.MessageTypeWarning, "%s: watching the store: %v", v.root, err)
			}
		}
	})
	return nil
}

// storeChanged reloads the store once writes have settled. While a run of
// our own is in progress the writes are its own, and its result arrives
// through Collect: reading the whole store again after it would only cost
// time and memory beside the analysis.
func (v *view) storeChanged() {
	if v.running() {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ctx.Err() != nil {
		return
	}
	if v.reload != nil {
		v.reload.Stop()
	}
	v.reload = time.AfterFunc(v.srv.opts.Debounce, func() { v.srv.guard("reloading the store", v.reloadStore) })
}

// reloadStore takes the results another process wrote into the store.
func (v *view) reloadStore() {
	// A run of our own, in progress or about to start, brings fresher
	// results than the store: the package of a file just saved is missing
	// from it until that run is done.
	if v.running() || v.pending() {
		return
	}
	start := time.Now()
	m, err := v.ws.Load()
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			v.srv.client.logf(protocol.MessageTypeWarning, "%s: reloading the store: %v", v.root, err)
		}
		return
	}
	v.srv.trace.phase(v.root, "reload the store", time.Since(start), "")
	v.update(m)
}

func (v *view) pending() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.timer != nil
}

func (v *view) running() bool {
	v.mu.Lock()
	r := v.current
	v.mu.Unlock()
	if r == nil {
		return false
	}
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}
