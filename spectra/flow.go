package spectra

import (
	"slices"

	"github.com/faultline-go/faultline/spectra/edges"
)

func byEdge(a, b EdgeCount) int { return a.Edge - b.Edge }

// Flow is the control flow of a matrix's functions and each test's edge
// profile: how often it took each edge. It is present when every package
// of the matrix was collected with edge counts (CollectOptions.Edges).
type Flow struct {
	Funcs []FlowFunc
	Edges int // edges of all functions
	// Runs holds each test's traversals per edge, ascending by edge,
	// parallel to Matrix.Tests.
	Runs [][]EdgeCount
}

// FlowFunc is one function's control-flow graph; its edge k is edge
// FirstEdge+k of the matrix.
type FlowFunc struct {
	File string // relative to the module root
	edges.Func
	FirstEdge int
}

// EdgeCount is how often a test took one edge.
type EdgeCount struct {
	Edge int
	N    uint64
}

// assembleFlow builds the flow of the given results, in the order of
// assemble's tests: files in path order, their functions in file order.
func assembleFlow(pkgs []*storedPackage, flows map[string]*storedFlow) *Flow {
	for _, p := range pkgs {
		if p.BuildErr == "" && !p.Flow {
			return nil
		}
	}
	fl := &Flow{}
	offset := map[string]int{} // flow key -> first edge
	keys := inPathOrder(pkgs, func(p *storedPackage, visit func(path, hash string)) {
		for _, f := range p.FlowFiles {
			visit(f.Path, f.Hash)
		}
	}, flowKey)
	for _, k := range keys {
		f := flows[k]
		offset[k] = fl.Edges
		for _, fn := range f.Funcs {
			fl.Funcs = append(fl.Funcs, FlowFunc{File: f.Path, Func: fn, FirstEdge: fl.Edges})
			fl.Edges += len(fn.Edges)
		}
	}
	for _, p := range pkgs {
		if p.BuildErr != "" {
			fl.Runs = append(fl.Runs, nil)
			continue
		}
		var local []int // the package's edge index -> the matrix's
		for _, f := range p.FlowFiles {
			start := offset[flowKey(f.Path, f.Hash)]
			for i := 0; i < f.Edges; i++ {
				local = append(local, start+i)
			}
		}
		for _, t := range p.Tests {
			counts := unpackCounts(t.EdgeCounts)
			var run []EdgeCount
			i := 0
			unpackHits(t.Edges, func(e int32) {
				if int(e) < len(local) && i < len(counts) {
					run = append(run, EdgeCount{Edge: local[e], N: counts[i]})
				}
				i++
			})
			if !slices.IsSortedFunc(run, byEdge) {
				slices.SortFunc(run, byEdge)
			}
			fl.Runs = append(fl.Runs, run)
		}
	}
	return fl
}
