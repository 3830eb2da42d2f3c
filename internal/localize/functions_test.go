package localize

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
