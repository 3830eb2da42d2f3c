package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// TestVariantRoundTrip: a variant's String form parses back to it, and
// bad specs are refused with an error.
func TestVariantRoundTrip(t *testing.T) {
	for _, v := range []variant{
		{Head: "trained", Window: 10, Tail: "ochiai"}, {Head: "shipped", Window: 5, Guard: 3.5, Tail: "spread"},
		{Head: "trained", Window: 20, Guard: 1000, Tail: "blend"}, {Head: "shipped", Window: 20, Tail: "ochiai", Fn: "own", Keep: 5},
		{Head: "shipped", Window: 20, Tail: "ochiai", Fn: "best", Keep: 150, Decl: 100, DeclMax: 30, DeclFail: true, DeclReader: 50, Margin: 0.5, Top: 3, Bonus: 1, Drop: "static."},
		{Head: "trained", Window: 20, Tail: "ochiai", Decl: -1, Norm: true, Neg: 50, Below: 3, Without: "mutation."},
		{Head: "trained", Window: 20, Tail: "ochiai", Decl: -1, Learn: "history."},
	} {
		got, err := parseVariant(v.String())
		if err != nil || got != v {
			t.Errorf("parseVariant(%q) = %v, %v; want %v", v.String(), got, err, v)
		}
	}
	for _, bad := range []string{"head=mine", "window=0", "window=x", "tail=op2", "guard", "depth=3", "fn=line", "keep=3", "fn=best,keep=-1", "head=shipped,without=static.", "neg=-1", "below=-2", "head=shipped,learn=history.", "learn=history.,norm=1"} {
		if _, err := parseVariant(bad); err == nil {
			t.Errorf("parseVariant(%q) gave no error", bad)
		}
	}
}

// TestVariantModel: the guard adds to the formula's weight, the tail comes
// from the fixed weights or the spread model, and the learned models are
// left as they were.
func TestVariantModel(t *testing.T) {
	head := &localize.Model{Name: "h", Weights: map[string]float64{"spectrum.ochiai": 2, "angelic.fix": 1}}
	learned := trainedModels{
		heads:  map[trainOptions]*localize.Model{{Negatives: trainNegatives}: head},
		spread: &localize.Model{Name: "s", Weights: map[string]float64{"spectrum.passShare": -1}},
	}
	m := variant{Head: "trained", Window: 7, Guard: 3, Tail: "spread", Decl: -1}.model(learned)
	if m.Window != 7 || m.Weights["spectrum.ochiai"] != 5 || m.Weights["angelic.fix"] != 1 || m.Tail["spectrum.passShare"] != -1 {
		t.Errorf("model %+v", m)
	}
	if head.Weights["spectrum.ochiai"] != 2 {
		t.Errorf("the guard changed the learned model: %v", head.Weights)
	}
	if m := (variant{Head: "trained", Window: 7, Guard: 0, Tail: "tarantula"}).model(learned); len(m.Tail) != 1 || m.Tail["spectrum.tarantula"] != 1 {
		t.Errorf("tarantula tail %v", m.Tail)
	}
	if m := (variant{Head: "trained", Window: 7, Guard: 0, Tail: "ochiai"}).model(learned); m.Tail != nil {
		t.Errorf("ochiai tail %v, want none", m.Tail)
	}
}

// TestInnerFoldSplitsEachHalf: the inner folds split both halves of the
// benchmark's projects, not one fold per half.
func TestInnerFoldSplitsEachHalf(t *testing.T) {
	b, err := realfault.LoadBenchmark("faults.json")
	if err != nil {
		t.Fatal(err)
	}
	var seen [2][2]int
	for _, p := range b.Projects {
		h := 0
		if heldOutProject(p.Repo) {
			h = 1
		}
		seen[h][innerFold(p.Repo)]++
	}
	for h := range seen {
		if seen[h][0] < 10 || seen[h][1] < 10 {
			t.Errorf("half %d: inner folds hold %v projects", h, seen[h])
		}
	}
}

