package localize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/specs"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// SuggestOptions are the choices of one suggest.
type SuggestOptions struct {
	Search specs.Options
	// Formula is the order the report shows beside Op2's and SAT-TAR's
	// (nil: the default formula).
	Formula rank.Formula
	// Targets names the fuzz targets to work on (empty: every failing one);
	// Packages limits them to these import paths (empty: any).
	Targets  []string
	Packages []string
	// Write adds the inputs to the targets' seed corpora.
	Write bool
	// Memory bounds a search's worker (default 1 GiB); TestMemory each
	// test process tree it runs (0: the workspace's bound).
	Memory     int64
	TestMemory int64
}

// FuzzTarget is a fuzz test of a matrix: its entries are its leaf tests.
type FuzzTarget struct {
	Package string
	Name    string
	Seeds   []specs.Seed
}

// Failing reports whether an entry of the target fails.
func (t FuzzTarget) Failing() bool {
	return slices.ContainsFunc(t.Seeds, func(s specs.Seed) bool { return s.Failing })
}

// FuzzTargets lists the fuzz targets that have entries in the matrix, in
// its order: leaf tests FuzzX/ENTRY.
func FuzzTargets(m *spectra.Matrix) []FuzzTarget {
	var out []FuzzTarget
	index := map[[2]string]int{}
	for _, t := range m.Tests {
		name, entry, ok := strings.Cut(t.Name, "/")
		if !ok || entry == "" || strings.Contains(entry, "/") || !strings.HasPrefix(name, "Fuzz") || !t.Verdict.Counted() {
			continue
		}
		k := [2]string{t.Package, name}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, FuzzTarget{Package: t.Package, Name: name})
		}
		out[i].Seeds = append(out[i].Seeds, specs.Seed{Name: t.Name, Failing: t.Verdict.Failing()})
	}
	return out
}

// Suggestion is the search for one failing fuzz target, the files its
// inputs were written to, and what they change in the rankings.
type Suggestion struct {
	*specs.Result
	Written  []string     `json:"written,omitempty"` // relative to the module root
	Rankings []Comparison `json:"rankings"`
	Cached   bool         `json:"cached"`
}

// Comparison is the top of one order before and after the inputs.
type Comparison struct {
	Order string       `json:"order"`
	Lines []RankChange `json:"lines"`
}

// RankChange is one line's place in an order before and after: the first
// and last rank of its tie group, zeros when it is not ranked.
type RankChange struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Before [2]int `json:"before"`
	After  [2]int `json:"after"`
}

// suggestFormat changes when the cached searches' form or meaning does.
const suggestFormat = "faultline-suggest-1"

// comparedLines is how many of an order's first lines a comparison shows.
const comparedLines = 5

// Suggest searches, for each failing fuzz target of m (or those opts
// names), the inputs that sharpen its ranking, each in a worker (results
// are cached under the content key of the target's binary), and with
// opts.Write adds them to the target's seed corpus. progress, when set,
// gets each target's suggestion as it is complete.
func (s *Service) Suggest(ctx context.Context, m *spectra.Matrix, opts SuggestOptions, progress func(Suggestion)) ([]Suggestion, error) {
	if err := analysis.Available(); err != nil {
		return nil, fmt.Errorf("suggest needs Z3: %w", err)
	}
	if opts.Formula == nil {
		opts.Formula = rank.Default()
	}
	if opts.Memory <= 0 {
		opts.Memory = DefaultMemory
	}
	mod := s.ws.Module()
	listing, keys, err := mod.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []Suggestion
	for _, t := range FuzzTargets(m) {
		if !t.Failing() || len(opts.Targets) > 0 && !slices.Contains(opts.Targets, t.Name) || len(opts.Packages) > 0 && !slices.Contains(opts.Packages, t.Package) {
			continue
		}
		pkg := listing.Package(t.Package)
		if pkg == nil {
			continue
		}
		req := specs.Request{Package: t.Package, Target: t.Name, Seeds: t.Seeds, Blocks: blocksOf(m, listing.Closure(pkg), mod.Root)}
		res, cached, err := s.search(ctx, keys, pkg, req, opts)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			res = &specs.Result{Target: t.Name, Package: t.Package, Status: specs.Bounded, Inputs: []specs.Input{}, Notes: []string{err.Error()}}
		}
		sg := Suggestion{Result: res, Cached: cached}
		sg.Rankings, err = compare(m, res, opts.Formula)
		if err != nil {
			return out, err
		}
		if opts.Write && len(res.Inputs) > 0 {
			if sg.Written, err = writeCorpus(mod.Root, pkg.Dir, res); err != nil {
				return out, err
			}
		}
		out = append(out, sg)
		if progress != nil {
			progress(sg)
		}
	}
	return out, nil
}

