package spectra

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
)

// Options configure a Workspace.
type Options struct {
	// CacheDir is where stores live; empty means $FAULTLINE_CACHE, or else
	// os.UserCacheDir()/faultline.
	CacheDir string
	// Warn receives problems that were handled but that the user should
	// know of, such as a corrupt store that was rebuilt. Nil discards them.
	Warn func(string)
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
	dir        string // where package patterns are resolved
	root       string // module root
	modulePath string
	store      *store

	// self is the hash of the running faultline executable, computed once:
	// it cannot change while the process lives, and the server collects on
	// every save.
	selfOnce sync.Once
	self     string
	selfErr  error
}

func (w *Workspace) selfHash() (string, error) {
	w.selfOnce.Do(func() {
		path, err := os.Executable()
		if err != nil {
			w.selfErr = fmt.Errorf("locating the faultline executable: %w", err)
			return
		}
		if w.self, err = newFileHasher().file(path); err != nil {
			w.selfErr = fmt.Errorf("hashing the faultline executable: %w", err)
		}
	})
	return w.self, w.selfErr
}

// Open finds the module holding dir and opens its store.
func Open(dir string, opts Options) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", dir, err)
	}
	root := abs
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return nil, fmt.Errorf("no go.mod in %s or any parent directory: faultline works on Go modules", abs)
		}
		root = parent
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("reading go.mod: %w", err)
	}
	modulePath := modfile.ModulePath(data)
	if modulePath == "" {
		return nil, fmt.Errorf("%s: no module directive", filepath.Join(root, "go.mod"))
	}
	cache := opts.CacheDir
	if cache == "" {
		cache = os.Getenv("FAULTLINE_CACHE")
	}
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("finding the user cache directory: %w", err)
		}
		cache = filepath.Join(base, "faultline")
	}
	sum := sha256.Sum256([]byte(root))
	storeDir := filepath.Join(cache, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(storeDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating store directory: %w", err)
	}
	return &Workspace{
		dir:        abs,
		root:       root,
		modulePath: modulePath,
		store:      &store{path: filepath.Join(storeDir, "spectra.db"), warn: opts.Warn},
	}, nil
}

// Root returns the module root directory.
func (w *Workspace) Root() string { return w.root }

// ModulePath returns the module's path.
func (w *Workspace) ModulePath() string { return w.modulePath }

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
	hashes := newFileHasher()
	for _, key := range sortedKeys(pkgs) {
		p := pkgs[key]
		current := true
		for _, f := range p.Files {
			h, err := hashes.file(filepath.Join(w.root, filepath.FromSlash(f.Path)))
			if err != nil || h != f.Hash {
				current = false
				break
			}
		}
		if current {
			fresh = append(fresh, p)
		}
	}
	return assemble(w.root, w.modulePath, fresh, files), nil
}

var errNoTests = errors.New("no test packages")
