package rank

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Location is an element's place in code order: file, then line. Ties in
// score are broken by it, earlier first.
type Location struct {
	File string // slash-separated path
	Line int
}

// Element is one rankable program element with its spectrum.
type Element struct {
	Counts Counts
	Loc    Location
}

// Ranked is one element's place in a ranking. Positions are 1-based.
type Ranked struct {
	Elem  int     // index of the element in the ranked input
	Score float64 // primary score (finite)
	Rank  int     // position after breaking ties by code order
	// TieFirst and TieLast are the first and last positions of the elements
	// whose scores (and tie-breaker scores) equal this one's.
	TieFirst, TieLast int
}

// Best is the element's position if it were examined first in its tie group.
func (r Ranked) Best() int { return r.TieFirst }

// Worst is its position if its whole tie group were examined first, the
// convention of BlockRank and SAT-TAR ("ties examined as a whole").
func (r Ranked) Worst() int { return r.TieLast }

// Average is its expected position under a random order of its tie group.
func (r Ranked) Average() float64 { return float64(r.TieFirst+r.TieLast) / 2 }

// TieSize is the number of elements in its tie group.
func (r Ranked) TieSize() int { return r.TieLast - r.TieFirst + 1 }

// tieBits is the number of significant bits scores are rounded to before
// comparison: 40 bits, about 12 significant decimal digits. Scores that
// differ only by floating-point noise (the same ratio computed along two
// paths) thus tie, and tie groups are equivalence classes, which a
// tolerance comparison would not give.
const tieBits = 40

// tieKey rounds a finite score to tieBits significant bits.
func tieKey(x float64) float64 {
	if x == 0 {
		return 0 // also folds -0 into 0
	}
	frac, exp := math.Frexp(x)
	const scale = 1 << tieBits
	return math.Ldexp(math.Round(frac*scale)/scale, exp)
}

// Rank orders elements by descending score under f (nil means Default),
// then by each non-nil tie-breaker's score descending (for example
// Confidence), then by code order, then by input index. Elements tie when f
// and every tie-breaker give equal scores after rounding to about 12
// significant digits; the tie group of each element is reported.
func Rank(elems []Element, f Formula, tieBreakers ...Formula) []Ranked {
	if f == nil {
		f = Default()
	}
	formulas := []Formula{f}
	for _, g := range tieBreakers {
		if g != nil {
			formulas = append(formulas, g)
		}
	}
	scores := make([][]float64, len(formulas))
	for k, g := range formulas {
		s := make([]float64, len(elems))
		for i := range elems {
			s[i] = g.Score(elems[i].Counts)
		}
		scores[k] = s
	}
	return order(len(elems), func(i int) Location { return elems[i].Loc }, scores)
}

// RankScores ranks precomputed scores, such as a propagation-based score
// that is not a function of the four counts, with the same ordering and tie
// rules as Rank: locs[i] is element i's location, scores[i] its score, and
// each tieBreakers slice gives a secondary score per element.
func RankScores(locs []Location, scores []float64, tieBreakers ...[]float64) ([]Ranked, error) {
	all := append([][]float64{scores}, tieBreakers...)
	for k, s := range all {
		if len(s) != len(locs) {
			return nil, fmt.Errorf("rank scores: score list %d has %d entries for %d elements", k, len(s), len(locs))
		}
	}
	return order(len(locs), func(i int) Location { return locs[i] }, all), nil
}

// item is one element as the sort sees it: all-numeric keys, so the
// comparison of the common case touches no strings and no other slice.
type item struct {
	key  float64 // rounded primary score
	file int32   // rank of the element's file among the distinct files
	elem int32   // input index
	line int
}

// order sorts n elements by scores[0], scores[1], ... descending, then by
// location, then index, and assigns positions and tie groups.
func order(n int, loc func(int) Location, scores [][]float64) []Ranked {
	primary := make([]float64, n)
	for i, x := range scores[0] {
		primary[i] = finite(x)
	}
	// Tie-breaker keys, consulted only when primary keys are equal.
	secondary := make([][]float64, len(scores)-1)
	for k, s := range scores[1:] {
		secondary[k] = make([]float64, n)
		for i, x := range s {
			secondary[k][i] = tieKey(finite(x))
		}
	}
	fileRank := rankFiles(n, loc)
	items := make([]item, n)
	for i := range items {
		l := loc(i)
		items[i] = item{key: tieKey(primary[i]), file: fileRank[l.File], elem: int32(i), line: l.Line}
	}
	// Keys are finite, so plain comparisons replace cmp.Compare's NaN care.
	descending := func(x, y float64) int {
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	}
	tied := func(a, b item) int {
		if c := descending(a.key, b.key); c != 0 {
			return c
		}
		for _, key := range secondary {
			if c := descending(key[a.elem], key[b.elem]); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := tied(a, b); c != 0 {
			return c
		}
		if c := cmp.Compare(a.file, b.file); c != 0 {
			return c
		}
		if c := cmp.Compare(a.line, b.line); c != 0 {
			return c
		}
		return cmp.Compare(a.elem, b.elem)
	})
	ranked := make([]Ranked, n)
	for first := 0; first < n; {
		last := first
		for last+1 < n && tied(items[first], items[last+1]) == 0 {
			last++
		}
		for p := first; p <= last; p++ {
			e := int(items[p].elem)
			ranked[p] = Ranked{Elem: e, Score: primary[e], Rank: p + 1, TieFirst: first + 1, TieLast: last + 1}
		}
		first = last + 1
	}
	return ranked
}

// rankFiles numbers the distinct files in lexical order, so that the sort
// compares small integers instead of paths.
func rankFiles(n int, loc func(int) Location) map[string]int32 {
	ranks := make(map[string]int32)
	var files []string
	for i := range n {
		if f := loc(i).File; i == 0 || f != loc(i-1).File {
			if _, seen := ranks[f]; !seen {
				ranks[f] = 0
				files = append(files, f)
			}
		}
	}
	slices.Sort(files)
	for r, f := range files {
		ranks[f] = int32(r)
	}
	return ranks
}
