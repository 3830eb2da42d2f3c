package spectra

import (
	"slices"
	"sort"
)

// assemble builds the matrix of the given package results. Every file a
// result refers to must be in files. It takes the results' tests: those
// in memory, emptied once the matrix holds them, then those in the store
// (nil for none), one chunk at a time, so that a large module's hits are
// never held twice, as stored and as assembled.
func assemble(root, modulePath string, pkgs []*storedPackage, stored storedFiles, s *store) (*Matrix, error) {
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
	flow := newFlowAssembly(pkgs, stored.flows)
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
		// Local block index -> global block index.
		var local []int
		for _, f := range p.Files {
			start := offset[fileKey(f.Path, f.Hash)]
			for i := 0; i < f.Blocks; i++ {
				local = append(local, start+i)
			}
		}
		// Files in counter order are mostly in path order too: then the
		// mapping is increasing and a test's hits stay sorted through it.
		// Sorting them anyway took a tenth of faultline's own CPU on expr.
		increasing := slices.IsSorted(local)
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
			hits = hits[:0]
			unpackHits(t.Hits, func(h int32) {
				if int(h) < len(local) {
					hits = append(hits, local[h])
				}
			})
			if !increasing {
				slices.Sort(hits)
			}
			run.Hits = table.of(hits)
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
