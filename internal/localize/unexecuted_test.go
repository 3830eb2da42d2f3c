package localize

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// unexecutedSrc is a file whose Abs runs its first branch only: its
// header, the else and the closing braces no test runs; Other no failing
// test runs at all.
const unexecutedSrc = `package p

// Abs returns |x|.
func Abs(x int) int {
	if x < 0 {
		return -x

	} else {
		// Positive.
		x = x + 0
	}
	return x
}

func Other() int {
	return 1
}
`

// The code lines of each declared function, header through closing
// brace, without comments and blank lines.
func TestSourceFunctionSpans(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(unexecutedSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	spans := SourceFunctionSpans(root)
	want := []FunctionSpan{
		{Start: 4, End: 13, Code: []int{4, 5, 6, 8, 10, 11, 12, 13}},
		{Start: 15, End: 17, Code: []int{15, 16, 17}},
	}
	if got := spans("p.go"); !reflect.DeepEqual(got, want) {
		t.Errorf("spans = %+v, want %+v", got, want)
	}
	if got := spans("missing.go"); got != nil {
		t.Errorf("a missing file has spans %+v", got)
	}
}

// Lines no test runs next to lines a failing test runs come right after
// the tie group at After, nearer ones first, the top keeping its places;
// those next to lines only passing tests run, and those out of Distance,
// are not placed.
func TestWithUnexecuted(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(unexecutedSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Ranking{Failed: 1, Passed: 1, Lines: []RankedLine{
		{File: "p.go", Line: 6, Rank: 1, Tie: [2]int{1, 1}, EF: 1},
		{File: "p.go", Line: 5, Rank: 2, Tie: [2]int{2, 3}, EF: 1, EP: 1},
		{File: "p.go", Line: 16, Rank: 3, Tie: [2]int{2, 3}, EP: 1},
		{File: "p.go", Line: 12, Rank: 4, Tie: [2]int{4, 4}, EP: 1},
	}}
	// Each line of the result as "line@rank", a placed one with "<N",
	// the rank of the line it is next to; every placed line is a tie
	// group of its own.
	for _, tt := range []struct {
		name string
		opts UnexecutedOptions
		want []string
	}{
		// After 2 falls inside the tie group 2-3: they follow it. The
		// header (4) is next to line 5 (rank 2), line 8 next to line 6
		// (rank 1); Other's lines and those next to line 12 (run by a
		// passing test only) are not placed.
		{"distance 1", UnexecutedOptions{After: 2, Distance: 1}, []string{"6@1", "5@2", "16@3", "8@4<1", "4@5<2", "12@6"}},
		// Two code lines away reaches the else's body (10).
		{"distance 2", UnexecutedOptions{After: 2, Distance: 2}, []string{"6@1", "5@2", "16@3", "8@4<1", "4@5<2", "10@6<1", "12@7"}},
		// Reach 1: only line 6's neighbours; After past the end: at the end.
		{"reach 1, after 10", UnexecutedOptions{After: 10, Distance: 1, Reach: 1}, []string{"6@1", "5@2", "16@3", "12@4", "8@5<1"}},
	} {
		var got []string
		for _, l := range WithUnexecuted(r, SourceFunctionSpans(root), tt.opts).Lines {
			s := fmt.Sprintf("%d@%d", l.Line, l.Rank)
			if next := l.Evidence[EvidenceUnexecutedNextTo]; next > 0 {
				s += fmt.Sprintf("<%g", next)
				if l.Tie != [2]int{l.Rank, l.Rank} {
					t.Errorf("%s: placed line %d ties %v", tt.name, l.Line, l.Tie)
				}
			}
			got = append(got, s)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %v\nwant %v", tt.name, got, tt.want)
		}
	}
	if g := WithUnexecuted(r, SourceFunctionSpans(root), UnexecutedOptions{After: 2, Distance: 1}).Lines[2].Tie; g != [2]int{2, 3} {
		t.Errorf("a tie group above the placed lines moved: %v", g)
	}
}