// A function-first variant ranks the case's lines function by function
// from its source, and says so when the case has none; -seeded-src gives
// seeded cases their module's functions by the module path in go.mod.
func TestVariantFunctionFirst(t *testing.T) {
	root := t.TempDir()
	src := "package p\n\nfunc F() {\n\ta()\n\tb()\n}\n\nfunc G() {\n\tc()\n}\n"
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Ochiai ranks F's line 4 first, G's line 9 second, F's line 5 last.
	report := &localize.RankReport{Ranking: localize.Ranking{Formula: "ochiai", Failed: 1, Passed: 2, Lines: []localize.RankedLine{
		{File: "p.go", Line: 9, EF: 1, EP: 1, NP: 1},
		{File: "p.go", Line: 5, EF: 1, EP: 2},
		{File: "p.go", Line: 4, EF: 1, NP: 2},
	}}}
	c := &scoredCase{Group: "example.com/p", Seeded: true, Report: report}
	if err := withSeededSources([]*scoredCase{c}, root); err != nil {
		t.Fatal(err)
	}
	learned := trainedModels{heads: map[trainOptions]*localize.Model{{Negatives: trainNegatives}: {Name: "test", Weights: map[string]float64{}}}}
	v := variant{Head: "trained", Window: 20, Tail: "ochiai", Decl: -1}
	plain, err := learnedTies(c, v.model(learned))
	if err != nil {
		t.Fatal(err)
	}
	v.Fn = localize.FunctionsByBestLine
	m := v.model(learned)
	grouped, err := learnedTies(c, m)
	if err != nil {
		t.Fatal(err)
	}
	// In the report's order: lines 9, 5, 4.
	if want := [][2]int{{2, 2}, {3, 3}, {1, 1}}; !reflect.DeepEqual(plain, want) {
		t.Errorf("learned ties %v, want %v", plain, want)
	}
	if want := [][2]int{{3, 3}, {2, 2}, {1, 1}}; !reflect.DeepEqual(grouped, want) {
		t.Errorf("function-first ties %v, want %v", grouped, want)
	}
	c.Funcs = nil
	if _, err := learnedTies(c, m); err == nil {
		t.Error("a function-first variant ranked a case without its source")
	}
	if err := withSeededSources([]*scoredCase{c}, t.TempDir()); err == nil {
		t.Error("a -seeded-src directory without go.mod gave no error")
	}
}

// functionCases gives each function of a case its lines' largest evidence
// per column, in the order of its best line, and marks the functions
// holding a faulty line.
func TestFunctionCases(t *testing.T) {
	fn := map[int]string{1: "A", 2: "B", 3: "A"}
	decl := map[string]int{"A": 10, "B": 20}
	c := &scoredCase{Group: "g", Faulty: map[lineKey]bool{{"a.go", 3}: true},
		Funcs: func(file string, line int) localize.Function {
			return localize.Function{File: file, Name: fn[line], Line: decl[fn[line]]}
		},
		Report: &localize.RankReport{Ranking: localize.Ranking{Lines: []localize.RankedLine{
			{File: "a.go", Line: 2, Evidence: map[string]float64{"x": 0.5}},
			{File: "a.go", Line: 1, Evidence: map[string]float64{"x": 0.2, "y": 1}},
			{File: "a.go", Line: 3, Evidence: map[string]float64{"x": 0.7}},
		}}}}
	noSource := &scoredCase{Report: c.Report}
	got, err := functionCases([]*scoredCase{c, noSource}, func(*scoredCase) bool { return true }, []string{localize.AggregateMax}, reportLines)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d function cases, want 1 (the case without source has none)", len(got))
	}
	want := []localize.RankedLine{
		{File: "a.go", Line: 20, Evidence: map[string]float64{"x": 0.5}},
		{File: "a.go", Line: 10, Evidence: map[string]float64{"x": 0.7, "y": 1}},
	}
	if !reflect.DeepEqual(got[0].Report.Lines, want) || !reflect.DeepEqual(got[0].Faulty, map[lineKey]bool{{"a.go", 10}: true}) || got[0].Group != "g" {
		t.Errorf("function case %+v, faulty %v; want %+v, A faulty", got[0].Report.Lines, got[0].Faulty, want)
	}
}

