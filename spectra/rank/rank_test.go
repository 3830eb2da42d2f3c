package rank

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func minmaxElements(counts []Counts) []Element {
	elems := make([]Element, len(counts))
	for i, c := range counts {
		elems[i] = Element{Counts: c, Loc: Location{File: "minmax.go", Line: 10 + i}}
	}
	return elems
}

// order1 returns the 1-based unit numbers in ranking order.
func order1(ranked []Ranked) []int {
	units := make([]int, len(ranked))
	for i, r := range ranked {
		units[i] = r.Elem + 1
	}
	return units
}

func TestCountMatrixMinMax(t *testing.T) {
	counts, err := CountMatrix(5, minmaxRuns())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(counts, minmaxCounts) {
		t.Errorf("CountMatrix = %+v, want %+v", counts, minmaxCounts)
	}
}

func TestCountMatrixRejectsBadHits(t *testing.T) {
	cases := map[string][]int32{
		"unsorted":     {2, 1},
		"repeated":     {1, 1},
		"out of range": {0, 5},
		"negative":     {-1, 2},
	}
	for name, hits := range cases {
		runs := []Run{{Failing: true, Hits: []int32{0}}, {Hits: hits}}
		if _, err := CountMatrix(5, runs); err == nil || !strings.Contains(err.Error(), "run 1") {
			t.Errorf("%s hits %v: error = %v, want one naming run 1", name, hits, err)
		}
	}
	if _, err := CountMatrix(-1, nil); err == nil {
		t.Error("negative element count accepted")
	}
	if counts, err := CountMatrix(0, []Run{{Failing: true}}); err != nil || len(counts) != 0 {
		t.Errorf("empty matrix: %v, %v", counts, err)
	}
}

func TestRankMinMaxNaish2(t *testing.T) {
	ranked := Rank(minmaxElements(minmaxCounts), lookup(t, "naish2"))
	if got := order1(ranked); !slices.Equal(got, []int{4, 1, 3, 5, 2}) {
		t.Fatalf("ranking %v, want [4 1 3 5 2]", got)
	}
	wantScores := []float64{2.875, 2.125, 0.75, 0.625, -0.375}
	for i, r := range ranked {
		if r.Rank != i+1 || r.TieFirst != i+1 || r.TieLast != i+1 || r.Score != wantScores[i] {
			t.Errorf("position %d: %+v, want rank and tie %d, score %v", i+1, r, i+1, wantScores[i])
		}
	}
	isC4 := func(elem int) bool { return elem == 3 }
	for _, mode := range []TieMode{BestCase, AverageCase, WorstCase} {
		if exam, ok := Exam(ranked, isC4, mode); !ok || exam != 0.2 {
			t.Errorf("%v EXAM = %v, %v; want 1/5", mode, exam, ok)
		}
	}
}

// TestRankTiesByCodeOrder: Russell–Rao and Wong1 tie C1 with the fault C4;
// code order puts C1 first, and the tie group says so.
func TestRankTiesByCodeOrder(t *testing.T) {
	for _, name := range []string{"russell-rao", "wong1"} {
		ranked := Rank(minmaxElements(minmaxCounts), lookup(t, name))
		if got := order1(ranked); !slices.Equal(got, []int{1, 4, 3, 5, 2}) {
			t.Fatalf("%s ranking %v, want [1 4 3 5 2]", name, got)
		}
		c4 := ranked[1]
		if c4.Rank != 2 || c4.Best() != 1 || c4.Worst() != 2 || c4.Average() != 1.5 || c4.TieSize() != 2 {
			t.Errorf("%s C4 %+v, want rank 2 in tie group [1,2]", name, c4)
		}
		if g := ranked[2]; g.TieFirst != 3 || g.TieLast != 4 {
			t.Errorf("%s C3 tie group [%d,%d], want [3,4] with C5", name, g.TieFirst, g.TieLast)
		}
		isC4 := func(elem int) bool { return elem == 3 }
		for mode, want := range map[TieMode]float64{BestCase: 1, AverageCase: 1.5, WorstCase: 2} {
			if pos, ok := FaultPosition(ranked, isC4, mode); !ok || pos != want {
				t.Errorf("%s %v position %v, want %v", name, mode, pos, want)
			}
		}
		if TopN(ranked, isC4, 1, WorstCase) || !TopN(ranked, isC4, 1, BestCase) {
			t.Errorf("%s Top-1 should hold in the best case only", name)
		}
	}
}

func TestRankCodeOrderAcrossFiles(t *testing.T) {
	same := Counts{EF: 1, EP: 1, NF: 0, NP: 0}
	elems := []Element{
		{same, Location{"b.go", 3}},
		{same, Location{"a.go", 20}},
		{same, Location{"a.go", 3}},
		{same, Location{"a.go", 3}}, // two blocks on one line: input order
		{Counts{EF: 1}, Location{"z.go", 1}},
	}
	ranked := Rank(elems, nil)
	if got := order1(ranked); !slices.Equal(got, []int{5, 3, 4, 2, 1}) {
		t.Errorf("ranking %v, want [5 3 4 2 1]", got)
	}
	for _, r := range ranked[1:] {
		if r.TieFirst != 2 || r.TieLast != 5 {
			t.Errorf("%+v: tie group should be [2,5]", r)
		}
	}
}

