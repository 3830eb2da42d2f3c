package spectra

import (
	"fmt"
	"slices"
	"sort"

	"github.com/faultline-go/faultline/spectra/rank"
)

// Line is one executable source line and the blocks it belongs to. A line
// holding several blocks (if x { return y }) is executed when any of them is.
type Line struct {
	File   string
	Line   int
	Blocks []int // indices into Matrix.Blocks, ascending
}

// Lines returns every executable line of the matrix in code order.
func (m *Matrix) Lines() []Line {
	index := map[rank.Location]int{}
	var lines []Line
	for bi, b := range m.Blocks {
		for _, l := range b.Lines {
			loc := rank.Location{File: b.File, Line: l}
			i, ok := index[loc]
			if !ok {
				i = len(lines)
				index[loc] = i
				lines = append(lines, Line{File: b.File, Line: l})
			}
			lines[i].Blocks = append(lines[i].Blocks, bi)
		}
	}
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].File != lines[j].File {
			return lines[i].File < lines[j].File
		}
		return lines[i].Line < lines[j].Line
	})
	return lines
}

// LineRuns returns, for each counted test, the lines it executed as
// indices into lines, together with whether it failed.
func (m *Matrix) LineRuns(lines []Line) []rank.Run {
	linesOfBlock := make([][]int32, len(m.Blocks))
	for li, l := range lines {
		for _, b := range l.Blocks {
			linesOfBlock[b] = append(linesOfBlock[b], int32(li))
		}
	}
	stamp := make([]int, len(lines))
	var runs []rank.Run
	for ti, t := range m.Tests {
		if !t.Verdict.Counted() {
			continue
		}
		run := rank.Run{Failing: t.Verdict.Failing()}
		for _, b := range t.Hits {
			for _, li := range linesOfBlock[b] {
				if stamp[li] != ti+1 {
					stamp[li] = ti + 1
					run.Hits = append(run.Hits, li)
				}
			}
		}
		sort.Slice(run.Hits, func(i, j int) bool { return run.Hits[i] < run.Hits[j] })
		runs = append(runs, run)
	}
	return runs
}

// Executing returns the counted tests (indices into m.Tests) that execute
// the line, failing and passing apart.
func (m *Matrix) Executing(file string, line int) (failing, passing []int) {
	// A slice, not a map: a hover asks this of every test's every hit.
	var blocks []bool
	for bi, b := range m.Blocks {
		if b.File == file && slices.Contains(b.Lines, line) {
			if blocks == nil {
				blocks = make([]bool, len(m.Blocks))
			}
			blocks[bi] = true
		}
	}
	if blocks == nil {
		return nil, nil
	}
	for ti, t := range m.Tests {
		if !t.Verdict.Counted() {
			continue
		}
		for _, h := range t.Hits {
			if h >= 0 && h < len(blocks) && blocks[h] {
				if t.Verdict.Failing() {
					failing = append(failing, ti)
				} else {
					passing = append(passing, ti)
				}
				break
			}
		}
	}
	return failing, passing
}

// Ranking is the suspiciousness ranking of a matrix's executed lines. Its
// JSON form is the documented output of faultline rank -json.
type Ranking struct {
	Formula string `json:"formula"`
	// Order is how the lines are ordered: "formula" (by score alone),
	// "combined" (lines hosting verified angelic fixes for more failing
	// tests first, then by score) or "learned" (by a learned model of all
	// the evidence, Model naming it).
	Order  string       `json:"order"`
	Model  string       `json:"model,omitempty"` // the learned order's model
	Failed int          `json:"failed"`          // counted failing tests
	Passed int          `json:"passed"`          // passing tests
	Lines  []RankedLine `json:"lines"`
	// BlockRank describes the solve of a BlockRank ranking.
	BlockRank *BlockRankSummary `json:"blockrank,omitempty"`
}

// Orders of a Ranking's lines.
const (
	OrderFormula  = "formula"
	OrderCombined = "combined"
	// OrderLearned ranks by a model learned from every technique's
	// evidence (each line's Evidence and Because say what it weighed).
	OrderLearned = "learned"
)

