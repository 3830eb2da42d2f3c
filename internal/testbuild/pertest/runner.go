package pertest

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Leaf is one leaf test's run: its verdict and output, the counters it
// executed (indices into the build's layout, or their numbers in
// RunOptions.Renumber), and the counts of the counting counters it
// executed, by ascending index into the layout.
type Leaf struct {
	Name     string
	Verdict  testbuild.Verdict
	Elapsed  time.Duration
	Output   string
	Counters Counters
	Counts   []Count
}

// Count is how many times one counting counter ran (Layout.AddCounting).
type Count struct {
	Index int
	N     uint64
}

// RunOptions select and bound the tests of one binary.
type RunOptions struct {
	Layout  string        // the build's layout file
	Run     string        // -test.run pattern; empty runs every test
	Flags   []string      // further flags for the test binary
	Timeout time.Duration // per leaf test
	Shards  int           // processes to spread the top-level tests over; 0 or 1 for one
	Split   []string      // top-level tests whose direct subtests shards divide (Hooked.Split)
	// Quiet runs shards without -test.v, the verdicts of the tests that
	// pass or skip taken from their records and their output not kept:
	// when any test fails, the run in one process that follows reports
	// everything.
	Quiet bool
	// Memory bounds the resident memory of each test process tree, in
	// bytes; 0 means the module's TestMemory.
	Memory int64
	// Trace, when set, hears where the time goes (process restarts, runtime
	// complaints).
	Trace func(start time.Time, what string)
	// Renumber, when set, gives each counter its number in the caller's
	// numbering, or -1 to leave it out of Leaf.Counters; beyond its end a
	// counter is left out. The numbers must increase with the counters:
	// each leaf's counters are packed in that numbering as they are read,
	// not decoded and packed again by the caller.
	Renumber []int32
}

// QuietShards reports whether the tests run in shards without -test.v,
// their passing and skipped tests' output not kept.
func (o RunOptions) QuietShards() bool { return o.Quiet && o.Shards > 1 }

// maxRestarts bounds how many times one binary is restarted after a test
// crashed or hung; each restart finishes at least one more test.
const maxRestarts = 10000

