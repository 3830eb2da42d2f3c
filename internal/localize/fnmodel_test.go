package localize

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/spectra"
)

// fnModelLines are a ranking's lines in rank order: A holds the best
// line, B two lines, one of them with a strong column; C ties with B's
// best line.
func fnModelLines() ([]RankedLine, FunctionOf) {
	fn := map[int]string{1: "A", 2: "B", 3: "C", 4: "B"}
	decl := map[string]int{"A": 10, "B": 20, "C": 30}
	of := func(file string, line int) Function {
		return Function{File: file, Name: fn[line], Line: decl[fn[line]]}
	}
	return []RankedLine{
		{File: "a.go", Line: 1, Rank: 1, Tie: [2]int{1, 1}, Evidence: map[string]float64{"x": 0.9}},
		{File: "a.go", Line: 2, Rank: 2, Tie: [2]int{2, 3}, Evidence: map[string]float64{"x": 0.5}},
		{File: "a.go", Line: 3, Rank: 3, Tie: [2]int{2, 3}, Evidence: map[string]float64{"x": 0.5}},
		{File: "a.go", Line: 4, Rank: 4, Tie: [2]int{4, 4}, Evidence: map[string]float64{"x": 0.1, "y": 3, EvidenceDeclarationRead: 1}},
	}, of
}

// Each aggregate gives its features: the largest value, the log-scaled
// sum, the share of the top positions and the best line's inverse place;
// a declaration's reader's place is no feature.
func TestFunctionFeatures(t *testing.T) {
	lines, of := fnModelLines()
	fns, features, err := FunctionFeatures(lines, of, []string{AggregateMax, AggregateSum, AggregateTop, AggregateBest})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{fns[0].Name, fns[1].Name, fns[2].Name}; !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Fatalf("functions %v, want A, B, C (their best lines' order)", got)
	}
	b := features[1]
	want := map[string]float64{"x": 0.5, "y": 3, "sum.x": math.Log1p(0.6), "sum.y": math.Log1p(3),
		FeatureTopLines: 2.0 / FunctionTopLines, FeatureBestLine: 0.5}
	for name, w := range want {
		if math.Abs(b[name]-w) > 1e-12 {
			t.Errorf("B's %s = %v, want %v", name, b[name], w)
		}
	}
	if len(b) != len(want) {
		t.Errorf("B's features %v, want only %v", b, want)
	}
	_, maxOnly, err := FunctionFeatures(lines, of, []string{AggregateMax})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(maxOnly[1], map[string]float64{"x": 0.5, "y": 3}) {
		t.Errorf("max alone gives B %v, want its columns' largest values", maxOnly[1])
	}
	if _, _, err := FunctionFeatures(lines, of, []string{"median"}); err == nil || !strings.Contains(err.Error(), "median") {
		t.Errorf("an unknown aggregate gave %v, want an error naming it", err)
	}
}

// A model without a function model lists functions by their best lines;
// with one, by its score, the best line breaking ties, and the functions'
// best lines stay the ranking's.
func TestModelRankFunctions(t *testing.T) {
	lines, of := fnModelLines()
	plain := &Model{Name: "m"}
	got, err := plain.RankFunctions(lines, of)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, RankFunctions(lines, of)) {
		t.Errorf("without a function model: %+v, want the best-line order", got)
	}
	m := &Model{Name: "m", FunctionModel: &FunctionModel{Aggregates: []string{AggregateMax}, Weights: map[string]float64{"y": 1}}}
	got, err = m.RankFunctions(lines, of)
	if err != nil {
		t.Fatal(err)
	}
	type placed struct {
		name           string
		rank           int
		tie            [2]int
		bestLine, best int
	}
	var have []placed
	for _, f := range got {
		have = append(have, placed{f.Name, f.Rank, f.Tie, f.BestLine, f.BestRank})
	}
	want := []placed{{"B", 1, [2]int{1, 1}, 2, 2}, {"A", 2, [2]int{2, 2}, 1, 1}, {"C", 3, [2]int{3, 3}, 3, 3}}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("by the function model: %+v, want %+v", have, want)
	}
	// Functions equal under the model and whose best lines tie, tie.
	flat := &Model{Name: "m", FunctionModel: &FunctionModel{Aggregates: []string{AggregateMax}, Weights: map[string]float64{"z": 1}}}
	got, err = flat.RankFunctions(lines, of)
	if err != nil {
		t.Fatal(err)
	}
	if got[1].Tie != [2]int{2, 3} || got[2].Tie != [2]int{2, 3} || got[0].Name != "A" {
		t.Errorf("a model that scores every function alike: %+v, want A first, B and C tied", got)
	}
	bad := &Model{Name: "m", FunctionModel: &FunctionModel{Aggregates: []string{"median"}}}
	if _, err := bad.RankFunctions(lines, of); err == nil {
		t.Error("a function model with an unknown aggregate ranked functions")
	}
}

// A localization under the shipped model's learned order lists its
// functions by the shipped function model; under a formula, by their best
// lines.
func TestLocalizationFunctionsByShippedModel(t *testing.T) {
	shipped := ShippedModel()
	if shipped.FunctionModel == nil {
		t.Fatal("the shipped model has no function model")
	}
	// A's line ranks first with no evidence; B's, second, holds the
	// evidence every function model weighs most.
	of := func(file string, line int) Function {
		return Function{File: file, Name: map[int]string{1: "A", 2: "B"}[line], Line: line}
	}
	strong := map[string]float64{}
	for col, w := range shipped.FunctionModel.Weights {
		if w > 0 && !strings.HasPrefix(col, "function.") {
			strong[col] = 1
		}
	}
	lines := []RankedLine{
		{File: "a.go", Line: 1, Rank: 1, Tie: [2]int{1, 1}},
		{File: "a.go", Line: 2, Rank: 2, Tie: [2]int{2, 2}, Evidence: strong},
	}
	for _, tc := range []struct {
		order, model string
		first        string
	}{{OrderLearned, shipped.Name, "B"}, {OrderFormula, "", "A"}, {OrderLearned, "another model", "A"}} {
		loc := &Localization{Matrix: &spectra.Matrix{}, Ranking: &Ranking{Formula: "ochiai", Order: tc.order, Model: tc.model, Lines: lines}}
		fns, err := loc.Functions(of)
		if err != nil {
			t.Fatal(err)
		}
		if len(fns) != 2 || fns[0].Name != tc.first || fns[0].Rank != 1 {
			t.Errorf("order %s, model %q: functions %+v, want %s first", tc.order, tc.model, fns, tc.first)
		}
	}
}