// RankReport is the documented output of faultline rank -json: a ranking
// and what explains an empty one.
type RankReport struct {
	Ranking
	BuildErrors map[string]string `json:"buildErrors,omitempty"` // compiler message by package
	Message     string            `json:"message,omitempty"`     // why there is nothing to rank
}

// RankedLine is one line's place in a ranking.
type RankedLine struct {
	File  string  `json:"file"` // relative to the module root, slash-separated
	Line  int     `json:"line"`
	Score float64 `json:"score"`
	Rank  int     `json:"rank"` // 1-based, ties broken by code order
	Tie   [2]int  `json:"tie"`  // first and last rank of the lines with the same score
	EF    int     `json:"ef"`
	EP    int     `json:"ep"`
	NF    int     `json:"nf"`
	NP    int     `json:"np"`
	Block int     `json:"block"` // the line's first basic block: lines of one block always tie
	// OrderScore is the line's score under the ranking's Order, the number
	// that order sorts by, so it falls as Rank grows: Score under the
	// formula order; the model's weighted evidence sum under the learned
	// order (nil beyond the model's window, where the formula orders the
	// lines); under the combined order the failing tests a verified fix on
	// the line makes pass plus a fraction below 1 that falls with the
	// line's place under the formula. Set by the localization service.
	OrderScore *float64 `json:"orderScore,omitempty"`
	// Fixes counts the analysed failing tests for which this line hosts a
	// verified single-location angelic fix; set by the combined and the
	// learned orders.
	Fixes int `json:"fixes,omitempty"`
	// BlockRank explains the score of a BlockRank ranking.
	BlockRank *BlockRankLine `json:"blockrank,omitempty"`
	// Evidence holds what every technique says of the line, one named
	// number per technique's column (zeros left out); set by the
	// localization service.
	Evidence map[string]float64 `json:"evidence,omitempty"`
	// Because names the evidence that put the line where it is, set with
	// Evidence: under a learned order the largest contributions to its
	// score, strongest first; under the combined order the searches that
	// found the fixes it hosts, then the formula's rank; under the formula
	// alone, the formula's rank.
	Because []Reason `json:"because,omitempty"`
	// SatTar explains the score of a SAT-TAR ranking.
	SatTar *SatTarLine `json:"sattar,omitempty"`
}

// Reason is one piece of evidence's part in a line's place: its value on
// the line times the weight a learned order gives it (a rule's reasons
// contribute their value).
type Reason struct {
	Evidence     string  `json:"evidence"`
	Value        float64 `json:"value"`
	Contribution float64 `json:"contribution"`
}

// RankLines ranks every line executed by a counted test under f, most
// suspicious first.
func RankLines(m *Matrix, f rank.Formula) (*Ranking, error) {
	if f == nil {
		f = rank.Default()
	}
	lines := m.Lines()
	runs := m.LineRuns(lines)
	counts, err := rank.CountMatrix(len(lines), runs)
	if err != nil {
		return nil, fmt.Errorf("counting spectra: %w", err)
	}
	r := &Ranking{Formula: f.Name(), Order: OrderFormula, Lines: []RankedLine{}}
	for _, run := range runs {
		if run.Failing {
			r.Failed++
		} else {
			r.Passed++
		}
	}
	var elems []rank.Element
	var which []int
	for i, c := range counts {
		if c.EF+c.EP == 0 {
			continue // never executed: no evidence either way
		}
		elems = append(elems, rank.Element{Counts: c, Loc: rank.Location{File: lines[i].File, Line: lines[i].Line}})
		which = append(which, i)
	}
	for _, rk := range rank.Rank(elems, f) {
		l := lines[which[rk.Elem]]
		c := elems[rk.Elem].Counts
		r.Lines = append(r.Lines, RankedLine{
			File: l.File, Line: l.Line, Score: rk.Score, Rank: rk.Rank, Tie: [2]int{rk.TieFirst, rk.TieLast},
			EF: c.EF, EP: c.EP, NF: c.NF, NP: c.NP, Block: l.Blocks[0],
		})
	}
	return r, nil
}