// A function-list variant parses back, wants the shipped head and known
// aggregates, and scores the function list by its function model while
// the lines keep the head's order.
func TestVariantFunctionList(t *testing.T) {
	v := variant{Head: "shipped", Window: 20, Tail: "ochiai", Decl: -1, FnList: "max+top"}
	if got, err := parseVariant(v.String()); err != nil || got != v {
		t.Errorf("parseVariant(%q) = %v, %v; want %v", v.String(), got, err, v)
	}
	for _, bad := range []string{"head=shipped,fnlist=median", "head=trained,fnlist=max"} {
		if _, err := parseVariant(bad); err == nil {
			t.Errorf("parseVariant(%q) gave no error", bad)
		}
	}
	root := t.TempDir()
	src := "package p\n\nfunc F() {\n\ta()\n\tb()\n}\n\nfunc G() {\n\tc()\n}\n"
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Ochiai ranks F's line 4 first, G's line 9 second; G holds the fault
	// and the only line with column "z".
	report := &localize.RankReport{Ranking: localize.Ranking{Formula: "ochiai", Failed: 1, Passed: 2, Lines: []localize.RankedLine{
		{File: "p.go", Line: 9, EF: 1, EP: 1, NP: 1, Evidence: map[string]float64{"z": 1}},
		{File: "p.go", Line: 5, EF: 1, EP: 2},
		{File: "p.go", Line: 4, EF: 1, NP: 2},
	}}}
	c := &scoredCase{ID: "c", Group: "g", Report: report, Faulty: map[lineKey]bool{{"p.go", 9}: true}, Funcs: localize.SourceFunctions(root)}
	learned := trainedModels{fnList: map[string]*localize.Model{"max+top": {Weights: map[string]float64{"z": 1}}}}
	withList := v.model(learned)
	if withList.FunctionModel == nil || !reflect.DeepEqual(withList.FunctionModel.Aggregates, []string{"max", "top"}) {
		t.Fatalf("function model %+v, want the fold's over max and top", withList.FunctionModel)
	}
	v.FnList = ""
	plain := v.model(learned)
	plain.Weights = map[string]float64{}
	withList.Weights = map[string]float64{}
	res, err := evaluate([]*scoredCase{c}, []order{
		learnedOrder("plain", func(*scoredCase) *localize.Model { return plain }),
		learnedOrder("list", func(*scoredCase) *localize.Model { return withList }),
	})
	if err != nil {
		t.Fatal(err)
	}
	p, l := res[c][0], res[c][1]
	if p.pos != 2 || l.pos != 2 {
		t.Errorf("line positions %v and %v, want 2 under both (the lines' order is the head's)", p.pos, l.pos)
	}
	if p.fnPos != 2 || l.fnPos != 1 {
		t.Errorf("function positions %v by best line and %v by the function model, want 2 and 1", p.fnPos, l.fnPos)
	}
}

// -function-model sets the model file's function model and leaves the
// rest of it byte for byte: the shipped model written back unchanged with
// its own.
func TestWriteFunctionModel(t *testing.T) {
	shipped, err := os.ReadFile("../../internal/localize/model.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.json")
	if err := os.WriteFile(path, shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFunctionModel(path, localize.ShippedModel().FunctionModel); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(shipped) {
		t.Errorf("with its own function model the shipped model changed:\n%s", again)
	}
	fm := &localize.FunctionModel{Aggregates: []string{"max"}, Weights: map[string]float64{"spectrum.ochiai": 1.5}}
	if err := writeFunctionModel(path, fm); err != nil {
		t.Fatal(err)
	}
	var m localize.Model
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.FunctionModel, fm) || !reflect.DeepEqual(m.Weights, localize.ShippedModel().Weights) || m.Window != localize.ShippedModel().Window {
		t.Errorf("written model %+v", m)
	}
	if err := writeFunctionModel(filepath.Join(t.TempDir(), "none.json"), fm); err == nil {
		t.Error("a missing model file gave no error")
	}
}

