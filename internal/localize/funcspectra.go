package localize

import (
	"fmt"

	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// FunctionSpectrum is a function's own spectrum, in which a test executes
// the function when it executes any of its lines, and the function's place
// when every function is ranked by a formula of it. It is the second way
// to rank functions, beside their best line: a fault in a function that
// many passing tests run through other lines scores lower here.
type FunctionSpectrum struct {
	EF int `json:"ef"`
	EP int `json:"ep"`
	NF int `json:"nf"`
	NP int `json:"np"`
	// The functions' ranking by Formula of their spectra.
	Formula string  `json:"formula"`
	Score   float64 `json:"score"`
	Rank    int     `json:"rank"` // 1-based, ties broken by code order
	Tie     [2]int  `json:"tie"`  // first and last rank of the functions with the same score
}

// RankFunctionSpectra ranks the functions holding the matrix's executed
// lines by formula f (nil: the default formula) over each function's own
// spectrum, most suspicious first.
func RankFunctionSpectra(m *spectra.Matrix, f rank.Formula, of FunctionOf) (map[Function]FunctionSpectrum, error) {
	if f == nil {
		f = rank.Default()
	}
	lines := m.Lines()
	var fns []Function
	index := map[Function]int32{}
	fnOfLine := make([]int32, len(lines))
	for i, l := range lines {
		fn := of(l.File, l.Line)
		k, ok := index[fn]
		if !ok {
			k = int32(len(fns))
			index[fn] = k
			fns = append(fns, fn)
		}
		fnOfLine[i] = k
	}
	counts, _, _, err := m.CountGroups(lines, fnOfLine, len(fns))
	if err != nil {
		return nil, fmt.Errorf("counting function spectra: %w", err)
	}
	var elems []rank.Element
	var which []int
	for i, c := range counts {
		if c.EF+c.EP == 0 {
			continue // never executed: no evidence either way, as for lines
		}
		elems = append(elems, rank.Element{Counts: c, Loc: rank.Location{File: fns[i].File, Line: fns[i].Line}})
		which = append(which, i)
	}
	out := make(map[Function]FunctionSpectrum, len(elems))
	for _, r := range rank.Rank(elems, f) {
		c := elems[r.Elem].Counts
		out[fns[which[r.Elem]]] = FunctionSpectrum{Formula: f.Name(), Score: r.Score, Rank: r.Rank, Tie: [2]int{r.TieFirst, r.TieLast},
			EF: c.EF, EP: c.EP, NF: c.NF, NP: c.NP}
	}
	return out, nil
}

// Functions ranks the functions of a localization: by the function model
// of the model that ordered its lines when it has one (FunctionModelOf),
// else by their best lines (RankFunctions); each carries its own spectrum
// ranked by the ranking's formula (Ochiai's when the technique is no
// formula of the four counts, BlockRank or SAT-TAR).
func (l *Localization) Functions(of FunctionOf) ([]RankedFunction, error) {
	fns, err := FunctionModelOf(l.Ranking).RankFunctions(l.Ranking.Lines, of)
	if err != nil {
		return nil, err
	}
	f, err := rank.Lookup(l.Ranking.Formula)
	if err != nil {
		f = rank.Default()
	}
	spec, err := RankFunctionSpectra(l.Matrix, f, of)
	if err != nil {
		return nil, err
	}
	for i := range fns {
		if s, ok := spec[fns[i].Function]; ok {
			fns[i].Spectrum = &s
		}
	}
	return fns, nil
}

// FunctionModelOf is the model whose function order lists a ranking's
// functions: the shipped model when it ordered the lines (its
// FunctionModel, when set, orders them), else one without a function
// model, which lists them by their best lines.
func FunctionModelOf(r *Ranking) *Model {
	if m := ShippedModel(); r.Order == OrderLearned && r.Model == m.Name {
		return m
	}
	return &Model{Name: "best line"}
}
