package spectra

import (
	"slices"
	"sort"
)

// assemble builds the matrix of the given package results. Every file a
// result refers to must be in files.
func assemble(root, modulePath string, pkgs []*storedPackage, files map[string]*storedFile) *Matrix {
	m := &Matrix{ModulePath: modulePath, Root: root, FileHashes: map[string]string{}, BuildErrors: map[string]string{}}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Package < pkgs[j].Package })
	// One block table for the whole matrix: files in path order.
	offset := map[string]int{} // file key -> index of its first block
	var keys []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			k := fileKey(f.Path, f.Hash)
			if _, ok := offset[k]; !ok {
				offset[k] = -1
				keys = append(keys, k)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return files[keys[i]].Path < files[keys[j]].Path })
	for _, k := range keys {
		f := files[k]
		offset[k] = len(m.Blocks)
		m.Blocks = append(m.Blocks, f.Blocks...)
		m.FileHashes[f.Path] = f.Hash
	}
	for _, p := range pkgs {
		if p.BuildErr != "" {
			m.BuildErrors[p.Package] = p.BuildErr
			m.Tests = append(m.Tests, TestRun{Package: p.Package, Verdict: BuildError, Output: p.BuildErr})
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
		for _, t := range p.Tests {
			run := t.TestRun
			run.Hits = make([]int, 0, len(t.Hits))
			unpackHits(t.Hits, func(h int32) {
				if int(h) < len(local) {
					run.Hits = append(run.Hits, local[h])
				}
			})
			if !slices.IsSorted(run.Hits) {
				slices.Sort(run.Hits)
			}
			m.Tests = append(m.Tests, run)
		}
	}
	return m
}