// unexec= gives the model WithUnexecuted's options, the distance 1 unless
// set, and reads back from its String form.
func TestVariantUnexecuted(t *testing.T) {
	for spec, want := range map[string]localize.UnexecutedOptions{
		"head=shipped,window=20,guard=0,tail=ochiai,unexec=150,unexecreach=20": {After: 150, Distance: 1, Reach: 20},
		"head=shipped,window=20,guard=0,tail=ochiai,unexec=0,unexecdist=3":     {After: 0, Distance: 3},
	} {
		v, err := parseVariant(spec)
		if err != nil || v.String() != spec {
			t.Fatalf("parseVariant(%q) = %s, %v", spec, v, err)
		}
		if m := v.model(trainedModels{}); m.Unexecuted == nil || *m.Unexecuted != want {
			t.Errorf("%s: model's unexecuted options %+v, want %+v", spec, m.Unexecuted, want)
		}
	}
	v, err := parseVariant("head=shipped,window=20,guard=0,tail=ochiai")
	if err != nil || v.model(trainedModels{}).Unexecuted != nil {
		t.Errorf("without unexec=: %v, %+v", err, v.model(trainedModels{}).Unexecuted)
	}
}

// -cross adds products with Ochiai's score for the columns named.
func TestCross(t *testing.T) {
	lines := func() []localize.RankedLine {
		return []localize.RankedLine{
			{File: "a.go", Line: 1, Evidence: map[string]float64{"spectrum.ochiai": 0.5, "static.depth": 4, "angelic.fix": 1}},
			{File: "a.go", Line: 2, Evidence: map[string]float64{"spectrum.ochiai": 0.25, "static.depth": -2}},
		}
	}
	c := &scoredCase{Report: &localize.RankReport{Ranking: localize.Ranking{Lines: lines()}}}
	withProducts([]*scoredCase{c, {}}, []string{"static."})
	want := []map[string]float64{
		{"spectrum.ochiai": 0.5, "static.depth": 4, "angelic.fix": 1, "static.depth*spectrum.ochiai": 2},
		{"spectrum.ochiai": 0.25, "static.depth": -2, "static.depth*spectrum.ochiai": -0.5},
	}
	for i, l := range c.Report.Lines {
		if !reflect.DeepEqual(l.Evidence, want[i]) {
			t.Errorf("-cross static.: line %d %v, want %v", l.Line, l.Evidence, want[i])
		}
	}
}

