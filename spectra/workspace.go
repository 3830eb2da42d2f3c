package spectra

import (
	"github.com/faultline-go/faultline/internal/testbuild"
	"maps"
	"path/filepath"
	"slices"
	"time"
)

// Options configure a Workspace.
type Options struct {
	// CacheDir is where stores live; empty means $FAULTLINE_CACHE, or else
	// os.UserCacheDir()/faultline.
	CacheDir string
	// Warn receives problems that were handled but that the user should
	// know of, such as a corrupt store that was rebuilt. Nil discards them.
	Warn func(string)
	// Env is the environment of go commands and tests; nil means the
	// process's own.
	Env []string
	// TestMemory bounds the resident memory of each test process tree, in
	// bytes, in collections and analyses alike; 0 means
	// testbuild.DefaultTestMemory().
	TestMemory int64
}

// CollectOptions select and bound one collection.
type CollectOptions struct {
	Packages []string      // package patterns, default ./...
	Run      string        // regexp selecting tests, as go test -run; empty means all
	Timeout  time.Duration // per leaf test; zero means DefaultTimeout
	Parallel int           // test processes at once; zero means the number of CPUs
	// BuildFlags are passed to the go command when building test binaries
	// (for example -tags=integration or -race); TestFlags to every test
	// binary (for example -test.short). Both are part of the store's keys.
	BuildFlags []string
	TestFlags  []string
	// TestMemory bounds the resident memory of each test process tree, in
	// bytes; 0 means the workspace's (Options.TestMemory). A test that goes
	// over it gets the verdict Memory.
	TestMemory int64
	// Edges collects each test's edge profile beside its spectrum, in the
	// same run (Matrix.Flow, for BlockRank). Results collected without
	// them are collected again; results with them serve either way.
	Edges bool
	// VerdictsOnly leaves the matrix's spectra out: its tests have no hits
	// and it has no flow (the store keeps them all the same). For a caller
	// that shows verdicts only, as faultline test does: assembling a large
	// module's spectra costs a second of CPU.
	VerdictsOnly bool
	// PassingOutput keeps what passing and skipped tests print, for a
	// caller that shows it (faultline test -v). Without it a package whose
	// tests run in several processes at once runs them without -test.v,
	// which on thousands of tiny tests costs more than the tests; a stored
	// result without that output is collected again when it is wanted.
	PassingOutput bool
	// Progress, when set, is called as work advances, from several goroutines
	// one at a time.
	Progress func(Progress)
}

// DefaultTimeout bounds one leaf test.
const DefaultTimeout = 60 * time.Second

// Progress reports how far a collection has come.
type Progress struct {
	Phase        string // "build", "run" or "done"
	Packages     int    // test packages in this collection
	PackagesDone int    // packages built (build phase) or finished (run phase), reused ones included
	Reused       int    // packages whose results came from the store unchanged
	Tests        int    // leaf tests finished so far
	Failing      int    // failing leaf tests so far
	Current      string // the package being worked on
}

// Workspace is one Go module and its spectrum store.
type Workspace struct {
	mod   *testbuild.Module
	store *store
}

// Open finds the module holding dir and opens its store.
func Open(dir string, opts Options) (*Workspace, error) {
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: opts.CacheDir, Env: opts.Env, TestMemory: opts.TestMemory})
	if err != nil {
		return nil, err
	}
	return &Workspace{mod: mod, store: &store{path: filepath.Join(mod.CacheDir(), "spectra.db"), warn: opts.Warn}}, nil
}

// Module is the module the workspace collects for, through the
// instrumented-build layer.
func (w *Workspace) Module() *testbuild.Module { return w.mod }

// Root returns the module root directory.
func (w *Workspace) Root() string { return w.mod.Root }

// ModulePath returns the module's path.
func (w *Workspace) ModulePath() string { return w.mod.Path }

// StorePath returns the store file, for watching.
func (w *Workspace) StorePath() string { return w.store.path }

// Load returns the current results of every package in the store, running
// nothing. Results whose source files changed on disk since they were
// collected are left out: they would point at the wrong lines.
func (w *Workspace) Load() (*Matrix, error) {
	st, err := w.store.current()
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, key := range st.Packages {
		keys = append(keys, key)
	}
	pkgs, files, err := w.store.results(keys)
	if err != nil {
		return nil, err
	}
	var fresh []*storedPackage
	hashes := w.mod.Hasher()
	for _, key := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[key]
		current := true
		for _, f := range p.Files {
			h, err := hashes.File(filepath.Join(w.mod.Root, filepath.FromSlash(f.Path)))
			if err != nil || h != f.Hash {
				current = false
				break
			}
		}
		if current {
			fresh = append(fresh, p)
		}
	}
	return assemble(w.mod.Root, w.mod.Path, fresh, files, w.store, true)
}
