package blockrank

import (
	"fmt"
	"math"
)

// system is BR = A·BR + c over one graph, A sparse by rows.
type system struct {
	row [][]term
	c   []float64
}

type term struct {
	to int
	a  float64
}

func newSystem(n int) *system {
	return &system{row: make([][]term, n), c: make([]float64, n)}
}

// add adds a to A[from][to], merging parallel edges.
func (s *system) add(from, to int, a float64) {
	for i := range s.row[from] {
		if s.row[from][i].to == to {
			s.row[from][i].a += a
			return
		}
	}
	s.row[from] = append(s.row[from], term{to, a})
}

// maxDirect bounds the loops solved by elimination when iteration does
// not settle: a denser one keeps its last iterate.
const maxDirect = 400

// solve returns x = A·x + c: component by component in reverse
// topological order, so that a block's successors outside its loop are
// known when it is solved. An acyclic component is one back-substitution;
// a loop is iterated (Gauss–Seidel: each block takes its successors'
// newest values) and, if that does not settle,
// solved directly.
func (s *system) solve(opts Options, res *Result) []float64 {
	n := len(s.c)
	x := make([]float64, n)
	for _, comp := range s.components() {
		if len(comp) == 1 && !s.selfLoop(comp[0]) {
			b := comp[0]
			x[b] = s.c[b] + s.dot(b, x)
			continue
		}
		in := make(map[int]bool, len(comp))
		for _, b := range comp {
			in[b] = true
		}
		// What flows in from outside the loop is fixed.
		base := make([]float64, len(comp))
		for i, b := range comp {
			base[i] = s.c[b]
			for _, t := range s.row[b] {
				if !in[t.to] {
					base[i] += t.a * x[t.to]
				}
			}
			x[b] = base[i]
		}
		converged := false
		iter := 0
		for iter < opts.MaxIterations && !converged {
			iter++
			change, scale := 0.0, 1.0
			for i, b := range comp {
				v := base[i]
				for _, t := range s.row[b] {
					if in[t.to] {
						v += t.a * x[t.to]
					}
				}
				change = math.Max(change, math.Abs(v-x[b]))
				scale = math.Max(scale, math.Abs(v))
				x[b] = v
			}
			converged = change <= opts.Tolerance*scale && !math.IsInf(scale, 0) && !math.IsNaN(change)
		}
		res.Iterations = max(res.Iterations, iter)
		if converged {
			continue
		}
		res.Converged = false
		if len(comp) > maxDirect {
			res.Resolution = fmt.Sprintf("a loop of %d blocks did not settle in %d iterations; the last iterate was kept", len(comp), iter)
		} else if direct, ok := s.direct(comp, in, base); ok {
			for i, b := range comp {
				x[b] = direct[i]
			}
			res.Resolution = fmt.Sprintf("a loop of %d blocks did not settle in %d iterations; solved directly", len(comp), iter)
		} else {
			res.Resolution = fmt.Sprintf("a loop of %d blocks did not settle in %d iterations and its system is singular; the last iterate was kept", len(comp), iter)
		}
		for _, b := range comp {
			if math.IsNaN(x[b]) || math.IsInf(x[b], 0) {
				x[b] = s.c[b] // nothing finite to keep: the block's own share
			}
		}
	}
	return x
}

func (s *system) dot(b int, x []float64) float64 {
	v := 0.0
	for _, t := range s.row[b] {
		v += t.a * x[t.to]
	}
	return v
}

func (s *system) selfLoop(b int) bool {
	for _, t := range s.row[b] {
		if t.to == b {
			return true
		}
	}
	return false
}

// direct solves (I − A_loop)·x = base by Gaussian elimination with partial
// pivoting; ok is false when the matrix is singular.
func (s *system) direct(comp []int, in map[int]bool, base []float64) ([]float64, bool) {
	k := len(comp)
	pos := make(map[int]int, k)
	for i, b := range comp {
		pos[b] = i
	}
	m := make([][]float64, k)
	for i, b := range comp {
		m[i] = make([]float64, k+1)
		m[i][i] = 1
		for _, t := range s.row[b] {
			if in[t.to] {
				m[i][pos[t.to]] -= t.a
			}
		}
		m[i][k] = base[i]
	}
	scale := 0.0
	for i := range m {
		for j := 0; j < k; j++ {
			scale = math.Max(scale, math.Abs(m[i][j]))
		}
	}
	for col := 0; col < k; col++ {
		p := col
		for r := col + 1; r < k; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if math.Abs(m[p][col]) <= 1e-12*scale {
			return nil, false
		}
		m[col], m[p] = m[p], m[col]
		for r := col + 1; r < k; r++ {
			f := m[r][col] / m[col][col]
			if f == 0 {
				continue
			}
			for j := col; j <= k; j++ {
				m[r][j] -= f * m[col][j]
			}
		}
	}
	x := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		v := m[i][k]
		for j := i + 1; j < k; j++ {
			v -= m[i][j] * x[j]
		}
		x[i] = v / m[i][i]
	}
	return x, true
}

// components returns the strongly connected components of the graph of A,
// successors before predecessors (Tarjan's order), iteratively so that a
// long chain of blocks cannot exhaust the stack.
func (s *system) components() [][]int {
	n := len(s.row)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	type frame struct{ b, edge int }
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.edge < len(s.row[f.b]) {
				t := s.row[f.b][f.edge].to
				f.edge++
				switch {
				case index[t] < 0:
					index[t], low[t] = next, next
					next++
					stack = append(stack, t)
					onStack[t] = true
					call = append(call, frame{t, 0})
				case onStack[t]:
					low[f.b] = min(low[f.b], index[t])
				}
				continue
			}
			b := f.b
			call = call[:len(call)-1]
			if len(call) > 0 {
				parent := call[len(call)-1].b
				low[parent] = min(low[parent], low[b])
			}
			if low[b] == index[b] {
				var comp []int
				for {
					t := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[t] = false
					comp = append(comp, t)
					if t == b {
						break
					}
				}
				out = append(out, comp)
			}
		}
	}
	return out
}