// norm=1 trains a head on each fault's columns scaled as the model scales
// them when it ranks, and the variant's model says it normalizes: a column
// that tells the faulty line apart only by its share of the largest value
// gets its weight either way, but at the scale the model will see.
func TestNormalizedHead(t *testing.T) {
	v, err := parseVariant("head=trained,window=20,guard=0,tail=ochiai,norm=1")
	if err != nil || !v.Norm || v.String() != "head=trained,window=20,guard=0,tail=ochiai,norm=1" {
		t.Fatalf("parseVariant: %s, %v", v, err)
	}
	if _, err := parseVariant("head=shipped,norm=1"); err == nil {
		t.Errorf("norm=1 with the shipped head: no error")
	}
	var cases []*scoredCase
	for k, big := range []float64{1000, 2} {
		lines := []localize.RankedLine{
			{File: "a.go", Line: 1, Evidence: map[string]float64{"spectrum.ochiai": 0.5, "static.depth": big}},
			{File: "a.go", Line: 2, Evidence: map[string]float64{"spectrum.ochiai": 0.5, "static.depth": big / 2}},
			{File: "a.go", Line: 3, Evidence: map[string]float64{"spectrum.ochiai": 0.5}},
		}
		cases = append(cases, &scoredCase{ID: fmt.Sprint("f", k), Group: fmt.Sprint("g", k), Report: &localize.RankReport{Ranking: localize.Ranking{Lines: lines}},
			Faulty: map[lineKey]bool{{"a.go", 1}: true}})
	}
	all := func(*scoredCase) bool { return true }
	models, err := learnModels(cases, all, []variant{v})
	if err != nil {
		t.Fatal(err)
	}
	m := v.model(models)
	if !m.Normalize || len(models.heads) != 1 {
		t.Fatalf("norm=1: model normalizes %v, %d heads trained, want 1", m.Normalize, len(models.heads))
	}
	if m.Weights["static.depth"] <= 0 {
		t.Errorf("norm=1: static.depth weighs %v, want more than 0", m.Weights["static.depth"])
	}
	for _, c := range cases {
		r, err := learnedRanking(c, m)
		if err != nil {
			t.Fatal(err)
		}
		if r.Lines[0].Line != 1 {
			t.Errorf("%s: line %d first, want the faulty line 1", c.ID, r.Lines[0].Line)
		}
	}
}

// below=B weighs a fault's pairs whose non-faulty line Ochiai ranks below
// the fault B times as much as its others: a column that would lift such
// a line past the fault in one project weighs less, though it lifts the
// fault in another.
func TestBelowWeighsPairsUnderTheFault(t *testing.T) {
	line := func(n int, ochiai, x float64) localize.RankedLine {
		return localize.RankedLine{File: "a.go", Line: n, Evidence: map[string]float64{"spectrum.ochiai": ochiai, "static.depth": x}}
	}
	cases := []*scoredCase{
		// x lifts a line Ochiai ranks below the fault past it.
		{ID: "a", Group: "a", Report: &localize.RankReport{Ranking: localize.Ranking{Lines: []localize.RankedLine{line(1, 0.6, 0), line(2, 0.5, 0), line(3, 0.4, 1)}}},
			Faulty: map[lineKey]bool{{"a.go", 2}: true}},
		// x lifts the fault past a line Ochiai ranks above it.
		{ID: "b", Group: "b", Report: &localize.RankReport{Ranking: localize.Ranking{Lines: []localize.RankedLine{line(1, 0.6, 0), line(2, 0.3, 1), line(3, 0.2, 1)}}},
			Faulty: map[lineKey]bool{{"a.go", 2}: true}},
	}
	all := func(*scoredCase) bool { return true }
	weight := func(spec string) float64 {
		v, err := parseVariant(spec)
		if err != nil {
			t.Fatal(err)
		}
		models, err := learnModels(cases, all, []variant{v})
		if err != nil {
			t.Fatal(err)
		}
		return v.model(models).Weights["static.depth"]
	}
	plain, below := weight("head=trained,window=20"), weight("head=trained,window=20,below=10")
	if !(below < plain) {
		t.Errorf("static.depth weighs %v with below=10, %v without; want less with it", below, plain)
	}
	if _, err := parseVariant("head=shipped,below=2"); err == nil {
		t.Errorf("below=2 with the shipped head: no error")
	}
}

