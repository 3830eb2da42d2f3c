package spectra

import (
	"cmp"
	"slices"
	"sort"
)

// assemble builds the matrix of the given package results. Every file a
// result refers to must be in files. It takes the results' tests: those
// in memory, emptied once the matrix holds them, then those in the store
// (nil for none), one chunk at a time, so that a large module's hits are
// never held twice, as stored and as assembled. Without withHits the
// matrix's tests have no hits and it has no flow: for a caller that shows
// verdicts only, which need not pay for a large module's spectra.
func assemble(root, modulePath string, pkgs []*storedPackage, stored storedFiles, s *store, withHits bool) (*Matrix, error) {
	files := stored.blocks
	m := &Matrix{ModulePath: modulePath, Root: root, FileHashes: map[string]string{}, BuildErrors: map[string]string{}, Cached: map[string]bool{}}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Package < pkgs[j].Package })
	// One block table for the whole matrix: files in path order.
	offset := map[string]int{} // file key -> index of its first block
	keys := inPathOrder(pkgs, func(p *storedPackage, visit func(path, hash string)) {
		for _, f := range p.Files {
			visit(f.Path, f.Hash)
		}
	}, fileKey)
	for _, k := range keys {
		f := files[k]
		offset[k] = len(m.Blocks)
		m.Blocks = append(m.Blocks, f.Blocks...)
		m.FileHashes[f.Path] = f.Hash
	}
	flow := &flowAssembly{}
	if withHits {
		flow = newFlowAssembly(pkgs, stored.flows)
	}
	table := newHitsTable()
	n := 0
	for _, p := range pkgs {
		n += max(1, len(p.tests)+p.NumTests)
	}
	if n > 0 {
		m.Tests = make([]TestRun, 0, n)
	}
	for _, p := range pkgs {
		if p.BuildErr != "" {
			m.BuildErrors[p.Package] = p.BuildErr
			m.Tests = append(m.Tests, TestRun{Package: p.Package, Verdict: BuildError, Output: p.BuildErr})
			flow.buildError()
			continue
		}
		var blocks blockMap
		if withHits {
			blocks = newBlockMap(p, offset)
		}
		edges := flow.local(p)
		var hits []int // reused: only the packed set stays
		err := s.eachTest(p, func(t *storedTest) {
			run := t.TestRun
			// One copy of the strings every test of the package repeats,
			// not one decoded per test.
			if run.Package == p.Package {
				run.Package = p.Package
			}
			run.Verdict = sharedVerdict(run.Verdict)
			if withHits {
				hits = blocks.appendGlobal(hits[:0], t.Hits)
				run.Hits = table.of(hits)
			}
			m.Tests = append(m.Tests, run)
			flow.test(edges, t)
		})
		if err != nil {
			return nil, err
		}
		p.tests = nil
	}
	m.Flow = flow.fl
	return m, nil
}

// sharedVerdict returns the constant equal to v, whose text is not
// allocated again for each test, or v itself.
func sharedVerdict(v Verdict) Verdict {
	switch v {
	case Pass:
		return Pass
	case Fail:
		return Fail
	case Skip:
		return Skip
	case Timeout:
		return Timeout
	case Panic:
		return Panic
	case Memory:
		return Memory
	case BuildError:
		return BuildError
	}
	return v
}

// inPathOrder returns the keys of the distinct file contents the results
// refer to (each visits its files), ordered by path.
func inPathOrder(pkgs []*storedPackage, files func(p *storedPackage, visit func(path, hash string)), key func(path, hash string) string) []string {
	seen := map[string]bool{}
	var keys []string
	paths := map[string]string{}
	for _, p := range pkgs {
		files(p, func(path, hash string) {
			if k := key(path, hash); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
				paths[k] = path
			}
		})
	}
	sort.SliceStable(keys, func(i, j int) bool { return paths[keys[i]] < paths[keys[j]] })
	return keys
}

// blockMap maps a stored package's block indices to a matrix's. Each of
// its files' blocks are a run in both numberings, so a test's hits,
// ascending in the package's numbering, are ascending runs in the
// matrix's: they are put in order by moving whole runs, not by sorting
// every test's hits (a tenth of a collection's own CPU on expr).
type blockMap struct {
	runs  []blockRun // in the package's order
	order []int      // indices into runs, in the matrix's order
	// overlap says two runs share matrix blocks (a file listed twice):
	// their hits are sorted instead.
	overlap bool
	spans   [][2]int // scratch: each run's part of a test's hits
	local   []int32  // scratch: a test's hits in the package's numbering
}

// blockRun is a range of blocks numbered consecutively in both numberings.
type blockRun struct {
	first, n int // in the package's numbering
	global   int // the matrix's index of its first block
}

func newBlockMap(p *storedPackage, offset map[string]int) blockMap {
	var m blockMap
	next := 0
	for _, f := range p.Files {
		start := offset[fileKey(f.Path, f.Hash)]
		if k := len(m.runs) - 1; k >= 0 && m.runs[k].global+m.runs[k].n == start {
			m.runs[k].n += f.Blocks // continues the previous run
		} else if f.Blocks > 0 {
			m.runs = append(m.runs, blockRun{first: next, n: f.Blocks, global: start})
		}
		next += f.Blocks
	}
	m.order = make([]int, len(m.runs))
	for i := range m.order {
		m.order[i] = i
	}
	slices.SortFunc(m.order, func(a, b int) int { return cmp.Compare(m.runs[a].global, m.runs[b].global) })
	for i := 1; i < len(m.order); i++ {
		prev, r := m.runs[m.order[i-1]], m.runs[m.order[i]]
		if prev.global+prev.n > r.global {
			m.overlap = true
		}
	}
	m.spans = make([][2]int, len(m.runs))
	return m
}

// appendGlobal appends the matrix's indices of the packed hits, ascending;
// indices past the package's blocks (a damaged record) are dropped.
func (m *blockMap) appendGlobal(out []int, packed []byte) []int {
	m.local = m.local[:0]
	unpackHits(packed, func(h int32) { m.local = append(m.local, h) })
	// Each run's part of the hits, which are ascending.
	i := 0
	for k, r := range m.runs {
		for i < len(m.local) && int(m.local[i]) < r.first {
			i++ // between runs: no such block
		}
		start := i
		for i < len(m.local) && int(m.local[i]) < r.first+r.n {
			i++
		}
		m.spans[k] = [2]int{start, i}
	}
	for _, k := range m.order {
		r, span := m.runs[k], m.spans[k]
		for _, h := range m.local[span[0]:span[1]] {
			out = append(out, r.global+int(h)-r.first)
		}
	}
	if m.overlap {
		slices.Sort(out)
	}
	return out
}