// Run runs every selected test of one binary, restarting the binary past
// each test that crashes or hangs, and gives each leaf test to take once.
// progress, when set, hears of each leaf as it finishes.
//
// In one process (Shards 0 or 1) a leaf goes to take as soon as its verdict
// is final, in the order the process finished its leaves: a process of
// tens of thousands of tests is not held whole. A leaf that passed or was
// skipped is final when it ends; any other waits for its process to end,
// and so do the leaves after it, to keep that order.
//
// With Shards > 1 the top-level tests are spread over that many processes
// running at once. Tests that pass alone can fail beside each other (shared
// files, ports, test order), so the failing leaves run again in one
// process (rerunFailing); when one of them passes there, the whole binary
// runs again in one process and that run's verdicts stand, as when a
// failure showed in no leaf's record. Tests that hung or went over the
// memory bound keep their verdict rather than do it again. The leaves then
// go to take once every process has ended.
func Run(ctx context.Context, m *testbuild.Module, bin *testbuild.Binary, opts RunOptions, progress func(Leaf), take func(Leaf) error) error {
	work, remove, err := scratch.MkdirTemp("run-")
	if err != nil {
		return err
	}
	defer remove()
	counting, err := countingRanges(opts.Layout)
	if err != nil {
		return err
	}
	if opts.Shards <= 1 {
		r := &runner{m: m, bin: bin, opts: opts, counting: counting, work: work, deliver: func(l Leaf) error {
			if progress != nil {
				progress(l)
			}
			return take(l)
		}}
		return r.run(ctx, map[string]bool{})
	}
	claims := filepath.Join(work, "claims")
	if err := os.Mkdir(claims, 0o755); err != nil {
		return fmt.Errorf("creating scratch directory: %w", err)
	}
	split := filepath.Join(work, "split")
	var names strings.Builder
	for _, n := range opts.Split {
		names.WriteString(strconv.Quote(n) + "\n")
	}
	if err := os.WriteFile(split, []byte(names.String()), 0o644); err != nil {
		return fmt.Errorf("writing the split tests: %w", err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	var leaves []Leaf
	var shards []*runner
	g, gctx := errgroup.WithContext(ctx)
	for k := range opts.Shards {
		dir := filepath.Join(work, "shard"+strconv.Itoa(k))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("creating scratch directory: %w", err)
		}
		r := &runner{m: m, bin: bin, opts: opts, counting: counting, work: dir, shard: strconv.Itoa(k), claims: claims, split: split, quiet: opts.QuietShards(),
			deliver: func(l Leaf) error {
				mu.Lock()
				defer mu.Unlock()
				if seen[l.Name] {
					return nil
				}
				seen[l.Name] = true
				leaves = append(leaves, l)
				if progress != nil {
					progress(l)
				}
				return nil
			}}
		shards = append(shards, r)
		g.Go(func() error { return r.run(gctx, map[string]bool{}) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var hung []Leaf
	var reported []string
	unseen := false
	for _, r := range shards {
		unseen = unseen || r.failedUnseen
		reported = append(reported, r.failedNames...)
	}
	unseen = unseen || unrecordedFailure(reported, leaves)
	failing := false
	done := map[string]bool{}
	for _, l := range leaves {
		switch {
		case l.Verdict == testbuild.Timeout || l.Verdict == testbuild.Memory:
			hung = append(hung, l)
			done[l.Name] = true
		case l.Verdict.Failing():
			failing = true
		}
	}
	if failing && !unseen && opts.Run == "" {
		again, ok, err := rerunFailing(ctx, m, bin, opts, counting, filepath.Join(work, "failing"), leaves)
		if err != nil {
			return err
		}
		if ok {
			leaves, failing = again, false
		}
	}
	if failing || unseen {
		alone := hung
		r := &runner{m: m, bin: bin, opts: opts, counting: counting, work: filepath.Join(work, "alone"),
			deliver: func(l Leaf) error { alone = append(alone, l); return nil }}
		if err := os.Mkdir(r.work, 0o755); err != nil {
			return fmt.Errorf("creating scratch directory: %w", err)
		}
		if err := r.run(ctx, done); err != nil {
			return err
		}
		leaves = alone
	}
	for i, l := range leaves {
		leaves[i] = Leaf{} // garbage once taken
		if err := take(l); err != nil {
			return err
		}
	}
	return nil
}

// unrecordedFailure reports whether a test a quiet process reported failing
// is neither a failing leaf nor the parent of one: a cleanup's or an
// example's failure, which no record shows.
func unrecordedFailure(reported []string, leaves []Leaf) bool {
	explained := map[string]bool{}
	for _, l := range leaves {
		if !l.Verdict.Failing() {
			continue
		}
		for name := l.Name; ; {
			explained[name] = true
			i := strings.LastIndexByte(name, '/')
			if i < 0 {
				break
			}
			name = name[:i]
		}
	}
	for _, name := range reported {
		if !explained[name] {
			return true
		}
	}
	return false
}

// rerunFailing runs the failing leaves of a sharded run again in one
// process, each failing top-level test with its failing subtests only. A
// failure is most often the code's, not the shards': when every failing
// leaf fails again, ok is set and the leaves are the shards' with the
// failing ones replaced by their new runs, which report their output.
// Otherwise a failure came from running beside other tests, and the caller
// runs the binary again in one process, as go test would.
//
// A test may need the leftovers of the tests go test runs before it in its
// one process, which another shard ran: the tests before the last failing
// one run again first, in go test's order, when that costs little (see
// predecessors). A test whose predecessors cost more, or whose passing
// sibling subtests it needs, keeps a failure its shard gave it.
func rerunFailing(ctx context.Context, m *testbuild.Module, bin *testbuild.Binary, opts RunOptions, counting [][2]int, work string, leaves []Leaf) (again []Leaf, ok bool, err error) {
	failed, failedTops := map[string]bool{}, map[string]bool{}
	for _, l := range leaves {
		if l.Verdict.Failing() && l.Verdict != testbuild.Timeout {
			failed[l.Name] = true
			top, _, _ := strings.Cut(l.Name, "/")
			failedTops[top] = true
		}
	}
	listed := time.Now()
	before, why := predecessors(ctx, m, bin, failedTops, leaves)
	if opts.Trace != nil {
		what := "alone"
		if len(before) > 0 {
			what = fmt.Sprintf("after the %d tests before them", len(before))
		}
		opts.Trace(listed, fmt.Sprintf("%s: failing tests run again %s (%s)", bin.Package.ImportPath, what, why))
	}
	var tops []string
	for top := range failedTops {
		tops = append(tops, regexp.QuoteMeta(top))
	}
	for top := range before {
		tops = append(tops, regexp.QuoteMeta(top))
	}
	slices.Sort(tops)
	opts.Run = "^(" + strings.Join(tops, "|") + ")$"
	if len(opts.Run) > maxRunPattern {
		return nil, false, nil
	}
	// The failing tests' passing, skipped and hung subtests are not run
	// again: the runtime skips them.
	done := map[string]bool{}
	for _, l := range leaves {
		top, _, sub := strings.Cut(l.Name, "/")
		if sub && !failed[l.Name] && failedTops[top] {
			done[l.Name] = true
		}
	}
	r := &runner{m: m, bin: bin, opts: opts, counting: counting, work: work, firstOnly: before,
		deliver: func(l Leaf) error { again = append(again, l); return nil }}
	if err := os.Mkdir(work, 0o755); err != nil {
		return nil, false, fmt.Errorf("creating scratch directory: %w", err)
	}
	started := time.Now()
	if err := r.run(ctx, done); err != nil {
		return nil, false, err
	}
	ran := map[string]testbuild.Verdict{}
	rerun := again[:0]
	for _, l := range again {
		top, _, _ := strings.Cut(l.Name, "/")
		if before[top] {
			// Run for its leftovers: the shard's run stands, unless the
			// order go test gives the tests changes its verdict too.
			if l.Verdict.Failing() {
				r.trace(started, fmt.Sprintf("%s: %s, run before the failing tests, failed (%s)", bin.Package.ImportPath, l.Name, l.Verdict))
				return nil, false, nil
			}
			continue
		}
		ran[l.Name] = l.Verdict
		rerun = append(rerun, l)
	}
	again = rerun
	for name := range failed {
		if !ran[name].Failing() {
			r.trace(started, fmt.Sprintf("%s: %s failed in its shard, not again (%q)", bin.Package.ImportPath, name, ran[name]))
			return nil, false, nil
		}
	}
	kept := again
	for _, l := range leaves {
		if _, rerun := ran[l.Name]; !rerun {
			kept = append(kept, l)
		}
	}
	return kept, true, nil
}

// predecessors returns the top-level tests that go test runs before the
// last of the failing tops, in the binary's order (-test.list), when
// together they ran for at most predecessorsTime in the shards or no
// longer than the failing tests themselves; nil when they cost more or the
// binary cannot list its tests. why says which.
func predecessors(ctx context.Context, m *testbuild.Module, bin *testbuild.Binary, failedTops map[string]bool, leaves []Leaf) (before map[string]bool, why string) {
	order, err := listTests(ctx, m, bin)
	if err != nil {
		return nil, err.Error()
	}
	last := -1
	for i, name := range order {
		if failedTops[name] {
			last = i
		}
	}
	before = map[string]bool{}
	for _, name := range order[:last+1] {
		if !failedTops[name] {
			before[name] = true
		}
	}
	if len(before) == 0 {
		return nil, "none listed"
	}
	var cost, failing time.Duration
	for _, l := range leaves {
		top, _, _ := strings.Cut(l.Name, "/")
		switch {
		case before[top]:
			cost += l.Elapsed
		case failedTops[top]:
			failing += l.Elapsed
		}
	}
	if cost > max(predecessorsTime, failing) {
		return nil, fmt.Sprintf("%d before them took %s, the failing tests %s", len(before), cost.Round(time.Millisecond), failing.Round(time.Millisecond))
	}
	return before, fmt.Sprintf("they took %s", cost.Round(time.Millisecond))
}

// predecessorsTime is what running the tests before a failing one again
// may cost whatever the failing tests cost: an order-dependent test's
// predecessor is most often a quick one that sets some state.
const predecessorsTime = 2 * time.Second

// listTime bounds listing a binary's tests, which runs the package's
// TestMain: one that takes longer leaves the failing tests to run again
// alone.
const listTime = predecessorsTime

// listTests lists the binary's top-level tests in the order go test runs
// them.
func listTests(ctx context.Context, m *testbuild.Module, bin *testbuild.Binary) ([]string, error) {
	var mu sync.Mutex
	var names []string
	p, err := m.Start(ctx, testbuild.RunConfig{
		Binary:  bin.Path,
		Package: bin.Package.ImportPath,
		Dir:     bin.Package.Dir,
		Args:    []string{"-test.list=^Test"},
		OnEvent: func(ev testbuild.Event) {
			name := strings.TrimSpace(ev.Output)
			if ev.Action == "output" && strings.HasPrefix(name, "Test") && !strings.ContainsAny(name, " \t") {
				mu.Lock()
				names = append(names, name)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %w", bin.Package.ImportPath, err)
	}
	res, err := p.WaitWithin(ctx, listTime)
	switch {
	case err != nil:
		return nil, fmt.Errorf("listing the tests of %s: %w", bin.Package.ImportPath, err)
	case res.Killed || res.ExitCode != 0:
		return nil, fmt.Errorf("listing the tests of %s: exit code %d (killed: %t)", bin.Package.ImportPath, res.ExitCode, res.Killed)
	}
	mu.Lock()
	defer mu.Unlock()
	return names, nil
}

// maxRunPattern bounds the -test.run pattern of rerunFailing, well under
// Linux's bound on one argument (128 KiB).
const maxRunPattern = 32 << 10

// run runs the tests of one process and its restarts, skipping those in
// done, and delivers each leaf.
func (r *runner) run(ctx context.Context, done map[string]bool) error {
	for attempt := 0; attempt < maxRestarts; attempt++ {
		p, err := r.process(ctx, done, attempt)
		if err != nil {
			return err
		}
		for _, leaf := range p.leaves {
			if done[leaf.Name] {
				continue
			}
			done[leaf.Name] = true
			if err := r.deliver(leaf); err != nil {
				return err
			}
		}
		if attempt == 0 && len(r.firstOnly) > 0 {
			// Skipped whole from now on: their subtests need not be
			// listed (a list every restart writes and reads).
			for name := range done {
				if top, _, sub := strings.Cut(name, "/"); sub && r.firstOnly[top] {
					delete(done, name)
				}
			}
			for name := range r.firstOnly {
				done[name] = true
			}
		}
		fresh := p.delivered + len(p.leaves) // the leaves this process finished
		if !p.restart {
			if p.abnormal && fresh == 0 && attempt == 0 {
				// The process died before or outside any test: package
				// init or TestMain. That is the package's verdict.
				return r.deliver(Leaf{Name: "TestMain", Verdict: p.death, Output: p.output, Counters: p.prelude, Counts: p.preludeCounts})
			}
			return nil
		}
		r.trace(p.started, fmt.Sprintf("process %d of %s: %d leaves, then %q", attempt, r.bin.Package.ImportPath, fresh, p.interrupted))
		if fresh == 0 && (p.interrupted == "" || done[p.interrupted]) {
			return nil // a restart would run nothing new
		}
		if p.interrupted != "" && !p.again {
			done[p.interrupted] = true
		}
	}
	return fmt.Errorf("%s: gave up after %d restarts", r.bin.Package.ImportPath, maxRestarts)
}

// afterPanicTimeout bounds a test that runs after another test's panic in
// the same process, where a hang may be the panic's doing and the test
// runs again in a new process with the whole timeout: a quarter of the
// timeout, at most 10 s.
func afterPanicTimeout(timeout time.Duration) time.Duration {
	return min(timeout/4, 10*time.Second)
}

type runner struct {
	m        *testbuild.Module
	bin      *testbuild.Binary
	opts     RunOptions
	counting [][2]int // the layout's counting ranges
	work     string
	shard    string // this process's shard; "" when not sharded
	claims   string // the shards' claims directory
	split    string // the file listing the split tests
	// quiet runs the processes without -test.v (testbuild.RunConfig.Quiet),
	// verdicts from the records: for shards, whose failing runs are run
	// again in one process that reports everything.
	quiet bool
	// failedUnseen is set when a quiet process failed and reported no
	// failing test (TestMain's exit); failedNames are the tests its
	// processes reported failing, which the records must account for
	// (unrecordedFailure).
	failedUnseen bool
	failedNames  []string
	// deliver gets each leaf once its verdict is final, in order; it is
	// called from the goroutines reading a process's output, one at a time.
	deliver func(Leaf) error
	// firstOnly are top-level tests run for their leftovers, in the first
	// process alone: a process restarted after a crash starts from nothing,
	// as go test's would have ended.
	firstOnly map[string]bool
}

func (r *runner) trace(start time.Time, what string) {
	if r.opts.Trace != nil {
		r.opts.Trace(start, what)
	}
}

// processResult is what one test process left behind.
type processResult struct {
	leaves        []Leaf // finished and not delivered yet
	delivered     int    // leaves delivered while the process ran
	restart       bool   // the process died or was killed while tests were running
	interrupted   string // the test to blame, when it had not finished
	again         bool   // the interrupted test runs again rather than being judged
	abnormal      bool   // the process ended by a signal, a crash or os.Exit
	output        string // printed outside any test
	prelude       Counters
	preludeCounts []Count
	started       time.Time
	// death is the verdict of a test the process died in: Panic, or
	// Memory when the memory bound stopped it.
	death testbuild.Verdict
}

func (r *runner) process(ctx context.Context, done map[string]bool, attempt int) (*processResult, error) {
	tag := strconv.Itoa(attempt)
	skipPath := filepath.Join(r.work, "skip"+tag)
	var skipList strings.Builder
	for name := range done {
		skipList.WriteString(strconv.Quote(name) + "\n")
	}
	if err := os.WriteFile(skipPath, []byte(skipList.String()), 0o644); err != nil {
		return nil, fmt.Errorf("writing skip list: %w", err)
	}
	countersPath := filepath.Join(r.work, "counters"+tag)
	if err := os.WriteFile(countersPath, nil, 0o644); err != nil {
		return nil, fmt.Errorf("creating counters file: %w", err)
	}
	records, err := testbuild.NewPipe()
	if err != nil {
		return nil, fmt.Errorf("creating record pipe: %w", err)
	}
	args := []string{"-test.count=1", "-test.timeout=0", "-test.paniconexit0"}
	if r.opts.Run != "" {
		args = append(args, "-test.run="+r.opts.Run)
	}
	// Finished top-level tests are skipped by the go test flag, since an
	// Example has no *testing.T for the runtime to skip; the runtime skips
	// finished subtests.
	var topLevel []string
	for name := range done {
		if !strings.Contains(name, "/") {
			topLevel = append(topLevel, regexp.QuoteMeta(name))
		}
	}
	skip := ""
	if len(topLevel) > 0 {
		slices.Sort(topLevel)
		skip = "^(" + strings.Join(topLevel, "|") + ")$"
	}
	// An Example cannot be skipped from inside: the first shard runs them all.
	if r.shard != "" && r.shard != "0" {
		if skip != "" {
			skip += "|"
		}
		skip += "^Example"
	}
	if skip != "" {
		args = append(args, "-test.skip="+skip)
	}
	args = append(args, r.opts.Flags...)
	rr := newRecordReader()
	rr.renumber = r.opts.Renumber
	var (
		mu           sync.Mutex // guards what follows, and rr
		proc         *testbuild.Process
		lastBoundary = time.Now()
		killedFor    string
		delivered    int
		deliverErr   error
	)
	// release delivers, in order, the leaves read so far whose verdict is
	// final (Run), and forgets them.
	release := func() {
		for len(rr.leaves) > 0 && proc != nil && deliverErr == nil {
			rec := rr.leaves[0]
			if !done[rec.name] {
				if !rec.finished || rec.panicked || rec.name == killedFor {
					return
				}
				var leaf Leaf
				if r.quiet {
					leaf = quietLeaf(rec)
				} else {
					ev := proc.TakeSettled(rec.name)
					if ev == nil {
						return // not reported yet, or failed
					}
					leaf = Leaf{Name: rec.name, Verdict: testbuild.Pass, Elapsed: ev.Elapsed, Output: ev.Output(), Counters: rec.hits, Counts: rec.counts.sorted()}
					if ev.Action == "skip" {
						leaf.Verdict = testbuild.Skip
					}
				}
				done[rec.name] = true
				delivered++
				if deliverErr = r.deliver(leaf); deliverErr != nil {
					proc.Kill()
				}
				// The running test waited for the delivery, not for itself.
				lastBoundary = time.Now()
			}
			rr.leaves[0] = leafRecord{}
			rr.leaves = rr.leaves[1:]
		}
	}
	p, err := r.m.Start(ctx, testbuild.RunConfig{
		Binary:  r.bin.Path,
		Package: r.bin.Package.ImportPath,
		Dir:     r.bin.Package.Dir,
		Args:    args,
		Memory:  r.opts.Memory,
		Env: []string{
			"FAULTLINE_FD=3",
			"FAULTLINE_LAYOUT=" + r.opts.Layout,
			"FAULTLINE_COUNTERS=" + countersPath,
			"FAULTLINE_SKIP=" + skipPath,
			"FAULTLINE_CLAIMS=" + r.claims,
			"FAULTLINE_SHARD=" + r.shard,
			"FAULTLINE_SPLIT=" + r.split,
		},
		ExtraFiles: []*os.File{records.Writer()},
		Quiet:      r.quiet,
		OnEvent: func(ev testbuild.Event) {
			if ev.Action == "pass" || ev.Action == "skip" {
				mu.Lock()
				release()
				mu.Unlock()
			}
		},
	})
	records.CloseWriter()
	if err != nil {
		records.Close()
		return nil, err
	}
	started := time.Now()
	mu.Lock()
	proc = p
	release()
	mu.Unlock()

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(records)
		sc.Buffer(make([]byte, 1<<20), 4+maxRecord)
		sc.Split(splitRecords)
		for sc.Scan() {
			mu.Lock()
			rr.record(sc.Bytes())
			lastBoundary = time.Now()
			release()
			mu.Unlock()
		}
		if err := sc.Err(); err != nil {
			mu.Lock()
			rr.errors = append(rr.errors, err.Error())
			mu.Unlock()
			io.Copy(io.Discard, records) // the process must not block on a full pipe
		}
	}()
	// The watchdog kills a test that runs past the timeout since the last
	// test boundary.
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(watchInterval(r.opts.Timeout))
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				mu.Lock()
				bound := r.opts.Timeout
				if rr.recovered {
					bound = afterPanicTimeout(bound)
				}
				if n := len(rr.stack); n > 0 && time.Since(lastBoundary) > bound {
					killedFor = rr.stack[n-1].name
					proc.Kill()
				}
				mu.Unlock()
			}
		}
	}()
	res, waitErr := p.Wait()
	close(stop)
	<-watched
	// What the test process wrote is in the pipe by the time it has exited;
	// a child it left running may hold the pipe open too.
	records.Finish(readDone)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if waitErr != nil {
		return nil, waitErr
	}
	if deliverErr != nil {
		return nil, deliverErr
	}
	pr := &processResult{output: res.Output(""), started: started, death: testbuild.Panic, delivered: delivered}
	if res.Memory != nil {
		pr.death = testbuild.Memory
		pr.output += res.MemoryNote()
	}
	for _, msg := range rr.errors {
		r.trace(started, fmt.Sprintf("runtime of %s: %s", r.bin.Package.ImportPath, msg))
	}
	pr.abnormal = res.Abnormal()
	if r.quiet && res.ExitCode != 0 && !res.Killed && res.Memory == nil {
		// The process failed, maybe where no record shows it (a
		// cleanup's or an example's failure, or TestMain's exit): the
		// tests it reports failing are checked against the records, and
		// a failure it does not name leaves the run in one process to
		// decide.
		reported := false
		for name, ev := range res.Tests {
			if name != "" && ev.Action == "fail" {
				r.failedNames = append(r.failedNames, name)
				reported = true
			}
		}
		// A test that panicked has a record of it.
		reported = reported || rr.panicked != "" || len(rr.stack) > 0
		r.failedUnseen = r.failedUnseen || !reported
	}
	// The process must be restarted for the remaining tests when it died
	// inside a test, of a test's panic (even a top-level test's, which has
	// already left the stack), or abnormally between tests.
	switch {
	case len(rr.stack) > 0 || rr.panicked != "":
		pr.restart = true
		hits, counts := readCounters(countersPath, r.counting)
		pr.interrupted = rr.interrupted(hits, counts)
	case pr.abnormal && rr.ended > 0:
		pr.restart = true
	}
	// After a panic the process went on from, a test that hung or brought
	// the process down may be that panic's doing (a lock the panicking test
	// left held): it runs again in the new process rather than being
	// judged here. Memory it took is its own.
	pr.again = rr.recovered && pr.interrupted != "" && res.Memory == nil
	if pr.again {
		r.trace(started, fmt.Sprintf("%s: %s runs again in a new process: it was stopped after another test's panic", r.bin.Package.ImportPath, pr.interrupted))
	}
	pr.prelude = packUnion(nil, rr.prelude, rr.renumber)
	pr.preludeCounts = rr.root.pending.sorted()
	for _, rec := range rr.leaves {
		if done[rec.name] || pr.again && rec.name == pr.interrupted {
			continue
		}
		ev := res.Tests[rec.name]
		leaf := Leaf{Name: rec.name, Counters: rec.hits, Counts: rec.counts.sorted(), Output: res.Output(rec.name)}
		if ev != nil {
			leaf.Elapsed = ev.Elapsed
		}
		switch {
		case rec.name == killedFor:
			leaf.Verdict = testbuild.Timeout
			leaf.Output += fmt.Sprintf("faultline: killed after %s without finishing\n", r.opts.Timeout)
		case res.Memory != nil && !rec.finished:
			leaf.Verdict = testbuild.Memory
			leaf.Output += res.MemoryNote()
		case rec.panicked || !rec.finished:
			leaf.Verdict = testbuild.Panic
			leaf.Output += panicOutput(res, rec.name, leaf.Output)
		case r.quiet:
			leaf = quietLeaf(rec)
		case !res.Reported(rec.name):
			// The test ended, as its records say, but test2json did not
			// report how (it cannot read a name longer than 4 KB).
			v, note, err := r.judgeUnreported(ctx, rec.name, res)
			if err != nil {
				return nil, err
			}
			leaf.Verdict = v
			leaf.Output += note
		default:
			switch v := res.Verdict(rec.name); v {
			case testbuild.Pass, testbuild.Skip:
				leaf.Verdict = v
			default:
				leaf.Verdict = testbuild.Fail
			}
		}
		pr.leaves = append(pr.leaves, leaf)
	}
	return pr, nil
}

// quietLeaf is a finished leaf of a quiet process, its verdict as its exit
// record gives it; its output is not known.
func quietLeaf(rec leafRecord) Leaf {
	leaf := Leaf{Name: rec.name, Verdict: testbuild.Pass, Elapsed: rec.elapsed, Counters: rec.hits, Counts: rec.counts.sorted()}
	switch {
	case rec.failed:
		leaf.Verdict = testbuild.Fail
	case rec.skipped:
		leaf.Verdict = testbuild.Skip
	}
	return leaf
}

// judgeUnreported gives its verdict to a test that ended without
// panicking but whose end test2json did not report: the test runs again
// alone. When its package's process exited 0, every test that ran there
// passed or was skipped, and the run alone only tells which (a skipped test
// whose end test2json cannot report alone either counts as passed). It
// returns the verdict and a note for the test's output.
func (r *runner) judgeUnreported(ctx context.Context, name string, res *testbuild.Result) (testbuild.Verdict, string, error) {
	alone, err := r.m.RunTest(ctx, r.bin, name, r.opts.Timeout, nil, r.opts.Flags...)
	if err != nil {
		return "", "", fmt.Errorf("running %s alone: %w", name, err)
	}
	v := alone.Verdict
	switch {
	case res.ExitCode == 0 && !res.Killed:
		if v != testbuild.Skip {
			v = testbuild.Pass
		}
	case v == testbuild.Panic && alone.ExitCode == 1:
		v = testbuild.Fail // no end reported alone either: it failed
	case v == testbuild.Panic && alone.ExitCode == 0:
		// No end reported alone either: the test passed or, when no test
		// matched, the run alone says nothing and its package's failing
		// run stands.
		if strings.Contains(alone.Output, "no tests to run") {
			v = testbuild.Fail
		} else {
			v = testbuild.Pass
		}
	}
	note := fmt.Sprintf("\nfaultline: test2json did not report how %s ended; judged %s from its package's exit status %d and a run alone (exit status %d)\n",
		name, v, res.ExitCode, alone.ExitCode)
	return v, note, nil
}

// panicOutput finds the trace of a test that took its process down:
// test2json charges it to the test's parent, or to no test at all.
func panicOutput(res *testbuild.Result, name, own string) string {
	if strings.Contains(own, "panic:") {
		return ""
	}
	for parent := name; ; {
		i := strings.LastIndex(parent, "/")
		if i < 0 {
			parent = ""
		} else {
			parent = parent[:i]
		}
		out := res.Output(parent)
		if j := strings.Index(out, "panic:"); j >= 0 {
			return out[j:]
		}
		if parent == "" {
			return ""
		}
	}
}

func watchInterval(timeout time.Duration) time.Duration {
	if d := timeout / 20; d > 10*time.Millisecond {
		if d > time.Second {
			return time.Second
		}
		return d
	}
	return 10 * time.Millisecond
}

// readCounters returns what a dead process left in its counters file: the
// indices of the non-zero counters and the counts of the non-zero counters
// of the counting ranges.
func readCounters(path string, counting [][2]int) ([]int, []Count) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	var hits []int
	var counts []Count
	next := 0
	for i := 0; i+4 <= len(data); i += 4 {
		c := binary.NativeEndian.Uint32(data[i:])
		if c == 0 {
			continue
		}
		index := i / 4
		for next < len(counting) && counting[next][1] <= index {
			next++
		}
		if next < len(counting) && counting[next][0] <= index {
			counts = append(counts, Count{Index: index, N: uint64(c)})
		} else {
			hits = append(hits, index)
		}
	}
	return hits, counts
}

// countingRanges reads the counting ranges of a layout file, by offset.
func countingRanges(layout string) ([][2]int, error) {
	if layout == "" {
		return nil, nil
	}
	data, err := os.ReadFile(layout)
	if err != nil {
		return nil, fmt.Errorf("reading the counter layout: %w", err)
	}
	var ranges [][2]int
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 4 || fields[3] != "count" {
			continue
		}
		off, err1 := strconv.Atoi(fields[1])
		n, err2 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("counter layout line %q", line)
		}
		ranges = append(ranges, [2]int{off, off + n})
	}
	slices.SortFunc(ranges, func(a, b [2]int) int { return a[0] - b[0] })
	return ranges, nil
}
