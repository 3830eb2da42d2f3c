// Package filecache owns faultline's one on-disk cache of derived results:
// analyses, SAT-TAR cores, suggestions, bisection verdicts, instrumented
// sources, overlay files and test binaries. Entries are named by a kind and
// a content key, written atomically (a temporary file renamed into place),
// safe to share between processes, and touched when read, so that a file's
// age is the time since it was last used. The cache has a size bound: when
// a process has written enough, it evicts the least recently used entries.
//
// The spectrum store (spectra.db) and the small per-module indexes
// (file hashes, listings, the go environment) are not entries: they are
// state, not results, and live beside the cache.
package filecache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Env names the environment variables that place and bound the cache.
const (
	RootEnv  = "FAULTLINE_CACHE"     // the cache root
	BoundEnv = "FAULTLINE_CACHE_MAX" // the size bound, e.g. 512MiB
)

// DefaultBound is the size bound when BoundEnv is unset: room for a
// couple of hundred test binaries of a mid-sized module (a few MB each),
// next to which analyses and verdicts (kilobytes) hardly count; a busy
// day on a few modules fits, and it is a small part of a disk that holds
// the go command's own build cache.
const DefaultBound = 1 << 30

// version is the layout of the entries; a new layout gets a new directory
// and the old one is removed by Clean. The leading "_" keeps the go
// command from taking a directory of entries (overlay files end in .go)
// for a package should the cache sit inside a module.
const version = "_v1"

// Cache is one cache directory. Views made by Within share its bound and
// its count of bytes written.
type Cache struct {
	dir   string // <root>/filecache
	scope string // prefixed to every key
	state *state
}

// state is what the views of one Cache share.
type state struct {
	bound int64
	mu    sync.Mutex
	// written counts the bytes written since this process last collected
	// garbage; collected says whether it ever did.
	written   int64
	collected bool
}

// Dir is the cache's directory under a cache root.
func Dir(root string) string { return filepath.Join(root, "filecache") }

// Root resolves faultline's cache root: dir, else $FAULTLINE_CACHE, else
// os.UserCacheDir()/faultline.
func Root(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv(RootEnv)
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding the user cache directory: %w", err)
		}
		dir = filepath.Join(base, "faultline")
	}
	return dir, nil
}

// Bound resolves the size bound: $FAULTLINE_CACHE_MAX, else DefaultBound.
func Bound() (int64, error) {
	v := os.Getenv(BoundEnv)
	if v == "" {
		return DefaultBound, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", BoundEnv, err)
	}
	return n, nil
}

// ParseSize reads a size in bytes with an optional unit: B, K/KB/KiB,
// M/MB/MiB or G/GB/GiB, all powers of 1024 as faultline's memory flags
// count them.
func ParseSize(s string) (int64, error) {
	num := strings.TrimRight(strings.TrimSpace(s), "BbIi")
	unit := int64(1)
	if num != "" {
		switch num[len(num)-1] {
		case 'K', 'k':
			unit = 1 << 10
		case 'M', 'm':
			unit = 1 << 20
		case 'G', 'g':
			unit = 1 << 30
		}
		if unit > 1 {
			num = num[:len(num)-1]
		}
	}
	var n int64
	if _, err := fmt.Sscan(num, &n); err != nil || n <= 0 || fmt.Sprint(n) != num || n > (1<<62)/unit {
		return 0, fmt.Errorf("size %q is not a positive number of bytes with an optional unit (KiB, MiB, GiB)", s)
	}
	return n * unit, nil
}

// Open opens (creating) the cache under root with a size bound in bytes.
func Open(root string, bound int64) (*Cache, error) {
	if bound <= 0 {
		return nil, fmt.Errorf("opening the cache: the size bound %d is not positive", bound)
	}
	c := &Cache{dir: Dir(root), state: &state{bound: bound}}
	if err := os.MkdirAll(c.tmpDir(), 0o755); err != nil {
		return nil, fmt.Errorf("creating the cache: %w", err)
	}
	return c, nil
}