// search runs (or takes from the cache) one target's search.
func (s *Service) search(ctx context.Context, keys *testbuild.Keys, pkg *testbuild.Package, req specs.Request, opts SuggestOptions) (*specs.Result, bool, error) {
	key := testbuild.Bytes([]byte(fmt.Sprintf("%s\x00%s\x00%s\x00%+v\x00%+v", suggestFormat, keys.TestBinary(pkg), req.Target, req.Seeds, opts.Search)))
	var data []byte
	if s.suggestCache.get(key, &data) {
		if r, err := specs.UnmarshalResult(data); err == nil {
			return r, true, nil
		}
	}
	budget := opts.Search.Budget
	if budget <= 0 {
		budget = time.Minute
	}
	var res *specs.Result
	var decodeErr error
	err := s.worker(ctx, workRequest{Root: s.ws.Root(), CacheRoot: s.ws.Module().CacheRoot(), Suggest: &suggestWork{Request: req, Options: opts.Search},
		Memory: opts.Memory, TestMemory: s.testMemory(opts.TestMemory), Env: s.ws.Module().Env(), Deadline: time.Now().Add(budget + workerSlack)},
		func(reply workReply) {
			if reply.Suggestion != nil {
				res, decodeErr = specs.UnmarshalResult(reply.Suggestion)
				data = reply.Suggestion
			}
		})
	if err == nil {
		err = decodeErr
	}
	if err == nil && res == nil {
		err = errors.New("the search gave no answer")
	}
	if err != nil {
		return nil, false, fmt.Errorf("suggesting inputs for %s: %w", req.Target, err)
	}
	if entry, err := jsonMarshal(data); err == nil {
		s.suggestCache.put(key, entry)
	}
	return res, false, nil
}

// blocksOf lists the matrix's blocks in the directories of pkgs: the files
// a target's binary is built from.
func blocksOf(m *spectra.Matrix, pkgs []*testbuild.Package, root string) []specs.BlockRef {
	dirs := map[string]bool{}
	for _, p := range pkgs {
		if rel, err := filepath.Rel(root, p.Dir); err == nil {
			dirs[filepath.ToSlash(rel)] = true
		}
	}
	var out []specs.BlockRef
	for i, b := range m.Blocks {
		if dirs[pathDir(b.File)] {
			out = append(out, specs.BlockRef{Index: i, Block: b})
		}
	}
	return out
}

func pathDir(file string) string {
	if i := strings.LastIndex(file, "/"); i >= 0 {
		return file[:i]
	}
	return "."
}

// WithInputs returns m with a leaf test for each suggested input, named as
// go test will name its corpus entry.
func WithInputs(m *spectra.Matrix, results ...*specs.Result) *spectra.Matrix {
	after := *m
	after.Tests = slices.Clone(m.Tests)
	for _, r := range results {
		for _, in := range r.Inputs {
			v := spectra.Pass
			if in.Outcome == "fail" {
				v = spectra.Fail
			}
			after.Tests = append(after.Tests, spectra.TestRun{Package: r.Package, Name: r.Target + "/" + filepath.Base(in.File), Verdict: v, Hits: spectra.NewHits(in.Hits...)})
		}
	}
	return &after
}

// compare ranks m before and after a target's inputs by the formula, by
// Op2 and by SAT-TAR (with the core of the target's failing entry), and
// returns the first lines after with their places before.
func compare(m *spectra.Matrix, r *specs.Result, formula rank.Formula) ([]Comparison, error) {
	after := WithInputs(m, r)
	op2, err := rank.Lookup("op2")
	if err != nil {
		return nil, err
	}
	cores := []analysis.CoreResult{{Package: r.Package, Test: r.Seed, Suspects: r.Core}}
	orders := []struct {
		name string
		rank func(*spectra.Matrix) (*Ranking, error)
	}{
		{formula.Name(), func(m *spectra.Matrix) (*Ranking, error) { return RankFormula(m, formula) }},
		{op2.Name(), func(m *spectra.Matrix) (*Ranking, error) { return RankFormula(m, op2) }},
		{specs.SatTarName, func(m *spectra.Matrix) (*Ranking, error) { return rankByCores(m, cores) }},
	}
	var out []Comparison
	for _, o := range orders {
		if o.name == op2.Name() && formula.Name() == op2.Name() {
			continue
		}
		before, err := o.rank(m)
		if err != nil {
			return nil, err
		}
		later, err := o.rank(after)
		if err != nil {
			return nil, err
		}
		places := map[[2]any][2]int{}
		for _, l := range before.Lines {
			places[[2]any{l.File, l.Line}] = l.Tie
		}
		c := Comparison{Order: o.name, Lines: []RankChange{}}
		for _, l := range later.Lines[:min(comparedLines, len(later.Lines))] {
			c.Lines = append(c.Lines, RankChange{File: l.File, Line: l.Line, Before: places[[2]any{l.File, l.Line}], After: l.Tie})
		}
		out = append(out, c)
	}
	return out, nil
}

// writeCorpus adds a target's inputs to its seed corpus, never replacing a
// file, and returns the files written, relative to the module root.
func writeCorpus(root, pkgDir string, r *specs.Result) ([]string, error) {
	var written []string
	for _, in := range r.Inputs {
		path := filepath.Join(pkgDir, filepath.FromSlash(in.File))
		if _, err := os.Stat(path); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return written, fmt.Errorf("writing the corpus of %s: %w", r.Target, err)
		}
		if err := os.WriteFile(path, specs.MarshalCorpus(in.Values), 0o644); err != nil {
			return written, fmt.Errorf("writing the corpus of %s: %w", r.Target, err)
		}
		rel, _ := filepath.Rel(root, path)
		written = append(written, filepath.ToSlash(rel))
	}
	return written, nil
}
