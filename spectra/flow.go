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

// flowAssembly builds the flow of the results assemble takes, in the order
// of its tests: files in path order, their functions in file order. Its
// fl is nil when a result lacks edge profiles, and then it does nothing.
type flowAssembly struct {
	fl     *Flow
	offset map[string]int // flow key -> first edge
}

func newFlowAssembly(pkgs []*storedPackage, flows map[string]*storedFlow) *flowAssembly {
	for _, p := range pkgs {
		if p.BuildErr == "" && !p.Flow {
			return &flowAssembly{}
		}
	}
	a := &flowAssembly{fl: &Flow{}, offset: map[string]int{}}
	keys := inPathOrder(pkgs, func(p *storedPackage, visit func(path, hash string)) {
		for _, f := range p.FlowFiles {
			visit(f.Path, f.Hash)
		}
	}, flowKey)
	for _, k := range keys {
		f := flows[k]
		a.offset[k] = a.fl.Edges
		for _, fn := range f.Funcs {
			a.fl.Funcs = append(a.fl.Funcs, FlowFunc{File: f.Path, Func: fn, FirstEdge: a.fl.Edges})
			a.fl.Edges += len(fn.Edges)
		}
	}
	return a
}

// buildError adds the run of a package whose tests did not build.
func (a *flowAssembly) buildError() {
	if a.fl != nil {
		a.fl.Runs = append(a.fl.Runs, nil)
	}
}

// local maps p's edge indices to the matrix's.
func (a *flowAssembly) local(p *storedPackage) []int {
	if a.fl == nil {
		return nil
	}
	var local []int
	for _, f := range p.FlowFiles {
		start := a.offset[flowKey(f.Path, f.Hash)]
		for i := 0; i < f.Edges; i++ {
			local = append(local, start+i)
		}
	}
	return local
}

// test adds t's edge profile, its edges mapped through local.
func (a *flowAssembly) test(local []int, t *storedTest) {
	if a.fl == nil {
		return
	}
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
	a.fl.Runs = append(a.fl.Runs, run)
}
