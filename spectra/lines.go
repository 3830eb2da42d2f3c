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
		for b := range t.Hits.All() {
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

// CountGroups returns the spectrum of each of groups groups of lines,
// where groupOf[i] is the group of lines[i] (the line itself, or its
// function), and how many counted tests failed and passed. It goes test
// by test and keeps no test's line list, so its memory is that of the
// lines and groups, not of the matrix's hits: LineRuns of a module of many
// tests holds orders of magnitude more.
func (m *Matrix) CountGroups(lines []Line, groupOf []int32, groups int) (counts []rank.Counts, failed, passed int, err error) {
	if len(groupOf) != len(lines) {
		return nil, 0, 0, fmt.Errorf("count groups: %d groups given for %d lines", len(groupOf), len(lines))
	}
	groupsOfBlock := make([][]int32, len(m.Blocks))
	for li, l := range lines {
		g := groupOf[li]
		if g < 0 || int(g) >= groups {
			return nil, 0, 0, fmt.Errorf("count groups: line %s:%d in group %d, outside [0, %d)", l.File, l.Line, g, groups)
		}
		for _, b := range l.Blocks {
			if !slices.Contains(groupsOfBlock[b], g) {
				groupsOfBlock[b] = append(groupsOfBlock[b], g)
			}
		}
	}
	ef, ep := make([]int32, groups), make([]int32, groups)
	stamp := make([]int, groups)
	for ti, t := range m.Tests {
		if !t.Verdict.Counted() {
			continue
		}
		into := ep
		if t.Verdict.Failing() {
			into = ef
			failed++
		} else {
			passed++
		}
		for b := range t.Hits.All() {
			if b < 0 || b >= len(groupsOfBlock) {
				return nil, 0, 0, fmt.Errorf("count groups: test %s hit block %d, outside [0, %d)", t.Name, b, len(groupsOfBlock))
			}
			for _, g := range groupsOfBlock[b] {
				if stamp[g] != ti+1 {
					stamp[g] = ti + 1
					into[g]++
				}
			}
		}
	}
	counts = make([]rank.Counts, groups)
	for g := range counts {
		f, p := int(ef[g]), int(ep[g])
		counts[g] = rank.Counts{EF: f, EP: p, NF: failed - f, NP: passed - p}
	}
	return counts, failed, passed, nil
}

// Executing returns the counted tests (indices into m.Tests) that execute
// the line, failing and passing apart.
func (m *Matrix) Executing(file string, line int) (failing, passing []int) {
	return m.executing(file, line, true)
}

// ExecutingFailing returns the failing tests (indices into m.Tests) that
// execute the line. A hover names only these: it reads the hits of the few
// failing tests, not of the tens of thousands passing in a large module.
func (m *Matrix) ExecutingFailing(file string, line int) []int {
	failing, _ := m.executing(file, line, false)
	return failing
}

func (m *Matrix) executing(file string, line int, withPassing bool) (failing, passing []int) {
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
		if !t.Verdict.Counted() || !withPassing && !t.Verdict.Failing() {
			continue
		}
		for h := range t.Hits.All() {
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

// Scores is a technique's ranking of a matrix's executed lines, most
// suspicious first: a formula of the four counts (RankLines) or BlockRank
// (RankBlockRank). The localization service orders and explains them.
type Scores struct {
	Formula string // the formula's or technique's name
	Failed  int    // counted failing tests
	Passed  int    // passing tests
	Lines   []LineScore
	// BlockRank describes the solve of a BlockRank ranking.
	BlockRank *BlockRankSummary
}

// LineScore is one line's score and place under a technique.
type LineScore struct {
	File  string // relative to the module root, slash-separated
	Line  int
	Score float64
	Rank  int    // 1-based, ties broken by code order
	Tie   [2]int // first and last rank of the lines with the same score
	EF    int
	EP    int
	NF    int
	NP    int
	Block int // the line's first basic block: lines of one block always tie
	// BlockRank explains the score of a BlockRank ranking.
	BlockRank *BlockRankLine
}

// RankLines ranks every line executed by a counted test under f, most
// suspicious first.
func RankLines(m *Matrix, f rank.Formula) (*Scores, error) {
	if f == nil {
		f = rank.Default()
	}
	lines := m.Lines()
	self := make([]int32, len(lines))
	for i := range self {
		self[i] = int32(i)
	}
	counts, failed, passed, err := m.CountGroups(lines, self, len(lines))
	if err != nil {
		return nil, fmt.Errorf("counting spectra: %w", err)
	}
	r := &Scores{Formula: f.Name(), Lines: []LineScore{}, Failed: failed, Passed: passed}
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
		r.Lines = append(r.Lines, LineScore{
			File: l.File, Line: l.Line, Score: rk.Score, Rank: rk.Rank, Tie: [2]int{rk.TieFirst, rk.TieLast},
			EF: c.EF, EP: c.EP, NF: c.NF, NP: c.NP, Block: l.Blocks[0],
		})
	}
	return r, nil
}
