package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/internal/filecache"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// ResultCache keeps the analysis of each failing test on disk under a key
// hashed from everything the result depends on: the options, the test's
// name, and the content key of the test's binary (every file it is built
// from, go.mod and go.sum, the go command's environment and the faultline
// executable; see testbuild.Keys). Editing anything the binary is built
// from changes the key; editing another package does not. Entries are the
// file cache's (kind "analysis"), written atomically, so concurrent writers
// and a killed process leave either the old entry, the new one or none. An entry
// keeps the forced values of its candidates, so that a cached candidate can
// be verified like a fresh one. Only results whose ending the code decided
// are kept (Ending.Cacheable).
type ResultCache struct {
	files *filecache.Cache
}

// resultKind is the file cache's kind of analysis results.
const resultKind = "analysis"

// cacheFormat changes when cachedResult does, or when the analysis finds
// more than it did (a cached result would hide what it finds now).
const cacheFormat = "faultline-angelic-cache-10"

// OpenResultCache opens (creating) a file cache of its own under dir, with
// the default bound.
func OpenResultCache(dir string) (*ResultCache, error) {
	files, err := filecache.Open(dir, filecache.DefaultBound)
	if err != nil {
		return nil, fmt.Errorf("creating the analysis cache: %w", err)
	}
	return NewResultCache(files), nil
}

// NewResultCache keeps results in files (a module's file cache).
func NewResultCache(files *filecache.Cache) *ResultCache { return &ResultCache{files: files} }

// cachedResult is a TestResult with the fields its JSON form leaves out.
type cachedResult struct {
	Test       string
	Package    string
	Candidates []cachedCandidate
	Notes      []string
	Ended      Ending
	Switched   int
	Runs       int
	Solve      time.Duration
	Total      time.Duration
	// StringsConcrete is TestResult's.
	StringsConcrete bool `json:",omitempty"`
	// Slice and SliceTime are TestResult's.
	Slice     []SliceLine   `json:",omitempty"`
	SliceTime time.Duration `json:",omitempty"`
}

type cachedCandidate struct {
	Candidate
	Force   []instrument.ForcedValue
	Sources map[string]string
}

// Key hashes what the analysis of a test of pkg depends on.
func (c *ResultCache) Key(keys *testbuild.Keys, pkg *testbuild.Package, test string, opts Options) string {
	opts.Defaults()
	opts.Passing, opts.StartBy = nil, time.Time{}
	return testbuild.Bytes([]byte(fmt.Sprintf("%s\x00%s\x00%s\x00%+v\x00%s", cacheFormat, pkg.ImportPath, test, opts, keys.TestBinary(pkg))))
}

// Get returns the cached result under key; an unreadable entry is a miss
// (and is written over by the next Put).
func (c *ResultCache) Get(key string) (TestResult, bool) {
	data, ok := c.files.Get(resultKind, key)
	if !ok {
		return TestResult{}, false
	}
	r, err := UnmarshalResult(data)
	if err != nil {
		return TestResult{}, false
	}
	return r, true
}

// Put stores a result under key, unless it ended for a reason the code
// did not decide: a failure of the machine's or faultline's is analysed
// again next time.
func (c *ResultCache) Put(key string, r TestResult) error {
	if !r.Ended.Cacheable() {
		return nil
	}
	data, err := MarshalResult(r)
	if err != nil {
		return err
	}
	if err := c.files.Set(resultKind, key, data); err != nil {
		return fmt.Errorf("writing the analysis cache: %w", err)
	}
	return nil
}

// MarshalResult encodes a result whole, with the forced values and source
// hashes Verify needs: the form results are cached in and passed between
// processes.
func MarshalResult(r TestResult) ([]byte, error) {
	cr := cachedResult{Test: r.Test, Package: r.Package, Notes: r.Notes, Ended: r.Ended,
		Switched: r.Switched, Runs: r.Runs, Solve: r.Solve, Total: r.Total, StringsConcrete: r.StringsConcrete,
		Slice: r.Slice, SliceTime: r.SliceTime}
	for _, cand := range r.Candidates {
		cr.Candidates = append(cr.Candidates, cachedCandidate{Candidate: cand, Force: cand.Force, Sources: cand.Sources})
	}
	data, err := json.Marshal(cr)
	if err != nil {
		return nil, fmt.Errorf("encoding the analysis of %s: %w", r.Test, err)
	}
	return data, nil
}

// UnmarshalResult decodes what MarshalResult encoded.
func UnmarshalResult(data []byte) (TestResult, error) {
	var cr cachedResult
	if err := json.Unmarshal(data, &cr); err != nil {
		return TestResult{}, fmt.Errorf("decoding an analysis result: %w", err)
	}
	r := TestResult{Test: cr.Test, Package: cr.Package, Notes: cr.Notes, Ended: cr.Ended,
		Switched: cr.Switched, Runs: cr.Runs, Solve: cr.Solve, Total: cr.Total, StringsConcrete: cr.StringsConcrete,
		Slice: cr.Slice, SliceTime: cr.SliceTime}
	for _, cc := range cr.Candidates {
		cand := cc.Candidate
		cand.Force, cand.Sources = cc.Force, cc.Sources
		r.Candidates = append(r.Candidates, cand)
	}
	return r, nil
}

// Cached is the outcome of AnalyzeCached.
type Cached struct {
	Results []TestResult // one per test, in the order given
	Cached  []bool       // whether each result came from the cache
	Hits    int          // results taken from the cache
}

// AnalyzeCached analyses the failing tests of mod, taking each result from
// the cache when its key is there and storing the new ones. A nil cache
// analyses everything.
func AnalyzeCached(ctx context.Context, c *ResultCache, mod *testbuild.Module, tests []testbuild.Target, opts Options) (Cached, error) {
	opts.Defaults()
	out := Cached{Results: make([]TestResult, len(tests)), Cached: make([]bool, len(tests))}
	keys := make([]string, len(tests))
	var missing []testbuild.Target
	var missingAt []int
	if c != nil {
		listing, contentKeys, err := mod.ListKeys(ctx)
		if err != nil {
			return Cached{}, err
		}
		for i, t := range tests {
			pkg := listing.Package(t.Package)
			if pkg == nil {
				return Cached{}, fmt.Errorf("%s is not a package of module %s", t.Package, mod.Path)
			}
			keys[i] = c.Key(contentKeys, pkg, t.Test, opts)
			if r, ok := c.Get(keys[i]); ok {
				out.Results[i] = r
				out.Cached[i] = true
				out.Hits++
			}
		}
	}
	for i, t := range tests {
		if !out.Cached[i] {
			missing = append(missing, t)
			missingAt = append(missingAt, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	results, err := Analyze(ctx, mod, missing, opts)
	if err != nil {
		return Cached{}, err
	}
	// Analyze groups targets by package: match results back by identity.
	byTest := map[[2]string]TestResult{}
	for _, r := range results {
		byTest[[2]string{r.Package, r.Test}] = r
	}
	for _, i := range missingAt {
		r, ok := byTest[[2]string{tests[i].Package, tests[i].Test}]
		if !ok {
			return Cached{}, fmt.Errorf("the analysis returned no result for %s", tests[i].Test)
		}
		out.Results[i] = r
		if c != nil && ctx.Err() == nil {
			if err := c.Put(keys[i], r); err != nil {
				return Cached{}, err
			}
		}
	}
	return out, nil
}
