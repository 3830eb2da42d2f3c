package localize

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

const functionsSource = `package p

var hook = func() int {
	return 1
}

func init() {
	x := 1
	_ = x
}

func init() {
	_ = 2
}

type T[E any] struct{ e E }

func (t *T[E]) Get() E {
	f := func() E {
		return t.e
	}
	return f()
}

func Map[A, B any](xs []A, f func(A) B) []B {
	var out []B
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}
`

// Methods are named Type.Method, closures belong to their declared
// function, two init functions stay apart, and package-level code has no
// name.
func TestSourceFunctions(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(functionsSource), 0o644); err != nil {
		t.Fatal(err)
	}
	of := SourceFunctions(root)
	for _, tc := range []struct {
		line int
		want Function
	}{
		{4, Function{File: "p/p.go"}},
		{8, Function{"p/p.go", "init", 7}},
		{13, Function{"p/p.go", "init", 12}},
		{19, Function{"p/p.go", "T.Get", 18}},
		{20, Function{"p/p.go", "T.Get", 18}}, // inside the closure
		{22, Function{"p/p.go", "T.Get", 18}},
		{28, Function{"p/p.go", "Map", 25}},
	} {
		if got := of("p/p.go", tc.line); got != tc.want {
			t.Errorf("line %d: got %+v, want %+v", tc.line, got, tc.want)
		}
	}
	if got, want := of("p/missing.go", 3), (Function{File: "p/missing.go"}); got != want {
		t.Errorf("missing file: got %+v, want %+v", got, want)
	}
}

// A function takes its best line's place, and functions whose best lines
// tie under the order tie.
func TestRankFunctions(t *testing.T) {
	fn := map[int]string{1: "A", 2: "B", 3: "A", 4: "C", 5: "D", 6: "B", 7: "E"}
	byName := func(file string, line int) Function { return Function{File: file, Name: fn[line]} }
	lines := []RankedLine{
		{File: "a.go", Line: 2, Rank: 1, Tie: [2]int{1, 1}}, // B
		{File: "a.go", Line: 1, Rank: 2, Tie: [2]int{2, 4}}, // A
		{File: "a.go", Line: 4, Rank: 3, Tie: [2]int{2, 4}}, // C, tied with A
		{File: "a.go", Line: 6, Rank: 4, Tie: [2]int{2, 4}}, // B again
		{File: "a.go", Line: 3, Rank: 5, Tie: [2]int{5, 6}}, // A again
		{File: "a.go", Line: 5, Rank: 6, Tie: [2]int{5, 6}}, // D, alone in its group at function level
		{File: "a.go", Line: 7, Rank: 7, Tie: [2]int{7, 7}}, // E
	}
	got := RankFunctions(lines, byName)
	want := []RankedFunction{
		{Function: Function{"a.go", "B", 0}, Rank: 1, Tie: [2]int{1, 1}, BestLine: 2, BestRank: 1, Lines: 2},
		{Function: Function{"a.go", "A", 0}, Rank: 2, Tie: [2]int{2, 3}, BestLine: 1, BestRank: 2, Lines: 2},
		{Function: Function{"a.go", "C", 0}, Rank: 3, Tie: [2]int{2, 3}, BestLine: 4, BestRank: 3, Lines: 1},
		{Function: Function{"a.go", "D", 0}, Rank: 4, Tie: [2]int{4, 4}, BestLine: 5, BestRank: 6, Lines: 1},
		{Function: Function{"a.go", "E", 0}, Rank: 5, Tie: [2]int{5, 5}, BestLine: 7, BestRank: 7, Lines: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if got := RankFunctions(nil, byName); len(got) != 0 {
		t.Errorf("no lines: got %+v", got)
	}
}

// A function's own spectrum counts a test once however many of its lines
// the test runs, and the functions rank by the formula of that spectrum.
func TestRankFunctionSpectra(t *testing.T) {
	fn := map[int]string{1: "A", 2: "A", 3: "B", 4: "C"}
	byName := func(file string, line int) Function { return Function{File: file, Name: fn[line]} }
	m := &spectra.Matrix{
		Blocks: []spectra.Block{{File: "a.go", Lines: []int{1}}, {File: "a.go", Lines: []int{2}}, {File: "a.go", Lines: []int{3}}, {File: "a.go", Lines: []int{4}}},
		Tests: []spectra.TestRun{
			{Name: "F1", Verdict: spectra.Fail, Hits: spectra.NewHits(0, 1)}, // both of A's lines: once for A
			{Name: "F2", Verdict: spectra.Fail, Hits: spectra.NewHits(1)},
			{Name: "P1", Verdict: spectra.Pass, Hits: spectra.NewHits(0, 2)},
			{Name: "P2", Verdict: spectra.Pass, Hits: spectra.NewHits(2)},
			{Name: "S", Verdict: spectra.Skip, Hits: spectra.NewHits(3)}, // not counted: C is never executed
		},
	}
	got, err := RankFunctionSpectra(m, nil, byName)
	if err != nil {
		t.Fatal(err)
	}
	ochiai := rank.Default()
	want := map[Function]FunctionSpectrum{
		{File: "a.go", Name: "A"}: {Formula: ochiai.Name(), Score: ochiai.Score(rank.Counts{EF: 2, EP: 1, NF: 0, NP: 1}), Rank: 1, Tie: [2]int{1, 1}, EF: 2, EP: 1, NF: 0, NP: 1},
		{File: "a.go", Name: "B"}: {Formula: ochiai.Name(), Score: 0, Rank: 2, Tie: [2]int{2, 2}, EF: 0, EP: 2, NF: 2, NP: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// Localization.Functions gives each function ranked by its best line its
// own spectrum under the ranking's formula.
func TestLocalizationFunctions(t *testing.T) {
	fn := map[int]string{1: "A", 2: "B"}
	byName := func(file string, line int) Function { return Function{File: file, Name: fn[line]} }
	m := &spectra.Matrix{
		Blocks: []spectra.Block{{File: "a.go", Lines: []int{1}}, {File: "a.go", Lines: []int{2}}},
		Tests: []spectra.TestRun{
			{Name: "F", Verdict: spectra.Fail, Hits: spectra.NewHits(0, 1)},
			{Name: "P", Verdict: spectra.Pass, Hits: spectra.NewHits(1)},
		},
	}
	r, err := RankFormula(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	loc := &Localization{Matrix: m, Formula: r, Ranking: r}
	fns, err := loc.Functions(byName)
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 2 || fns[0].Name != "A" || fns[1].Name != "B" {
		t.Fatalf("functions %+v, want A then B", fns)
	}
	for i, f := range fns {
		if f.Spectrum == nil || f.Spectrum.Rank != i+1 || f.Spectrum.Formula != r.Formula {
			t.Errorf("%s: spectrum %+v, want rank %d under %s", f.Name, f.Spectrum, i+1, r.Formula)
		}
	}
	if s := fns[1].Spectrum; s != nil && (s.EF != 1 || s.EP != 1) {
		t.Errorf("B's spectrum %+v, want EF 1 EP 1", s)
	}
}
