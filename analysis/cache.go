package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"faultline/spectra"
)

// ResultCache keeps the analysis of each failing test on disk under a key
// hashed from everything the result depends on: the faultline executable,
// the options, the test's name, and the content of every file of each
// package the test executes (its own package's tests and testdata
// included) with go.mod and go.sum. Editing a function the test runs, or
// anything beside it in its package, changes the key; editing code the test
// never reaches does not. Entries are files named by their key, written
// atomically, so concurrent writers and a killed process leave either the
// old entry, the new one or none.
type ResultCache struct {
	dir     string
	version string
}

// cacheFormat changes when cachedResult does.
const cacheFormat = "faultline-angelic-cache-1"

// OpenResultCache opens (creating) a cache in dir, keyed also by the hash
// of the running executable: another build of faultline may analyse
// differently.
func OpenResultCache(dir string) (*ResultCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the analysis cache: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating the faultline executable: %w", err)
	}
	version, err := hashFile(exe)
	if err != nil {
		return nil, fmt.Errorf("hashing the faultline executable: %w", err)
	}
	return &ResultCache{dir: dir, version: version}, nil
}

// cachedResult is a TestResult with the fields its JSON form leaves out.
type cachedResult struct {
	Test       string
	Package    string
	Candidates []Candidate
	Notes      []string
	Switched   int
	Runs       int
	Solve      time.Duration
	Total      time.Duration
}

// key hashes what the analysis of test depends on. digests memoises the
// digest of each directory (and of go.mod and go.sum, under "") across the
// keys of one call, since failing tests mostly share their packages.
func (c *ResultCache) key(m *spectra.Matrix, test spectra.TestRun, opts Options, digests map[string]string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%+v\x00", cacheFormat, c.version, test.Package, test.Name, opts)
	for _, env := range []string{"GOFLAGS", "GOOS", "GOARCH", "GOEXPERIMENT", "CGO_ENABLED"} {
		fmt.Fprintf(h, "%s=%s\x00", env, os.Getenv(env))
	}
	dirs := map[string]bool{"": true}
	if test.Package == m.ModulePath {
		dirs["."] = true
	} else if rel, ok := strings.CutPrefix(test.Package, m.ModulePath+"/"); ok {
		dirs[rel] = true
	}
	for _, b := range test.Hits {
		if b >= 0 && b < len(m.Blocks) {
			dirs[path.Dir(m.Blocks[b].File)] = true
		}
	}
	var list []string
	for d := range dirs {
		list = append(list, d)
	}
	sort.Strings(list)
	for _, d := range list {
		digest, ok := digests[d]
		if !ok {
			var err error
			if digest, err = dirDigest(m.Root, d); err != nil {
				return "", err
			}
			digests[d] = digest
		}
		fmt.Fprintf(h, "%s\x00%s\x00", d, digest)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// dirDigest hashes one package directory, or go.mod and go.sum for "".
func dirDigest(root, rel string) (string, error) {
	h := sha256.New()
	if rel == "" {
		for _, f := range []string{"go.mod", "go.sum"} {
			if err := hashInto(h, filepath.Join(root, f), f); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
		}
	} else if err := hashPackageDir(h, root, rel); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashPackageDir hashes the files of one package directory (not its
// subpackages) and its testdata tree.
func hashPackageDir(h io.Writer, root, rel string) error {
	dir := filepath.Join(root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("hashing %s: %w", rel, err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			if err := hashInto(h, filepath.Join(dir, e.Name()), path.Join(rel, e.Name())); err != nil {
				return err
			}
		}
	}
	testdata := filepath.Join(dir, "testdata")
	if _, err := os.Stat(testdata); err != nil {
		return nil
	}
	return filepath.WalkDir(testdata, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("hashing %s: %w", p, err)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		name, _ := filepath.Rel(root, p)
		return hashInto(h, p, filepath.ToSlash(name))
	})
}

func hashInto(h io.Writer, file, name string) error {
	sum, err := hashFile(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s\x00%s\x00", name, sum)
	return nil
}

func (c *ResultCache) path(key string) string { return filepath.Join(c.dir, key+".json") }

// get returns the cached result under key; an unreadable entry is a miss.
func (c *ResultCache) get(key string) (TestResult, bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return TestResult{}, false
	}
	var cr cachedResult
	if err := json.Unmarshal(data, &cr); err != nil {
		os.Remove(c.path(key))
		return TestResult{}, false
	}
	return TestResult{Test: cr.Test, Package: cr.Package, Candidates: cr.Candidates, Notes: cr.Notes,
		Switched: cr.Switched, Runs: cr.Runs, Solve: cr.Solve, Total: cr.Total}, true
}

func (c *ResultCache) put(key string, r TestResult) error {
	data, err := json.Marshal(cachedResult{Test: r.Test, Package: r.Package, Candidates: r.Candidates, Notes: r.Notes,
		Switched: r.Switched, Runs: r.Runs, Solve: r.Solve, Total: r.Total})
	if err != nil {
		return fmt.Errorf("encoding the analysis of %s: %w", r.Test, err)
	}
	tmp, err := os.CreateTemp(c.dir, "entry-*")
	if err != nil {
		return fmt.Errorf("writing the analysis cache: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the analysis cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the analysis cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.path(key)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the analysis cache: %w", err)
	}
	return nil
}

// Cached is the outcome of AnalyzeCached.
type Cached struct {
	Results []TestResult // one per test, in the order given
	Cached  []bool       // whether each result came from the cache
	Hits    int          // results taken from the cache
}

// AnalyzeCached analyses the failing tests of m, taking each result from the
// cache when its key is there and storing the new ones. A nil cache
// analyses everything.
func AnalyzeCached(ctx context.Context, c *ResultCache, m *spectra.Matrix, tests []spectra.TestRun, opts Options) (Cached, error) {
	opts.defaults()
	out := Cached{Results: make([]TestResult, len(tests)), Cached: make([]bool, len(tests))}
	keys := make([]string, len(tests))
	var targets []Target
	var missing []int
	digests := map[string]string{}
	for i, t := range tests {
		if c != nil {
			key, err := c.key(m, t, opts, digests)
			if err != nil {
				return Cached{}, fmt.Errorf("keying the analysis of %s: %w", t.Name, err)
			}
			keys[i] = key
			if r, ok := c.get(key); ok {
				out.Results[i] = r
				out.Cached[i] = true
				out.Hits++
				continue
			}
		}
		targets = append(targets, Target{Package: t.Package, Test: t.Name})
		missing = append(missing, i)
	}
	if len(targets) == 0 {
		return out, nil
	}
	results, err := Analyze(ctx, m.Root, targets, opts)
	if err != nil {
		return Cached{}, err
	}
	// Analyze groups targets by package: match results back by identity.
	byTest := map[[2]string]TestResult{}
	for _, r := range results {
		byTest[[2]string{r.Package, r.Test}] = r
	}
	for _, i := range missing {
		r, ok := byTest[[2]string{tests[i].Package, tests[i].Name}]
		if !ok {
			return Cached{}, fmt.Errorf("the analysis returned no result for %s", tests[i].Name)
		}
		out.Results[i] = r
		if c != nil && ctx.Err() == nil {
			if err := c.put(keys[i], r); err != nil {
				return Cached{}, err
			}
		}
	}
	return out, nil
}