// Within returns a view of the cache whose keys are scoped: entries of
// different scopes (modules) never meet.
func (c *Cache) Within(scope string) *Cache {
	return &Cache{dir: c.dir, scope: c.scope + scope + "\x00", state: c.state}
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// BoundBytes is the cache's size bound.
func (c *Cache) BoundBytes() int64 { return c.state.bound }

func (c *Cache) entries() string { return filepath.Join(c.dir, version) }
func (c *Cache) tmpDir() string  { return filepath.Join(c.dir, "tmp") }

// path is where the entry of kind and key lives; name, when not empty,
// ends the file name (an overlay file keeps its target's base name).
func (c *Cache) path(kind, key, name string) string {
	sum := sha256.Sum256([]byte(c.scope + key))
	file := hex.EncodeToString(sum[:])
	if name != "" {
		file += "-" + name
	}
	return filepath.Join(c.entries(), kind, file[:2], file)
}

func checkKind(kind string) error {
	if kind == "" || strings.ContainsAny(kind, `/\.`) {
		return fmt.Errorf("cache kind %q is not a plain name", kind)
	}
	return nil
}

// Get returns the entry of kind and key and marks it used; a missing or
// unreadable entry is a miss.
func (c *Cache) Get(kind, key string) ([]byte, bool) {
	p, ok := c.File(kind, key, "")
	if !ok {
		return nil, false
	}
	data, err := os.ReadFile(p)
	return data, err == nil
}

// File returns the path of the file entry of kind, key and name and marks
// it used; ok is false when there is none.
func (c *Cache) File(kind, key, name string) (string, bool) {
	if checkKind(kind) != nil {
		return "", false
	}
	p := c.path(kind, key, name)
	now := time.Now()
	if os.Chtimes(p, now, now) != nil {
		return "", false
	}
	return p, true
}

// Set stores value as the entry of kind and key.
func (c *Cache) Set(kind, key string, value []byte) error {
	_, err := c.SetFile(kind, key, "", value)
	return err
}

// SetFile stores value as the file entry of kind, key and name and
// returns its path.
func (c *Cache) SetFile(kind, key, name string, value []byte) (string, error) {
	tmp, err := os.CreateTemp(c.tmpDir(), "entry-*")
	if err != nil {
		return "", fmt.Errorf("writing a %s cache entry: %w", kind, err)
	}
	_, err = tmp.Write(value)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("writing a %s cache entry: %w", kind, err)
	}
	return c.MoveFile(kind, key, name, tmp.Name())
}

// TempDir makes a directory for a file MoveFile will take in (on the
// cache's file system, so that the move is a rename). The caller removes
// it; Collect removes those left over by killed processes.
func (c *Cache) TempDir() (string, error) {
	dir, err := os.MkdirTemp(c.tmpDir(), "dir-")
	if err != nil {
		return "", fmt.Errorf("creating a directory in the cache: %w", err)
	}
	return dir, nil
}

// MoveFile moves the file src (written by the caller, e.g. under TempDir)
// into the cache as the file entry of kind, key and name, and returns its
// path. The rename is atomic: a reader sees no entry or a whole one.
func (c *Cache) MoveFile(kind, key, name, src string) (string, error) {
	if err := checkKind(kind); err != nil {
		os.Remove(src)
		return "", err
	}
	p := c.path(kind, key, name)
	info, err := os.Stat(src)
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.Rename(src, p)
		}
	}
	if err != nil {
		os.Remove(src)
		return "", fmt.Errorf("storing a %s cache entry: %w", kind, err)
	}
	c.wrote(info.Size())
	return p, nil
}

// wrote counts size bytes written and collects garbage on a process's
// first write and after each sixteenth of the bound. Collection trims the
// cache to seven eighths of the bound, so that one process writing keeps
// it under the bound (see Collect).
func (c *Cache) wrote(size int64) {
	s := c.state
	s.mu.Lock()
	s.written += size
	due := !s.collected || s.written >= s.bound/16
	if due {
		s.written, s.collected = 0, true
	}
	s.mu.Unlock()
	if due {
		c.Collect()
	}
}