func TestTieRounding(t *testing.T) {
	if tieKey(0.1+0.2) != tieKey(0.3) {
		t.Error("0.1+0.2 and 0.3 should tie")
	}
	if tieKey(1) == tieKey(1+1e-9) || tieKey(-2.5) == tieKey(-2.5*(1+1e-9)) {
		t.Error("a relative difference of 1e-9 should not tie")
	}
	if k := tieKey(DivergentScore); math.IsInf(k, 0) || k < 1e299 {
		t.Errorf("tieKey(DivergentScore) = %v", k)
	}
	if math.Signbit(tieKey(math.Copysign(0, -1))) {
		t.Error("-0 should key as 0")
	}
}

// TestConfidenceTieBreaker: two Tarantula ties of 0.5, split by confidence
// (SAT-TAR), the better-supported element first despite code order.
func TestConfidenceTieBreaker(t *testing.T) {
	elems := []Element{
		{Counts{EF: 1, NF: 1, EP: 2, NP: 2}, Location{"a.go", 1}}, // conf 0.5
		{Counts{EF: 2, NF: 0, EP: 4, NP: 0}, Location{"a.go", 2}}, // conf 1
	}
	tarantula := lookup(t, "tarantula")
	plain := Rank(elems, tarantula)
	if plain[0].Elem != 0 || plain[0].TieLast != 2 {
		t.Errorf("without tie-breaker %+v, want code order in one tie group", plain)
	}
	broken := Rank(elems, tarantula, Confidence())
	if broken[0].Elem != 1 || broken[0].TieLast != 1 || broken[1].TieFirst != 2 || broken[0].Score != 0.5 {
		t.Errorf("with confidence %+v, want element 1 first, groups split, score 0.5", broken)
	}
}

func TestRankScores(t *testing.T) {
	locs := []Location{{"a.go", 1}, {"a.go", 2}, {"a.go", 3}, {"a.go", 4}}
	ranked, err := RankScores(locs, []float64{math.NaN(), 1, math.Inf(1), math.Inf(-1)})
	if err != nil {
		t.Fatal(err)
	}
	// +Inf clamps to the top, -Inf to the bottom, where NaN ties with it.
	if got := order1(ranked); !slices.Equal(got, []int{3, 2, 1, 4}) {
		t.Errorf("ranking %v, want [3 2 1 4]", got)
	}
	if ranked[0].Score != DivergentScore || ranked[2].TieFirst != 3 || ranked[2].TieLast != 4 {
		t.Errorf("non-finite scores not clamped: %+v", ranked)
	}
	if _, err := RankScores(locs, []float64{1}); err == nil {
		t.Error("score list shorter than locations accepted")
	}
	if _, err := RankScores(locs, make([]float64, 4), []float64{1, 2}); err == nil {
		t.Error("short tie-breaker list accepted")
	}
}

func TestFaultPositionSeveralFaultsInGroup(t *testing.T) {
	// Positions 1..2 distinct, then a tie group of 4 at 3..6 holding two
	// faulty elements.
	scores := []float64{9, 8, 5, 5, 5, 5, 1}
	locs := make([]Location, len(scores))
	for i := range locs {
		locs[i] = Location{"f.go", i + 1}
	}
	ranked, err := RankScores(locs, scores)
	if err != nil {
		t.Fatal(err)
	}
	faulty := func(elem int) bool { return elem == 4 || elem == 5 || elem == 6 }
	want := map[TieMode]float64{BestCase: 3, AverageCase: 2 + 5.0/3, WorstCase: 5}
	for mode, w := range want {
		if pos, ok := FaultPosition(ranked, faulty, mode); !ok || math.Abs(pos-w) > 1e-12 {
			t.Errorf("%v: position %v, want %v", mode, pos, w)
		}
	}
	if exam, _ := Exam(ranked, faulty, WorstCase); exam != 5.0/7 {
		t.Errorf("worst EXAM %v, want 5/7", exam)
	}
	if _, ok := FaultPosition(ranked, func(int) bool { return false }, BestCase); ok {
		t.Error("found a fault in a ranking without one")
	}
	if TopN(ranked, func(int) bool { return false }, 10, BestCase) {
		t.Error("Top-N hit without a fault")
	}
	if TieMode(7).String() != "TieMode(7)" || WorstCase.String() != "worst" {
		t.Error("TieMode names")
	}
}

// TestCountMatrixLarge compares the (parallel) count with a direct one on a
// matrix large enough to be split between workers, and checks that the
// first bad run is reported whichever worker meets it.
func TestCountMatrixLarge(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const nElems, nRuns = 300, 2000
	rng := rand.New(rand.NewPCG(3, 4))
	runs := make([]Run, nRuns)
	want := make([]Counts, nElems)
	for r := range runs {
		runs[r].Failing = rng.IntN(10) == 0
		for i := range nElems {
			hit := rng.IntN(4) == 0
			if hit {
				runs[r].Hits = append(runs[r].Hits, int32(i))
			}
			switch {
			case runs[r].Failing && hit:
				want[i].EF++
			case runs[r].Failing:
				want[i].NF++
			case hit:
				want[i].EP++
			default:
				want[i].NP++
			}
		}
	}
	got, err := CountMatrix(nElems, runs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("parallel counts differ from direct counts")
	}
	runs[1700].Hits = []int32{nElems}
	runs[1200].Hits = []int32{3, 2}
	if _, err := CountMatrix(nElems, runs); err == nil || !strings.Contains(err.Error(), "run 1200:") {
		t.Errorf("error %v, want one naming run 1200", err)
	}
}
