package report

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"

	"github.com/faultline-go/faultline/spectra"
)

// Diagnosability is the test suite's DDU (Perez, Abreu and van Deursen, "A
// Test-suite Diagnosability Metric for Spectrum-based Fault Localization
// Approaches", ICSE 2017) over the coverage matrix of counted tests ×
// basic blocks: the product of normalized density, diversity and
// uniqueness, 1 at best. Components are basic blocks because the lines of
// one block are always executed together: counting lines would charge the
// suite for ties no test can break.
type Diagnosability struct {
	Tests, Components int
	Density           float64 // ρ: the fraction of matrix cells that are 1
	NormalizedDensity float64 // ρ' = 1 - |1 - 2ρ|, best at ρ = 0.5
	Diversity         float64 // G: Gini-Simpson index of the tests' coverage patterns
	Uniqueness        float64 // U: ambiguity groups / components
	DDU               float64 // ρ' × G × U
	Unexecuted        int     // components no test executes (one ambiguity group)
	// SameCoverage are the largest groups of tests with identical
	// coverage, largest first: a test that differs from them raises
	// diversity.
	SameCoverage [][]int // indices into Matrix.Tests
	// Ambiguous are the largest groups of executed components that the
	// same tests execute, largest first: no test tells them apart.
	Ambiguous [][]int // indices into Matrix.Blocks
}

// maxGroups bounds the groups a Diagnosability lists.
const maxGroups = 5

// Measure computes the diagnosability of the matrix.
func Measure(m *spectra.Matrix) Diagnosability {
	var d Diagnosability
	var tests []int
	for i, t := range m.Tests {
		if t.Verdict.Counted() {
			tests = append(tests, i)
		}
	}
	d.Tests, d.Components = len(tests), len(m.Blocks)
	if d.Tests == 0 || d.Components == 0 {
		return d
	}
	ones := 0
	rows := map[string][]int{}
	columns := make([][]int32, len(m.Blocks)) // the tests executing each block
	for k, ti := range tests {
		hits := m.Tests[ti].Hits.Slice()
		ones += len(hits)
		rows[key(hits)] = append(rows[key(hits)], ti)
		for _, b := range hits {
			columns[b] = append(columns[b], int32(k))
		}
	}
	n, c := float64(d.Tests), float64(d.Components)
	d.Density = float64(ones) / (n * c)
	d.NormalizedDensity = 1 - math.Abs(1-2*d.Density)

	// Diversity: 1 - Σ nᵢ(nᵢ-1) / (N(N-1)) over groups of identical rows;
	// a suite of one test has none.
	if d.Tests > 1 {
		same := 0.0
		for _, g := range rows {
			same += float64(len(g)) * float64(len(g)-1)
		}
		d.Diversity = 1 - same/(n*(n-1))
	}
	d.SameCoverage = largest(rows)

	groups := map[string][]int{}
	for b, col := range columns {
		if len(col) == 0 {
			d.Unexecuted++
		}
		k := key(col)
		groups[k] = append(groups[k], b)
	}
	d.Uniqueness = float64(len(groups)) / c
	executed := map[string][]int{}
	for h, g := range groups {
		if len(columns[g[0]]) > 0 {
			executed[h] = g
		}
	}
	d.Ambiguous = largest(executed)
	d.DDU = d.NormalizedDensity * d.Diversity * d.Uniqueness
	return d
}

// largest returns the groups of more than one member, largest first (ties
// by first member), at most maxGroups.
func largest(groups map[string][]int) [][]int {
	var out [][]int
	for _, g := range groups {
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i][0] < out[j][0]
	})
	if len(out) > maxGroups {
		out = out[:maxGroups]
	}
	for _, g := range out {
		slices.Sort(g)
	}
	return out
}

// key encodes a coverage row or column exactly, as a map key.
func key[T int | int32](xs []T) string {
	buf := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(x))
	}
	return string(buf)
}
