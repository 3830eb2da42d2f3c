package rank

import "fmt"

// TieMode says how the elements of a tie group are assumed to be examined.
type TieMode int

const (
	// BestCase examines the faulty elements of a tie group first.
	BestCase TieMode = iota
	// AverageCase takes the expectation over a random order of the group.
	AverageCase
	// WorstCase examines every non-faulty element of the group first; with a
	// single faulty element that is the whole group.
	WorstCase
)

func (m TieMode) String() string {
	switch m {
	case BestCase:
		return "best"
	case AverageCase:
		return "average"
	case WorstCase:
		return "worst"
	}
	return fmt.Sprintf("TieMode(%d)", int(m))
}

// FaultPosition is the 1-based position at which a developer following the
// ranking reaches the first faulty element, isFaulty telling which input
// indices are faulty. ranked must be a whole ranking as Rank returns it. ok
// is false when no ranked element is faulty (for example, a fault no test
// executes and that was left out of the ranking).
//
// Within the first tie group holding k faulty elements out of g, starting at
// position s: best case s, worst case s+g−k, average s−1+(g+1)/(k+1).
func FaultPosition(ranked []Ranked, isFaulty func(elem int) bool, mode TieMode) (pos float64, ok bool) {
	for _, r := range ranked {
		if !isFaulty(r.Elem) {
			continue
		}
		if r.TieFirst < 1 || r.TieLast > len(ranked) || r.TieFirst > r.TieLast {
			return 0, false // not a ranking from Rank
		}
		faulty := 0
		for _, t := range ranked[r.TieFirst-1 : r.TieLast] {
			if isFaulty(t.Elem) {
				faulty++
			}
		}
		start, size := float64(r.TieFirst), float64(r.TieSize())
		switch mode {
		case WorstCase:
			return start + size - float64(faulty), true
		case AverageCase:
			return start - 1 + (size+1)/float64(faulty+1), true
		default:
			return start, true
		}
	}
	return 0, false
}

// Exam is the EXAM score: the fraction of ranked elements examined up to and
// including the first faulty one, in (0,1]. The paper-style "effectiveness"
// (non-faulty elements examined before the fault) is FaultPosition − 1.
func Exam(ranked []Ranked, isFaulty func(elem int) bool, mode TieMode) (exam float64, ok bool) {
	pos, ok := FaultPosition(ranked, isFaulty, mode)
	if !ok {
		return 0, false
	}
	return pos / float64(len(ranked)), true
}

// TopN reports whether the first faulty element is reached within the first
// n positions under the given tie mode.
func TopN(ranked []Ranked, isFaulty func(elem int) bool, n int, mode TieMode) bool {
	pos, ok := FaultPosition(ranked, isFaulty, mode)
	return ok && pos <= float64(n)
}