// TestLearnKeepsTheShippedHead: learn= learns the new columns' weights (of
// one prefix or several) and leaves the shipped head's own as they are.
func TestLearnKeepsTheShippedHead(t *testing.T) {
	shipped := localize.ShippedModel().Weights
	line := func(n int, ochiai, recent float64) localize.RankedLine {
		return localize.RankedLine{File: "a.go", Line: n, Evidence: map[string]float64{"spectrum.ochiai": ochiai, "static.depth": 1 - recent, "history.recent": recent, "slice.member": recent}}
	}
	cases := []*scoredCase{
		{ID: "a", Group: "a", Report: &localize.RankReport{Ranking: localize.Ranking{Lines: []localize.RankedLine{line(1, 0.6, 0), line(2, 0.5, 1), line(3, 0.4, 0)}}},
			Faulty: map[lineKey]bool{{"a.go", 2}: true}},
	}
	for _, c := range []struct {
		learn       string
		new, shared []string
	}{
		{"history.", []string{"history.recent"}, []string{"spectrum.ochiai", "static.depth", "slice.member"}},
		{"history.|slice.", []string{"history.recent", "slice.member"}, []string{"spectrum.ochiai", "static.depth"}},
	} {
		v, err := parseVariant("head=trained,window=20,learn=" + c.learn)
		if err != nil {
			t.Fatal(err)
		}
		models, err := learnModels(cases, func(*scoredCase) bool { return true }, []variant{v})
		if err != nil {
			t.Fatal(err)
		}
		w := v.model(models).Weights
		for _, col := range c.new {
			if w[col] <= 0 {
				t.Errorf("learn=%s: %s weighs %v, want a positive weight learned", c.learn, col, w[col])
			}
		}
		for _, col := range c.shared {
			if w[col] != shipped[col] {
				t.Errorf("learn=%s: %s weighs %v, want the shipped %v kept", c.learn, col, w[col], shipped[col])
			}
		}
	}
}

// The sign test's p-values, against the binomial's: 5 against 0 is
// 2·(1/32); an even split is 1.
func TestSignTest(t *testing.T) {
	for _, c := range []struct {
		a, b int
		want float64
	}{{5, 0, 0.0625}, {0, 5, 0.0625}, {3, 3, 1}, {0, 0, 1}, {9, 1, 2 * 11.0 / 1024}} {
		if got := signTest(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("signTest(%d, %d) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
}

// Intervals by project: a project whose faults all come first and one
// whose faults never do give a Top-1 interval from 0 to 100 %; an order
// that puts every fault first gives 100–100 %.
func TestWriteIntervals(t *testing.T) {
	var cases []*scoredCase
	res := map[*scoredCase][]outcome{}
	for i, g := range []string{"a", "a", "b", "b"} {
		c := &scoredCase{Group: g}
		cases = append(cases, c)
		mixed := 1.0
		if i >= 2 {
			mixed = 9
		}
		res[c] = []outcome{{pos: mixed}, {pos: 1}}
	}
	var b strings.Builder
	writeIntervals(&b, cases, []order{{name: "mixed"}, {name: "first"}}, res)
	for _, want := range []string{"2000 resamples of the 2 projects", "| mixed | 0–100 % | 0–100 % |", "| first | 100–100 % | 100–100 % |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("intervals lack %q:\n%s", want, b.String())
		}
	}
}

// The listwise gradient is the loss's: checked against finite differences
// of -log(Σ_pos e^s / Σ_all e^s), a non-faulty line weighed twice.
func TestListwiseGradient(t *testing.T) {
	tc := trainingCase{weight: 0.5, negWeight: []float64{1, 2}}
	sp, sn := []float64{0.3, -0.2}, []float64{0.9, 0.1}
	loss := func(sp, sn []float64) float64 {
		var pos, all float64
		for _, s := range sp {
			pos += math.Exp(s)
		}
		all = pos
		for b, s := range sn {
			all += tc.negWeight[b] * math.Exp(s)
		}
		return -tc.weight * math.Log(pos/all)
	}
	gp, gn := make([]float64, 2), make([]float64, 2)
	listwiseGradient(tc, sp, sn, gp, gn)
	const h = 1e-6
	for _, c := range []struct {
		scores []float64
		grad   []float64
	}{{sp, gp}, {sn, gn}} {
		for i := range c.scores {
			c.scores[i] += h
			up := loss(sp, sn)
			c.scores[i] -= 2 * h
			down := loss(sp, sn)
			c.scores[i] += h
			if want := (up - down) / (2 * h); math.Abs(c.grad[i]-want) > 1e-6 {
				t.Errorf("gradient %g, finite difference %g", c.grad[i], want)
			}
		}
	}
}
