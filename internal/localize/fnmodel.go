package localize

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/spectra/rank"
)

// Aggregates of a function's lines that a FunctionModel weighs, each
// giving features named as FunctionFeatures says.
const (
	// AggregateMax is each evidence column's largest value among the
	// function's lines, named as the column.
	AggregateMax = "max"
	// AggregateSum is each column summed over the function's lines,
	// log-scaled (sign(s)·ln(1+|s|)) so that a long function does not
	// outweigh every other feature; named "sum." + the column.
	AggregateSum = "sum"
	// AggregateTop is the share of the first FunctionTopLines positions
	// the function's lines hold; named FeatureTopLines.
	AggregateTop = "top"
	// AggregateBest is 1 over the first position of the function's best
	// line; named FeatureBestLine.
	AggregateBest = "best"
)

// Features that do not come from an evidence column.
const (
	FeatureTopLines = "function.top"
	FeatureBestLine = "function.best"
)

// FunctionTopLines is how many of a ranking's first positions
// AggregateTop counts lines in.
const FunctionTopLines = 20

// FunctionModel orders the functions a ranking lists (not its lines): a
// weight per feature aggregated over each function's lines, its best
// line's place breaking ties. Which function is faulty is easier to tell
// than which line, and a function's other lines say more of it than its
// best line alone.
type FunctionModel struct {
	// Aggregates are the aggregates the model was trained on; the
	// weights name their features.
	Aggregates []string           `json:"aggregates"`
	Weights    map[string]float64 `json:"weights"`
}

// FunctionFeatures gives the functions holding lines, a ranking's lines in
// rank order, in the order of their best lines, and each one's features
// under the aggregates named.
func FunctionFeatures(lines []RankedLine, of FunctionOf, aggregates []string) ([]Function, []map[string]float64, error) {
	var on [4]bool
	for _, a := range aggregates {
		k := slices.Index([]string{AggregateMax, AggregateSum, AggregateTop, AggregateBest}, a)
		if k < 0 {
			return nil, nil, fmt.Errorf("function aggregate %q: not %s, %s, %s or %s", a, AggregateMax, AggregateSum, AggregateTop, AggregateBest)
		}
		on[k] = true
	}
	fns, which := linesByFunction(lines, of)
	features := make([]map[string]float64, len(fns))
	for i, l := range lines {
		k := which[i]
		if features[k] == nil {
			features[k] = map[string]float64{}
			if on[3] {
				// The function's first line is its best.
				features[k][FeatureBestLine] = 1 / float64(max(l.Tie[0], 1))
			}
		}
		f := features[k]
		for col, v := range l.Evidence {
			if col == EvidenceDeclarationRead || col == EvidenceUnexecutedNextTo {
				// A place in the ranking (the reader's, the executed
				// neighbour's), not evidence against the code: features
				// of it would learn where the placed lines go.
				continue
			}
			if on[0] {
				// A line without the column has it at 0.
				f[col] = max(f[col], v)
			}
			if on[1] {
				f["sum."+col] += v
			}
		}
		if on[2] && l.Tie[0] <= FunctionTopLines {
			f[FeatureTopLines] += 1.0 / FunctionTopLines
		}
	}
	if on[1] {
		for _, f := range features {
			for name, s := range f {
				if strings.HasPrefix(name, "sum.") {
					f[name] = math.Copysign(math.Log1p(math.Abs(s)), s)
				}
			}
		}
	}
	return fns, features, nil
}

// RankFunctions ranks the functions holding lines, a ranking's lines in
// rank order: by the model's function order when it has one, else by
// their best lines (the package's RankFunctions). Only the functions'
// order and ranks change; their best lines are the ranking's.
func (m *Model) RankFunctions(lines []RankedLine, of FunctionOf) ([]RankedFunction, error) {
	byBestLine := RankFunctions(lines, of)
	if m.FunctionModel == nil {
		return byBestLine, nil
	}
	fns, features, err := FunctionFeatures(lines, of, m.FunctionModel.Aggregates)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	weights := m.FunctionModel.Weights
	names := slices.Sorted(maps.Keys(weights))
	locs := make([]rank.Location, len(fns))
	scores := make([]float64, len(fns))
	bestFirst := make([]float64, len(fns)) // functions in best-line order: earlier first
	for k, fn := range fns {
		locs[k] = rank.Location{File: fn.File, Line: fn.Line}
		for _, name := range names {
			scores[k] += weights[name] * features[k][name]
		}
		if math.IsNaN(scores[k]) {
			return nil, fmt.Errorf("model %s's function order scores %s %s as NaN", m.Name, fn.File, fn.Name)
		}
		// Functions whose best lines tie share the best line's tie group.
		bestFirst[k] = -float64(byBestLine[k].Tie[0])
	}
	ranked, err := rank.RankScores(locs, scores, bestFirst)
	if err != nil {
		return nil, err
	}
	out := make([]RankedFunction, len(ranked))
	for p, x := range ranked {
		f := byBestLine[x.Elem]
		f.Rank, f.Tie = x.Rank, [2]int{x.TieFirst, x.TieLast}
		out[p] = f
	}
	return out, nil
}

// linesByFunction gives the functions holding lines, a ranking's lines in
// rank order, in the order of their best lines, and the index among them
// of each line's function.
func linesByFunction(lines []RankedLine, of FunctionOf) (fns []Function, which []int) {
	index := map[Function]int{}
	which = make([]int, len(lines))
	for i, l := range lines {
		fn := of(l.File, l.Line)
		k, ok := index[fn]
		if !ok {
			k = len(fns)
			index[fn] = k
			fns = append(fns, fn)
		}
		which[i] = k
	}
	return fns, which
}
