package spectra

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"
	"github.com/faultline-go/faultline/spectra/edges"
	"github.com/faultline-go/faultline/spectra/instrument"
)

// Collect brings the store up to date for the selected packages, running
// only the tests whose binaries' inputs changed, and returns their spectra.
func (w *Workspace) Collect(ctx context.Context, co CollectOptions) (*Matrix, error) {
	if co.Timeout <= 0 {
		co.Timeout = DefaultTimeout
	}
	if co.Parallel <= 0 {
		co.Parallel = runtime.GOMAXPROCS(0)
	}
	if co.TestMemory <= 0 {
		co.TestMemory = w.mod.TestMemory()
	}
	trace := newPhaseTrace()
	defer trace.done("collect")
	defer w.mod.Hasher().Save()
	listing, err := w.mod.List(ctx, co.Packages...)
	if err != nil {
		return nil, err
	}
	if len(listing.Misses) > 0 {
		return nil, &testbuild.PatternError{Misses: listing.Misses}
	}
	trace.done(fmt.Sprintf("list (reused: %v)", listing.Reused))
	salt := fmt.Sprintf("%s %s run=%q timeout=%s build=%q test=%q", instrument.Version, pertest.Version, co.Run, co.Timeout, co.BuildFlags, co.TestFlags)
	keys, err := w.mod.Keys(ctx, listing, salt)
	if err != nil {
		return nil, err
	}
	var targets []*testbuild.Package
	for _, p := range listing.Requested {
		if p.HasTests() {
			targets = append(targets, p)
		}
	}
	keyOf := map[string]string{} // import path -> key of its test binary
	var allKeys []string
	for _, p := range targets {
		keyOf[p.ImportPath] = keys.TestBinary(p)
		allKeys = append(allKeys, keyOf[p.ImportPath])
	}
	trace.done("hash")
	stored, files, err := w.store.results(allKeys)
	trace.done("read store")
	if err != nil {
		return nil, err
	}
	var toRun []*testbuild.Package
	for _, p := range targets {
		// A result without edge profiles is collected again when they are
		// wanted; one with them serves either way. So is one with a test
		// stopped under a smaller memory bound than this one.
		if r := stored[keyOf[p.ImportPath]]; r == nil || co.Edges && !r.Flow && r.BuildErr == "" || r.MemoryBound > 0 && r.MemoryBound < co.TestMemory || co.PassingOutput && r.QuietPasses {
			toRun = append(toRun, p)
		}
	}
	report := newReporter(co.Progress, len(targets), len(targets)-len(toRun))
	if len(toRun) > 0 {
		fresh, freshFiles, err := w.run(ctx, listing, toRun, keyOf, co, report, trace)
		if err != nil {
			return nil, err
		}
		for k, p := range fresh {
			stored[k] = p
		}
		maps.Copy(files.blocks, freshFiles.blocks)
		maps.Copy(files.flows, freshFiles.flows)
	}
	report.finish()
	trace.done("store results")
	exists := map[string]bool{}
	for _, p := range listing.All {
		exists[p.ImportPath] = true
	}
	if err := w.store.forget(exists); err != nil {
		return nil, err
	}
	trace.done("forget")
	var pkgs []*storedPackage
	for _, p := range targets {
		if r := stored[keyOf[p.ImportPath]]; r != nil {
			pkgs = append(pkgs, r)
		}
	}
	m, err := assemble(w.mod.Root, w.mod.Path, pkgs, files, w.store, !co.VerdictsOnly)
	if err != nil {
		return nil, err
	}
	for _, p := range targets {
		if !slices.Contains(toRun, p) {
			m.Cached[p.ImportPath] = true
		}
	}
	return m, nil
}

// testChunkBytes is about how much of a package's converted tests the
// collection holds before it stores them as a chunk: a package of tens of
// thousands of tests is neither held whole nor encoded in one buffer.
const testChunkBytes = 1 << 20

// countersFile and edgesFile are the files the collection adds to an
// instrumented package, declaring its block and edge counters, which are
// ready before any of the package's variables is initialized
// (pertest.RangeFile). Their names sort before nearly every other (a name
// cannot start with anything below "0"), so that the init that moves the
// counters into the shared file runs before the package's own.
const (
	countersFile = "0._faultline_counters.go"
	edgesFile    = "0._faultline_edges.go"
)

