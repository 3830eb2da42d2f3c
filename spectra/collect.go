package spectra

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"faultline/spectra/instrument"
)

// maxOutput bounds the output kept per test; the end is kept, since that
// is where a failure's message and trace are.
const maxOutput = 64 << 10

// Collect brings the store up to date for the selected packages, running
// only the tests whose binaries' inputs changed, and returns their spectra.
func (w *Workspace) Collect(ctx context.Context, co CollectOptions) (*Matrix, error) {
	if len(co.Packages) == 0 {
		co.Packages = []string{"./..."}
	}
	if co.Timeout <= 0 {
		co.Timeout = DefaultTimeout
	}
	if co.Parallel <= 0 {
		co.Parallel = runtime.GOMAXPROCS(0)
	}
	trace := newPhaseTrace()
	defer trace.done("collect")
	gorun := &goTool{root: w.root, env: os.Environ()}
	// The go command's answers do not depend on each other: ask at once.
	var all, requested []*listedPackage
	var env string
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		all, err = gorun.list(gctx, w.root, "./...")
		if err != nil {
			return fmt.Errorf("listing the module's packages: %w", err)
		}
		return nil
	})
	wholeModule := w.dir == w.root && len(co.Packages) == 1 && co.Packages[0] == "./..."
	if !wholeModule {
		g.Go(func() (err error) {
			requested, err = (&goTool{root: w.dir, env: os.Environ()}).list(gctx, w.root, co.Packages...)
			if err != nil {
				return fmt.Errorf("listing %s: %w", strings.Join(co.Packages, " "), err)
			}
			return nil
		})
	}
	g.Go(func() (err error) {
		env, err = gorun.goEnv(gctx)
		return err
	})
	var test2json string
	g.Go(func() (err error) {
		test2json, err = gorun.toolPath(gctx, "test2json")
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if wholeModule {
		requested = all
	}
	byPath := map[string]*listedPackage{}
	for _, p := range all {
		byPath[p.ImportPath] = p
	}
	var targets []*listedPackage
	for _, p := range requested {
		if len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 {
			targets = append(targets, p)
		}
	}
	hashes := newFileHasher()
	base := sha256.New()
	// The collector itself is an input: a result made by another build of
	// faultline is not reused.
	selfSum, err := w.selfHash()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(base, "%s %s\n%s\nrun=%q timeout=%s build=%q test=%q\n", instrument.Version, selfSum, env, co.Run, co.Timeout, co.BuildFlags, co.TestFlags)
	for _, name := range []string{"go.mod", "go.sum"} {
		sum, _ := hashes.file(filepath.Join(w.root, name))
		fmt.Fprintf(base, "%s %s\n", name, sum)
	}
	baseSum := base.Sum(nil)
	keys := map[string]string{} // import path -> package key
	for _, p := range targets {
		keys[p.ImportPath] = packageKey(baseSum, p, closure(p, byPath), hashes)
	}
	trace.done("list and hash")
	stored, files, err := w.store.results(values(keys))
	trace.done("read store")
	if err != nil {
		return nil, err
	}
	var toRun []*listedPackage
	for _, p := range targets {
		if stored[keys[p.ImportPath]] == nil {
			toRun = append(toRun, p)
		}
	}
	report := newReporter(co.Progress, len(targets), len(targets)-len(toRun))
	if len(toRun) > 0 {
		fresh, freshFiles, err := w.run(ctx, toRun, byPath, keys, hashes, co, report, trace, test2json)
		if err != nil {
			return nil, err
		}
		for k, p := range fresh {
			stored[k] = p
		}
		for k, f := range freshFiles {
			files[k] = f
		}
	}
	report.finish()
	exists := map[string]bool{}
	for _, p := range all {
		exists[p.ImportPath] = true
	}
	if err := w.store.forget(exists); err != nil {
		return nil, err
	}
	var pkgs []*storedPackage
	for _, p := range targets {
		if r := stored[keys[p.ImportPath]]; r != nil {
			pkgs = append(pkgs, r)
		}
	}
	return assemble(w.root, w.modulePath, pkgs, files), nil
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// closure returns the module packages p's test binary is built from: p and
// every module package its code and tests import, directly or not.
func closure(p *listedPackage, byPath map[string]*listedPackage) []*listedPackage {
	seen := map[string]bool{p.ImportPath: true}
	out := []*listedPackage{p}
	var visit func(imports []string)
	visit = func(imports []string) {
		for _, imp := range imports {
			q := byPath[imp]
			if q == nil || seen[imp] {
				continue
			}
			seen[imp] = true
			out = append(out, q)
			visit(q.Imports)
		}
	}
	visit(p.Imports)
	visit(p.TestImports)
	visit(p.XTestImports)
	sort.Slice(out[1:], func(i, j int) bool { return out[1+i].ImportPath < out[1+j].ImportPath })
	return out
}

// packageKey hashes everything p's test binary is built from.
func packageKey(base []byte, p *listedPackage, deps []*listedPackage, hashes *fileHasher) string {
	d := sha256.New()
	d.Write(base)
	for _, q := range deps {
		fmt.Fprintf(d, "package %s\n", q.ImportPath)
		names := concat(q.GoFiles, q.CgoFiles, q.EmbedFiles)
		if q == p {
			names = concat(names, q.TestGoFiles, q.XTestGoFiles, q.TestEmbedFiles, q.XTestEmbedFiles)
			fmt.Fprintf(d, "testdata %s\n", hashes.tree(filepath.Join(q.Dir, "testdata")))
		}
		for _, name := range names {
			sum, err := hashes.file(filepath.Join(q.Dir, name))
			if err != nil {
				sum = "unreadable"
			}
			fmt.Fprintf(d, "%s %s\n", name, sum)
		}
		if q.Error != nil {
			fmt.Fprintf(d, "error %s\n", q.Error.Err)
		}
	}
	return hex.EncodeToString(d.Sum(nil))
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// instrumentedFile is a non-test file with counters.
type instrumentedFile struct {
	rel, hash string
	first     int // global index of its first counter
	index     int // position in build.files
	blocks    []instrument.Block
}

// build is one instrumented build of the module.
type build struct {
	files      []*instrumentedFile
	byPackage  map[string][]*instrumentedFile
	counterOf  []int // global counter -> index into files
	counters   int
	layoutPath string
	overlay    string
}

// run instruments, builds and runs the packages, storing each result as
// soon as it is complete, so that an interrupted collection keeps them.
func (w *Workspace) run(ctx context.Context, toRun []*listedPackage, byPath map[string]*listedPackage, keys map[string]string, hashes *fileHasher, co CollectOptions, report *reporter, trace *phaseTrace, test2json string) (map[string]*storedPackage, map[string]*storedFile, error) {
	work, err := os.MkdirTemp("", "faultline-")
	if err != nil {
		return nil, nil, fmt.Errorf("creating scratch directory: %w", err)
	}
	if os.Getenv("FAULTLINE_DEBUG") == "keep" {
		fmt.Fprintf(os.Stderr, "faultline: keeping the overlay, binaries and records in %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	b, err := w.instrument(toRun, byPath, hashes, work, slices.Contains(co.BuildFlags, "-race"))
	if err != nil {
		return nil, nil, err
	}
	files := map[string]*storedFile{}
	var toStore []storedFile
	for _, f := range b.files {
		sf := storedFile{Path: f.rel, Hash: f.hash, Blocks: convertBlocks(f.rel, f.blocks)}
		files[fileKey(f.rel, f.hash)] = &sf
		toStore = append(toStore, sf)
	}
	if err := w.store.putFiles(toStore); err != nil {
		return nil, nil, err
	}
	trace.done("instrument")
	report.phase("build")
	gorun := &goTool{root: w.root, env: os.Environ()}
	binDir := filepath.Join(work, "bin")
	failed, err := gorun.buildTests(ctx, b.overlay, binDir, toRun, co.BuildFlags)
	if err != nil {
		return nil, nil, err
	}
	trace.done("build")
	report.phase("run")
	results := map[string]*storedPackage{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(co.Parallel)
	for _, p := range toRun {
		deps := closure(p, byPath)
		result := &storedPackage{Package: p.ImportPath, Key: keys[p.ImportPath], Collected: time.Now()}
		table := b.fileTable(deps, result)
		bin := binaryPath(binDir, p.ImportPath)
		if _, err := os.Stat(bin); err != nil {
			result.BuildErr = w.buildMessage(ctx, p, deps, failed, co.BuildFlags)
			if err := w.store.putResult(result); err != nil {
				return nil, nil, err
			}
			results[result.Key] = result
			report.packageDone(p.ImportPath)
			continue
		}
		g.Go(func() error {
			workDir := filepath.Join(work, "run", strings.ReplaceAll(p.ImportPath, "/", "_"))
			if err := os.MkdirAll(workDir, 0o755); err != nil {
				return err
			}
			tb := &testBinary{pkg: p, path: bin, run: co.Run, flags: co.TestFlags, timeout: co.Timeout, layout: b.layoutPath,
				test2json: test2json, root: w.root, workDir: workDir, trace: trace}
			start := time.Now()
			leaves, err := runBinary(gctx, tb, report.leafDone)
			if err != nil {
				return err
			}
			trace.since(start, "run "+p.ImportPath)
			for _, leaf := range leaves {
				t := storedTest{TestRun: leaf.TestRun}
				t.Output = truncateOutput(t.Output)
				for _, c := range leaf.counters {
					if c < len(b.counterOf) {
						if idx := table(c); idx >= 0 {
							t.Hits = append(t.Hits, int32(idx))
						}
					}
				}
				sort.Slice(t.Hits, func(i, j int) bool { return t.Hits[i] < t.Hits[j] })
				result.Tests = append(result.Tests, t)
			}
			if err := w.store.putResult(result); err != nil {
				return err
			}
			mu.Lock()
			results[result.Key] = result
			mu.Unlock()
			report.packageDone(p.ImportPath)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return results, files, nil
}

func truncateOutput(s string) string {
	if len(s) <= maxOutput {
		return s
	}
	return "[... output truncated ...]\n" + s[len(s)-maxOutput:]
}

// fileTable records in result the files p's binary covers and returns the
// mapping from a global counter to the index of its block in that table,
// or -1 for a counter outside it.
func (b *build) fileTable(deps []*listedPackage, result *storedPackage) func(int) int {
	base := map[int]int{} // index into b.files -> first table index
	next := 0
	for _, q := range deps {
		for _, f := range b.byPackage[q.ImportPath] {
			base[f.index] = next
			result.Files = append(result.Files, fileRef{Path: f.rel, Hash: f.hash, Blocks: len(f.blocks)})
			next += len(f.blocks)
		}
	}
	return func(counter int) int {
		fi := b.counterOf[counter]
		start, ok := base[fi]
		if !ok {
			return -1
		}
		return start + counter - b.files[fi].first
	}
}

// instrument writes the overlay for every module package the binaries are
// built from: counters in non-test files, hooks in the test files of the
// packages to run, and the runtime package.
func (w *Workspace) instrument(toRun []*listedPackage, byPath map[string]*listedPackage, hashes *fileHasher, work string, atomic bool) (*build, error) {
	b := &build{byPackage: map[string][]*instrumentedFile{}}
	need := map[string]*listedPackage{}
	for _, p := range toRun {
		for _, q := range closure(p, byPath) {
			need[q.ImportPath] = q
		}
	}
	// Instrumented sources live under their content hash beside the store,
	// so that an unchanged file has an unchanged path. The directory's name
	// starts with "_" so that the go command never takes it for a package
	// when the store sits inside a module.
	srcDir := filepath.Join(filepath.Dir(w.store.path), "_overlay")
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating overlay directory: %w", err)
	}
	overlay := map[string]string{}
	put := func(target string, data []byte) error {
		sum := sha256.Sum256(append([]byte(target+"\x00"), data...))
		path := filepath.Join(srcDir, hex.EncodeToString(sum[:12])+"_"+filepath.Base(target))
		now := time.Now()
		if os.Chtimes(path, now, now) != nil { // absent: write it
			tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return fmt.Errorf("writing overlay file: %w", err)
			}
			if err := os.Rename(tmp, path); err != nil {
				return fmt.Errorf("writing overlay file: %w", err)
			}
		}
		overlay[target] = path
		return nil
	}
	pruneOverlay(srcDir, overlayLifetime)
	runtimePath := w.modulePath + "/" + instrument.RuntimeDir
	var layout strings.Builder
	for _, path := range sortedKeys(need) {
		q := need[path]
		first := b.counters
		for _, name := range q.GoFiles {
			file := filepath.Join(q.Dir, name)
			src, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", file, err)
			}
			if isGenerated(file, src) {
				continue
			}
			res, err := instrument.File(file, src, instrument.Options{Coverage: true, FirstID: b.counters - first, Runtime: runtimePath, Atomic: atomic})
			if err != nil {
				continue // the build reports the syntax error
			}
			rel, _ := relToRoot(file, w.root)
			sum, _ := hashes.file(file)
			f := &instrumentedFile{rel: rel, hash: sum, first: b.counters, index: len(b.files), blocks: res.Blocks}
			for range res.Blocks {
				b.counterOf = append(b.counterOf, len(b.files))
			}
			b.counters += len(res.Blocks)
			b.files = append(b.files, f)
			b.byPackage[q.ImportPath] = append(b.byPackage[q.ImportPath], f)
			if res.Source != nil {
				if err := put(file, res.Source); err != nil {
					return nil, err
				}
			}
		}
		if n := b.counters - first; n > 0 {
			fmt.Fprintf(&layout, "%s %d %d\n", q.ImportPath, first, n)
			counters := instrument.CountersFile(q.Name, q.ImportPath, runtimePath, n)
			if err := put(filepath.Join(q.Dir, "zz_faultline_counters.go"), counters); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range toRun {
		for _, name := range concat(p.TestGoFiles, p.XTestGoFiles) {
			file := filepath.Join(p.Dir, name)
			src, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", file, err)
			}
			res, err := instrument.File(file, src, instrument.Options{Runtime: runtimePath})
			if err != nil || res.Source == nil {
				continue
			}
			if err := put(file, res.Source); err != nil {
				return nil, err
			}
		}
	}
	rt, err := instrument.RuntimeFiles()
	if err != nil {
		return nil, err
	}
	for name, data := range rt {
		if err := put(filepath.Join(w.root, filepath.FromSlash(instrument.RuntimeDir), name), data); err != nil {
			return nil, err
		}
	}
	b.layoutPath = filepath.Join(work, "layout")
	if err := os.WriteFile(b.layoutPath, []byte(layout.String()), 0o644); err != nil {
		return nil, fmt.Errorf("writing counter layout: %w", err)
	}
	data, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		return nil, err
	}
	b.overlay = filepath.Join(work, "overlay.json")
	if err := os.WriteFile(b.overlay, data, 0o644); err != nil {
		return nil, fmt.Errorf("writing overlay: %w", err)
	}
	return b, nil
}

// overlayLifetime is how long an instrumented source unused by any
// collection is kept.
const overlayLifetime = 14 * 24 * time.Hour

// pruneOverlay removes instrumented sources no collection used for a while
// (every use touches them).
func pruneOverlay(dir string, lifetime time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > lifetime {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// isGenerated reports a file carrying the standard "Code generated ... DO
// NOT EDIT." comment: its lines are nobody's to fix.
func isGenerated(name string, src []byte) bool {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		return false
	}
	return ast.IsGenerated(f)
}

func convertBlocks(rel string, blocks []instrument.Block) []Block {
	out := make([]Block, len(blocks))
	for i, b := range blocks {
		out[i] = Block{File: rel, Start: Pos(b.Start), End: Pos(b.End), Lines: b.Lines}
	}
	return out
}

// buildMessage explains why p's test binary did not build. The
// instrumented build's messages have shifted columns, so the message is
// taken from a plain build; if the plain build works, the instrumentation
// is at fault and says so.
func (w *Workspace) buildMessage(ctx context.Context, p *listedPackage, deps []*listedPackage, failed map[string]string, buildFlags []string) string {
	gorun := &goTool{root: w.root, env: os.Environ()}
	args := append(append([]string{"test", "-c", "-vet=off", "-o", os.DevNull}, buildFlags...), p.ImportPath)
	cmd := gorun.command(ctx, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var msg []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if !strings.HasPrefix(line, "# ") {
				msg = append(msg, line)
			}
		}
		return strings.Join(msg, "\n")
	}
	var msg strings.Builder
	for _, q := range deps {
		msg.WriteString(failed[q.ImportPath])
	}
	if msg.Len() == 0 {
		for _, pkg := range sortedKeys(failed) {
			msg.WriteString(failed[pkg])
		}
	}
	return "faultline could not instrument this package (a plain build works): " + msg.String()
}