// entry is one file of the cache as Collect sees it.
type entry struct {
	path  string
	kind  string
	size  int64
	mtime time.Time
}

// walk lists the entries, oldest use first.
func (c *Cache) walk() []entry {
	var out []entry
	filepath.WalkDir(c.entries(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(c.entries(), p)
		kind, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		out = append(out, entry{path: p, kind: kind, size: info.Size(), mtime: info.ModTime()})
		return nil
	})
	slices.SortFunc(out, func(a, b entry) int { return a.mtime.Compare(b.mtime) })
	return out
}

// tmpLifetime is how long a temporary file or directory may stay: longer
// than any write or build takes.
const tmpLifetime = time.Hour

// Collect removes the least recently used entries until the cache holds
// at most seven eighths of its bound, and temporary files a killed
// process left. Processes may collect at once: each removal is of a file
// whose use time has not changed since it was listed.
func (c *Cache) Collect() {
	removeOlder(c.tmpDir(), tmpLifetime)
	entries := c.walk()
	var total int64
	for _, e := range entries {
		total += e.size
	}
	target := c.state.bound / 8 * 7
	for _, e := range entries {
		if total <= target {
			break
		}
		if info, err := os.Stat(e.path); err != nil || !info.ModTime().Equal(e.mtime) {
			continue // gone, or used meanwhile
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
}

// Usage is the size of the entries of one kind.
type Usage struct {
	Kind  string
	Files int
	Bytes int64
}

// Usage sums the entries by kind, in the order of their names.
func (c *Cache) Usage() []Usage {
	byKind := map[string]*Usage{}
	for _, e := range c.walk() {
		u := byKind[e.kind]
		if u == nil {
			u = &Usage{Kind: e.kind}
			byKind[e.kind] = u
		}
		u.Files++
		u.Bytes += e.size
	}
	var out []Usage
	for _, u := range byKind {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b Usage) int { return strings.Compare(a.Kind, b.Kind) })
	return out
}

// RemoveUnused removes the entries not used for longer than age and
// returns how many bytes it freed.
func (c *Cache) RemoveUnused(age time.Duration) int64 {
	var freed int64
	for _, e := range c.walk() {
		if time.Since(e.mtime) > age && os.Remove(e.path) == nil {
			freed += e.size
		}
	}
	return freed
}

// legacy are the per-module directories the caches had before this one:
// nothing reads them any more; Clean removes them.
var legacy = []string{"angelic", "sattar", "suggest", "explain", "bin", "_overlay", "_reuse"}

// Legacy lists the directories of the old per-module caches under root:
// only in a module's directory (named <base>-<12 hex digits>, holding the
// file hash index faultline keeps there), so that nothing else under the
// root (a tool's bin/, say) is taken for one.
func Legacy(root string) []string {
	var out []string
	dirs, _ := filepath.Glob(filepath.Join(root, "*-????????????"))
	for _, dir := range dirs {
		if !isModuleDir(dir) {
			continue
		}
		for _, name := range legacy {
			if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.IsDir() {
				out = append(out, filepath.Join(dir, name))
			}
		}
	}
	slices.Sort(out)
	return out
}

// isModuleDir reports whether dir is a module's directory under the cache
// root: its name ends in 12 hex digits and it holds the file hash index.
func isModuleDir(dir string) bool {
	name := filepath.Base(dir)
	if _, err := hex.DecodeString(name[len(name)-12:]); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "filehashes"))
	return err == nil
}

// Clean removes the whole cache directory under root and the old
// per-module caches (Legacy).
func Clean(root string) error {
	for _, dir := range append(Legacy(root), Dir(root)) {
		if err := os.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the cache: %w", err)
		}
	}
	return nil
}

// removeOlder removes the files and directories directly in dir that are
// older than age.
func removeOlder(dir string, age time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > age {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
