package rank_test

import (
	"fmt"

	"github.com/faultline-go/faultline/spectra/rank"
)

// The minmax example of Landsberg, Sun and Kroening (FASE 2018): ten tests,
// the first three failing, five statements, the fourth faulty.
func Example() {
	runs := []rank.Run{
		{Failing: true, Hits: []int32{0, 2, 3}},
		{Failing: true, Hits: []int32{0, 3, 4}},
		{Failing: true, Hits: []int32{0, 3}},
		{Hits: []int32{0, 1}},
		{Hits: []int32{0, 2}},
		{Hits: []int32{0, 4}},
		{Hits: []int32{0, 3, 4}},
		{Hits: []int32{0}},
		{Hits: []int32{0, 1, 4}},
		{Hits: []int32{0, 1, 2}},
	}
	counts, err := rank.CountMatrix(5, runs)
	if err != nil {
		panic(err)
	}
	elems := make([]rank.Element, len(counts))
	for i, c := range counts {
		elems[i] = rank.Element{Counts: c, Loc: rank.Location{File: "minmax.go", Line: 3 + i}}
	}
	f, err := rank.Lookup("russell-rao")
	if err != nil {
		panic(err)
	}
	ranked := rank.Rank(elems, f)
	for _, r := range ranked {
		fmt.Printf("line %d  score %.2f  rank %d  tie [%d,%d]\n", elems[r.Elem].Loc.Line, r.Score, r.Rank, r.TieFirst, r.TieLast)
	}
	faulty := func(elem int) bool { return elem == 3 }
	for _, mode := range []rank.TieMode{rank.BestCase, rank.AverageCase, rank.WorstCase} {
		exam, _ := rank.Exam(ranked, faulty, mode)
		fmt.Printf("%s EXAM %.2f\n", mode, exam)
	}
	// Output:
	// line 3  score 0.30  rank 1  tie [1,2]
	// line 6  score 0.30  rank 2  tie [1,2]
	// line 5  score 0.10  rank 3  tie [3,4]
	// line 7  score 0.10  rank 4  tie [3,4]
	// line 4  score 0.00  rank 5  tie [5,5]
	// best EXAM 0.20
	// average EXAM 0.30
	// worst EXAM 0.40
}
