package testbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/faultline-go/faultline/internal/filecache"
	"golang.org/x/mod/modfile"
)

// Config says where a Module keeps its caches and which environment its go
// commands and test processes get.
type Config struct {
	// CacheDir is the root of faultline's caches; empty means
	// $FAULTLINE_CACHE, or else os.UserCacheDir()/faultline. The file
	// cache under it is bounded by $FAULTLINE_CACHE_MAX (filecache.Bound).
	CacheDir string
	// Env is the environment of every go command and test process; nil
	// means os.Environ().
	Env []string
	// TestMemory bounds the resident memory of each test process tree, in
	// bytes, unless RunConfig.Memory says otherwise; 0 means
	// DefaultTestMemory().
	TestMemory int64
}

// Module is one Go module on disk: where it is, how the go command sees
// it, and the directory where faultline keeps what it derives from it.
type Module struct {
	Root      string // absolute module root
	Path      string // module path
	GoVersion string // the go directive of go.mod, e.g. "1.21"; "" when absent
	dir       string // the directory package patterns resolve in
	cacheRoot string // faultline's cache root
	cacheDir  string // this module's cache directory
	env       []string
	hashes    *Hasher
	files     *filecache.Cache // the file cache, scoped to this module
	// testMemory is Config.TestMemory resolved; memory enforces it.
	testMemory int64
	memory     memoryWatch

	mu       sync.Mutex
	toolEnv  *toolEnv   // cached go env and tool paths, revalidated per use
	askGoEnv sync.Mutex // one asker of go env at a time
}

// Open finds the module holding dir.
func Open(dir string, cfg Config) (*Module, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		// A module reached through a symbolic link is the module it points
		// at: one root, one cache, and the paths the go command reports.
		abs, err = filepath.EvalSymlinks(abs)
	}
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
	mf, err := modfile.ParseLax(filepath.Join(root, "go.mod"), data, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing go.mod: %w", err)
	}
	if mf.Module == nil || mf.Module.Mod.Path == "" {
		return nil, fmt.Errorf("%s: no module directive", filepath.Join(root, "go.mod"))
	}
	cache, err := filecache.Root(cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	bound, err := filecache.Bound()
	if err != nil {
		return nil, err
	}
	files, err := filecache.Open(cache, bound)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(root))
	cacheDir := filepath.Join(cache, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the cache directory: %w", err)
	}
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	testMemory := cfg.TestMemory
	if testMemory <= 0 {
		testMemory = DefaultTestMemory()
	}
	m := &Module{Root: root, Path: mf.Module.Mod.Path, dir: abs, cacheRoot: cache, cacheDir: cacheDir, env: env,
		hashes: openHasher(filepath.Join(cacheDir, "filehashes")), files: files.Within(root), testMemory: testMemory}
	if mf.Go != nil {
		m.GoVersion = mf.Go.Version
	}
	return m, nil
}

// Dir is the directory package patterns resolve in.
func (m *Module) Dir() string { return m.dir }

// CacheDir is the directory where faultline keeps its state of this
// module (the spectrum store, file hashes, listings).
func (m *Module) CacheDir() string { return m.cacheDir }

// FileCache is the cache of results derived from this module (analyses,
// verdicts, overlay files, test binaries): faultline's one file cache,
// with keys scoped to the module's root.
func (m *Module) FileCache() *filecache.Cache { return m.files }

// CacheRoot is faultline's cache root, as Config.CacheDir resolved: another
// process opening the module with it shares its caches.
func (m *Module) CacheRoot() string { return m.cacheRoot }

// Env is the environment of the module's go commands and test processes.
func (m *Module) Env() []string { return m.env }

// TestMemory is the bound on each test process tree's resident memory, in
// bytes, for runs whose RunConfig sets none.
func (m *Module) TestMemory() int64 { return m.testMemory }

// Hasher hashes the module's files; see Hasher.
func (m *Module) Hasher() *Hasher { return m.hashes }

// command prepares a go command run in dir (the module root when "").
// PWD says dir: the go command takes its working directory from PWD when
// that names the same directory, and an inherited PWD through a symbolic
// link would make it report paths outside the module's root. A cancelled
// ctx kills the command's whole process group: the compilers and linkers
// it started end with it instead of finishing on their own.
func (m *Module) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	killGroupOnCancel(cmd)
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = m.Root
	}
	cmd.Env = append(slices.Clip(m.env), "PWD="+cmd.Dir)
	return cmd
}

// goOutput runs a go command and returns its standard output; a failure
// carries the command's standard error.
func (m *Module) goOutput(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := m.command(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out, fmt.Errorf("go %s: %s", args[0], strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("running go %s: %w", args[0], err)
	}
	return out, nil
}

// Getenv returns the value of an environment variable of the module's
// environment.
func (m *Module) Getenv(key string) string {
	for i := len(m.env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(m.env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