// instrumentedFile is a non-test file with counters.
type instrumentedFile struct {
	rel, hash string
	first     int // global index of its first counter
	index     int // position in build.files
	blocks    []instrument.Block
	flow      *edges.Result // its edge counters, when edges are counted
}

// build is one instrumented build of the module.
type build struct {
	split      map[string][]string // import path -> tests whose subtests shards divide
	files      []*instrumentedFile
	byPackage  map[string][]*instrumentedFile
	counterOf  []int // global counter -> index into files
	layoutPath string
	// reuse is written in the background while the build runs: its
	// wait must come before the collection ends.
	reuse *reuseCache
	// With edge counts: edgeSlots[i] is global counter edgeBase+i, an edge
	// counter, as a file and its slot.
	edges     bool
	edgeBase  int
	edgeSlots []edgeSlot
}

type edgeSlot struct {
	file int // index into files
	slot int32
}

// run instruments, builds and runs the packages, storing each result as
// soon as it is complete, so that an interrupted collection keeps them.
func (w *Workspace) run(ctx context.Context, listing *testbuild.Listing, toRun []*testbuild.Package, keyOf map[string]string, co CollectOptions, report *reporter, trace *phaseTrace) (map[string]*storedPackage, storedFiles, error) {
	work, remove, err := scratch.MkdirTemp("")
	if err != nil {
		return nil, storedFiles{}, err
	}
	if os.Getenv("FAULTLINE_DEBUG") == "keep" {
		// Kept past this process, and so removed at the next start.
		fmt.Fprintf(os.Stderr, "faultline: keeping the binaries and layout in %s until faultline next starts\n", work)
	} else {
		defer remove()
	}
	overlay, err := w.mod.NewOverlay()
	if err != nil {
		return nil, storedFiles{}, err
	}
	b, err := w.instrument(listing, toRun, overlay, work, slices.Contains(co.BuildFlags, "-race"), co.Edges)
	if err != nil {
		return nil, storedFiles{}, err
	}
	defer b.reuse.wait()
	files := storedFiles{blocks: map[string]*storedFile{}, flows: map[string]*storedFlow{}}
	var toStore []storedFile
	var flows []storedFlow
	for _, f := range b.files {
		sf := storedFile{Path: f.rel, Hash: f.hash, Blocks: convertBlocks(f.rel, f.blocks)}
		files.blocks[fileKey(f.rel, f.hash)] = &sf
		toStore = append(toStore, sf)
		if f.flow != nil {
			fl := storedFlow{Path: f.rel, Hash: f.hash, Funcs: f.flow.Funcs}
			files.flows[flowKey(f.rel, f.hash)] = &fl
			flows = append(flows, fl)
		}
	}
	trace.done("instrument")
	// Results are stored as they come, so that an interrupted collection
	// keeps them, by a writer of their own; the files' blocks go first,
	// while the build runs.
	writer := newStoreWriter(w.store)
	defer writer.close()
	if err := writer.putFiles(toStore, flows); err != nil {
		return nil, storedFiles{}, err
	}
	report.phase("build")
	// Cores the packages leave idle go to sharding each package's tests.
	shards := max(1, co.Parallel/max(1, len(toRun)))
	results := map[string]*storedPackage{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(co.Parallel)
	// Each binary runs as soon as it is linked, while the others build.
	binaries := make(chan *testbuild.Binary)
	var failed map[string]string
	var buildErr error
	buildStart := time.Now()
	go func() {
		defer close(binaries)
		failed, buildErr = w.mod.BuildTestsEach(gctx, overlay, toRun, co.BuildFlags, filepath.Join(work, "bin"), func(b *testbuild.Binary) { binaries <- b })
		trace.since(buildStart, "build")
	}()
	built := map[string]bool{}
	for bin := range binaries {
		if len(built) == 0 {
			report.phase("run")
		}
		built[bin.Package.ImportPath] = true
		p := bin.Package
		opts := pertest.RunOptions{
			Layout: b.layoutPath, Run: co.Run, Flags: co.TestFlags, Timeout: co.Timeout, Trace: trace.since, Shards: shards, Split: b.split[p.ImportPath],
			Quiet:  !co.PassingOutput,
			Memory: co.TestMemory,
		}
		result := &storedPackage{Package: p.ImportPath, Key: keyOf[p.ImportPath], Collected: time.Now(), QuietPasses: opts.QuietShards()}
		table := b.fileTable(listing.Closure(p), result)
		if increasing(table) {
			// The leaves come packed as blocks, as the store keeps them.
			opts.Renumber = table
		} else {
			bug.Reportf("the counter table of %s is not increasing", p.ImportPath)
		}
		profiles := b.edgeProfiler(listing.Closure(p), result)
		g.Go(func() error {
			start := time.Now()
			var hits []int32 // reused: only the packed set stays
			chunk := 0       // bytes of the tests not stored yet, roughly
			// Each leaf is converted, and its tests stored a chunk at a
			// time, as its verdict is final: a package's run is not held
			// whole, its counters and events beside its converted tests.
			err := pertest.Run(gctx, w.mod, bin, opts, func(leaf pertest.Leaf) { report.leafDone(p.ImportPath, leaf.Verdict) }, func(leaf pertest.Leaf) error {
				t := storedTest{TestRun: TestRun{Package: p.ImportPath, Name: leaf.Name, Verdict: leaf.Verdict, Elapsed: leaf.Elapsed, Output: leaf.Output}}
				switch {
				case leaf.Verdict == Panic || leaf.Verdict == Timeout:
					t.FailSites = panicSites(leaf.Output, w.mod.Root)
				case leaf.Verdict == Fail:
					t.FailSites = reportSites(leaf.Output, p.Dir, w.mod.Root)
				case leaf.Verdict == Memory:
					result.MemoryBound = co.TestMemory
				}
				if opts.Renumber != nil {
					t.Hits = leaf.Counters.Bytes() // sized for its members by the reader; held until its chunk is stored
				} else {
					hits = hits[:0]
					for c := range leaf.Counters.All() {
						if c < len(table) && table[c] >= 0 {
							hits = append(hits, table[c])
						}
					}
					slices.Sort(hits)
					t.Hits = packHits(hits)
				}
				if profiles != nil {
					ids, counts := profiles.profile(leaf.Counts)
					t.Edges, t.EdgeCounts = packHits(ids), packCounts(counts)
				}
				result.tests = append(result.tests, t)
				if chunk += len(t.Name) + len(t.Output) + len(t.Hits) + len(t.Edges) + len(t.EdgeCounts); chunk >= testChunkBytes {
					if err := writer.putTests(result); err != nil {
						return err
					}
					chunk = 0
				}
				return nil
			})
			if err != nil {
				return err
			}
			trace.since(start, "run and convert "+p.ImportPath)
			// Done once stored: a reader of the results so far (the
			// server's, on a package with a failing test) must find them.
			pkg := p.ImportPath
			if err := writer.putResult(result, func() { report.packageDone(pkg) }); err != nil {
				return err
			}
			mu.Lock()
			results[result.Key] = result
			mu.Unlock()
			return nil
		})
	}
	if buildErr != nil {
		if err := g.Wait(); err != nil {
			return nil, storedFiles{}, err // what cancelled the build
		}
		return nil, storedFiles{}, buildErr
	}
	for _, p := range toRun {
		if built[p.ImportPath] {
			continue
		}
		result := &storedPackage{Package: p.ImportPath, Key: keyOf[p.ImportPath], Collected: time.Now()}
		b.fileTable(listing.Closure(p), result)
		b.edgeProfiler(listing.Closure(p), result)
		result.BuildErr = w.mod.PlainBuildError(ctx, p, co.BuildFlags, failed[p.ImportPath])
		pkg := p.ImportPath
		if err := writer.putResult(result, func() { report.packageDone(pkg) }); err != nil {
			g.Wait()
			return nil, storedFiles{}, err
		}
		mu.Lock()
		results[result.Key] = result
		mu.Unlock()
	}
	if err := g.Wait(); err != nil {
		return nil, storedFiles{}, err
	}
	if err := writer.close(); err != nil {
		return nil, storedFiles{}, err
	}
	writer.report(trace)
	return results, files, nil
}

// fileTable records in result the files p's binary covers and returns the
// mapping from a global counter to the index of its block in that table,
// or -1 for a counter outside it.
//
// Files are listed in counter order (packages by import path), so the
// mapping is increasing and a test's hits stay sorted through it.
func (b *build) fileTable(deps []*testbuild.Package, result *storedPackage) []int32 {
	deps = slices.Clone(deps)
	slices.SortFunc(deps, func(a, b *testbuild.Package) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	table := make([]int32, len(b.counterOf))
	for i := range table {
		table[i] = -1
	}
	next := int32(0)
	for _, q := range deps {
		for _, f := range b.byPackage[q.ImportPath] {
			result.Files = append(result.Files, fileRef{Path: f.rel, Hash: f.hash, Blocks: len(f.blocks)})
			for i := range f.blocks {
				table[f.first+i] = next
				next++
			}
		}
	}
	return table
}

// increasing reports whether the blocks of a file table increase with the
// counters, as fileTable makes them when the layout lists packages in
// import path order. The leaves of a table that does not are read the
// slow way: each leaf's counters decoded, renumbered and sorted.
func increasing(table []int32) bool {
	last := int32(-1)
	for _, b := range table {
		if b < 0 {
			continue
		}
		if b <= last {
			return false
		}
		last = b
	}
	return true
}

// edgeProfiler turns a binary's leaf tests' edge counters into edge
// profiles over its flow table.
type edgeProfiler struct {
	b       *build
	offset  []int    // file (index into b.files) -> its first edge in the table; -1 outside it
	sums    []uint64 // scratch: traversals per edge of the table
	touched []int32  // scratch: the edges with traversals
}

// edgeProfiler records in result the files whose graphs p's binary covers,
// in the order of fileTable, and returns the profiler of that table (nil
// without edges).
func (b *build) edgeProfiler(deps []*testbuild.Package, result *storedPackage) *edgeProfiler {
	if !b.edges {
		return nil
	}
	result.Flow, result.FlowVersion = true, edges.Version
	deps = slices.Clone(deps)
	slices.SortFunc(deps, func(a, b *testbuild.Package) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	offset := make([]int, len(b.files))
	for i := range offset {
		offset[i] = -1
	}
	next := 0
	for _, q := range deps {
		for _, f := range b.byPackage[q.ImportPath] {
			if f.flow == nil {
				continue
			}
			result.FlowFiles = append(result.FlowFiles, flowRef{Path: f.rel, Hash: f.hash, Edges: f.flow.Edges})
			offset[f.index] = next
			next += f.flow.Edges
		}
	}
	return &edgeProfiler{b: b, offset: offset, sums: make([]uint64, next)}
}

// profile turns a test's edge counters into traversals per edge of the
// table, ascending: a counter stands for a path of edges through blocks
// without a probe and counts each of them. Not safe for concurrent use.
func (p *edgeProfiler) profile(counts []pertest.Count) ([]int32, []uint64) {
	b := p.b
	for _, c := range counts {
		i := c.Index - b.edgeBase
		if i < 0 || i >= len(b.edgeSlots) {
			continue
		}
		s := b.edgeSlots[i]
		base := p.offset[s.file]
		if base < 0 {
			continue // a file outside this binary's packages cannot run
		}
		for _, e := range b.files[s.file].flow.Slots[s.slot] {
			edge := int32(base) + e
			if p.sums[edge] == 0 {
				p.touched = append(p.touched, edge)
			}
			p.sums[edge] += c.N
		}
	}
	slices.Sort(p.touched)
	ids := slices.Clone(p.touched)
	ns := make([]uint64, len(ids))
	for i, e := range ids {
		ns[i], p.sums[e] = p.sums[e], 0
	}
	p.touched = p.touched[:0]
	return ids, ns
}

// instrument puts into the overlay every module package the binaries are
// built from: counters in non-test files, test hooks, and the runtime;
// with edges, the edge counters too, in ranges after all block counters.
func (w *Workspace) instrument(listing *testbuild.Listing, toRun []*testbuild.Package, overlay *testbuild.Overlay, work string, atomic, withEdges bool) (*build, error) {
	b := &build{byPackage: map[string][]*instrumentedFile{}, split: map[string][]string{}, edges: withEdges}
	type edgeRange struct {
		pkg   string
		n     int
		files []*instrumentedFile
	}
	var edgeRanges []edgeRange
	need := map[string]*testbuild.Package{}
	running := map[string]bool{}
	for _, p := range toRun {
		running[p.ImportPath] = true
		for _, q := range listing.Closure(p) {
			need[q.ImportPath] = q
		}
	}
	runtimePath, err := overlay.AddRuntime(pertest.Runtime())
	if err != nil {
		return nil, err
	}
	reuse := newReuseCache(w.mod.FileCache())
	b.reuse = reuse
	ok := false
	defer func() {
		if !ok {
			reuse.wait()
		}
	}()
	var layout pertest.Layout
	for _, path := range slices.Sorted(maps.Keys(need)) {
		q := need[path]
		// Every file of the package is read first: the names the
		// instrumentation declares must differ from all of theirs.
		sources := map[string][]byte{}
		var all [][]byte
		lists := [][]string{q.GoFiles}
		if running[path] {
			lists = append(lists, q.TestGoFiles, q.XTestGoFiles)
		}
		for _, list := range lists {
			for _, name := range list {
				file := filepath.Join(q.Dir, name)
				src, err := os.ReadFile(file)
				if err != nil {
					return nil, fmt.Errorf("reading %s: %w", file, err)
				}
				sources[name] = src
				all = append(all, src)
			}
		}
		names := pertest.NamesFor(all...)
		suites := pertest.SuiteTypes(sources)
		var edgeNames edges.Names
		if withEdges {
			edgeNames = edges.NamesFor(all...)
		}
		var counted []*instrumentedFile
		n, nEdges := 0, 0
		for _, list := range lists {
			for _, name := range list {
				file := filepath.Join(q.Dir, name)
				isTest := strings.HasSuffix(name, "_test.go")
				src, res, err := reuse.instrument(file, sources[name], instrument.FileOptions{Coverage: !isTest, Runtime: runtimePath, Suites: suites,
					Options: instrument.Options{FirstID: n, Names: names, Atomic: atomic}})
				if err != nil {
					continue // the build reports a syntax error
				}
				if res.Generated {
					continue
				}
				b.split[q.ImportPath] = append(b.split[q.ImportPath], res.Split...)
				if !isTest {
					rel, _ := relToRoot(file, w.mod.Root)
					sum, err := w.mod.Hasher().File(file)
					if err != nil {
						return nil, err
					}
					f := &instrumentedFile{rel: rel, hash: sum, blocks: res.Blocks}
					counted = append(counted, f)
					n += len(res.Blocks)
					if withEdges {
						// The edge pass edits the source the coverage
						// pass's edits apply to (perhaps reused).
						if f.flow, err = reuse.edges(file, src, edges.Options{FirstID: nEdges, Names: edgeNames, Atomic: atomic}); err != nil {
							return nil, err
						}
						if f.flow.Ambiguous > 0 {
							bug.Reportf("%s: %d pairs of probed blocks joined by more than one path", rel, f.flow.Ambiguous)
						}
						nEdges += len(f.flow.Slots)
						lang := ""
						if f.flow.Generic {
							lang = edges.PassLang
						}
						if err := overlay.Edit(file, src, f.flow.Edits, lang); err != nil {
							return nil, err
						}
					}
				}
				if err := overlay.Edit(file, src, res.Edits, ""); err != nil {
					return nil, err
				}
			}
		}
		first := layout.Total()
		if n > 0 {
			first = layout.Add(q.ImportPath, n)
		}
		for _, f := range counted {
			f.first = first
			f.index = len(b.files)
			first += len(f.blocks)
			for range f.blocks {
				b.counterOf = append(b.counterOf, f.index)
			}
			b.files = append(b.files, f)
			b.byPackage[q.ImportPath] = append(b.byPackage[q.ImportPath], f)
		}
		if n > 0 {
			counters := pertest.CountersFile(q.Name, q.ImportPath, runtimePath, names, n)
			if err := overlay.Put(filepath.Join(q.Dir, countersFile), counters); err != nil {
				return nil, err
			}
		}
		if nEdges > 0 {
			counters := edges.CountersFile(q.Name, q.ImportPath, runtimePath, names, edgeNames, nEdges, atomic)
			if err := overlay.Put(filepath.Join(q.Dir, edgesFile), counters); err != nil {
				return nil, err
			}
			edgeRanges = append(edgeRanges, edgeRange{q.ImportPath, nEdges, counted})
		}
	}
	// Edge counters follow all block counters, whose indices the block
	// tables assume to be below their count.
	b.edgeBase = layout.Total()
	for _, r := range edgeRanges {
		layout.AddCounting(edges.RangeName(r.pkg), r.n)
		for _, f := range r.files {
			for slot := range f.flow.Slots {
				b.edgeSlots = append(b.edgeSlots, edgeSlot{file: f.index, slot: int32(slot)})
			}
		}
	}
	b.layoutPath = filepath.Join(work, "layout")
	if err := layout.Write(b.layoutPath); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

func convertBlocks(rel string, blocks []instrument.Block) []Block {
	out := make([]Block, len(blocks))
	for i, b := range blocks {
		out[i] = Block{File: rel, Start: Pos(b.Start), End: Pos(b.End), Lines: b.Lines}
	}
	return out
}
