package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// Diagnosis: which faults a variant's EXAM comes from, and why, and which
// evidence put other lines ahead of a faulty line Ochiai ranked higher.

// faultClass says why a fault sits far down an order.
func faultClass(c *scoredCase, pos, ochiaiPos float64, best int) string {
	switch {
	case pos == 0:
		return "never run"
	case c.Report.Lines[best].EF == 0:
		return "not run by a failing test"
	case pos > ochiaiPos+0.5:
		return "pushed down"
	case tieSize(c, best) > 20:
		return "tied (>20)"
	}
	return "low score"
}

// tieSize is the size of line i's tie group under Ochiai.
func tieSize(c *scoredCase, i int) int {
	base, _ := learnedInput(c)
	t := base.Lines[i].Tie
	return t[1] - t[0] + 1
}

// bestFaulty is the index of the case's faulty line the order meets first
// (-1 when none is ranked).
func bestFaulty(c *scoredCase, ties [][2]int) int {
	best := -1
	for i, l := range c.Report.Lines {
		if c.Faulty[lineKey{l.File, l.Line}] && (best < 0 || ties[i][0] < ties[best][0]) {
			best = i
		}
	}
	return best
}

// writeDiagnosis writes, for the first variant: the n faults contributing
// most to its mean EXAM with their class, the EXAM of each class, and each
// fault it ranks worse than Ochiai with the evidence that pulled the lines
// passing it ahead.
func writeDiagnosis(w io.Writer, cases []*scoredCase, v variant, mOf func(*scoredCase) *localize.Model, n int) error {
	type row struct {
		c                *scoredCase
		pos, ochiai, tar float64
		lines            int // in the variant's whole ranking
		best             int
		share, equal     float64
		class            string
		ties             [][2]int
		m                *localize.Model
	}
	perGroup := map[string]int{}
	var rows []row
	ochiaiOrder := orders(nil)[0]
	tarantulaOrder := orders(nil)[3]
	for _, c := range cases {
		if c.Report == nil || c.Seeded {
			continue
		}
		perGroup[c.Group]++
		m := mOf(c)
		ties, err := learnedTies(c, m)
		if err != nil {
			return err
		}
		oTies, _ := ochiaiOrder.rank(c)
		tTies, _ := tarantulaOrder.rank(c)
		pos, lines := wholePosition(c, m)
		r := row{c: c, pos: pos, lines: lines, ochiai: faultPosition(c, oTies), tar: faultPosition(c, tTies), ties: ties, m: m}
		r.best = bestFaulty(c, ties)
		r.share = 1
		if r.pos > 0 {
			r.share = r.pos / float64(r.lines)
		}
		if r.best >= 0 {
			r.class = faultClass(c, r.pos, r.ochiai, r.best)
		} else {
			r.class = "never run"
		}
		rows = append(rows, r)
	}
	total, groups := 0.0, float64(len(perGroup))
	for i := range rows {
		total += rows[i].share
		rows[i].equal = rows[i].share / float64(perGroup[rows[i].c.Group]) / groups
	}
	mean := total / float64(len(rows))
	fmt.Fprintf(w, "\n## Where %s's EXAM comes from (%d real faults, mean EXAM %.4f)\n\n", v, len(rows), mean)
	byClass := map[string][2]float64{}
	countClass := map[string]int{}
	for _, r := range rows {
		x := byClass[r.class]
		byClass[r.class] = [2]float64{x[0] + r.share/float64(len(rows)), x[1] + r.equal}
		countClass[r.class]++
	}
	fmt.Fprintf(w, "| class | faults | of mean EXAM | of projects-equal EXAM |\n|---|---|---|---|\n")
	for _, k := range slices.Sorted(maps.Keys(byClass)) {
		fmt.Fprintf(w, "| %s | %d | %.4f | %.4f |\n", k, countClass[k], byClass[k][0], byClass[k][1])
	}
	slices.SortFunc(rows, func(a, b row) int {
		if a.share != b.share {
			if a.share > b.share {
				return -1
			}
			return 1
		}
		return strings.Compare(a.c.ID, b.c.ID)
	})
	fmt.Fprintf(w, "\n| fault | lines | position | Ochiai | Tarantula | EXAM | of mean | of projects-equal | faulty line: ef / ep / Ochiai tie | class |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows[:min(n, len(rows))] {
		cell := "-"
		if r.best >= 0 {
			l := r.c.Report.Lines[r.best]
			cell = fmt.Sprintf("%d / %d / %d", l.EF, l.EP, tieSize(r.c, r.best))
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f | %.3f | %.4f | %.4f | %s | %s |\n", r.c.ID, r.lines, r.pos, r.ochiai, r.tar, r.share, r.share/float64(len(rows)), r.equal, cell, r.class)
	}
	fmt.Fprintf(w, "\n## Ranked worse than Ochiai by %s\n\n| fault | position | Ochiai | lines passing it | in window | evidence pulling them ahead (weighted difference summed) |\n|---|---|---|---|---|---|\n", v)
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.c.ID, b.c.ID) })
	for _, r := range rows {
		if !(r.pos == 0 && r.ochiai != 0 || r.pos != 0 && r.ochiai != 0 && r.pos > r.ochiai) || r.best < 0 {
			continue
		}
		base, _ := learnedInput(r.c)
		f := r.c.Report.Lines[r.best]
		fo := base.Lines[r.best].Tie[0]
		pull := map[string]float64{}
		passing, inWindow := 0, 0
		for i, l := range r.c.Report.Lines {
			if r.ties[i][0] >= r.ties[r.best][0] || base.Lines[i].Tie[0] < fo {
				continue // not ahead now, or ahead under Ochiai too
			}
			passing++
			if base.Lines[i].Tie[0] <= r.m.Window {
				inWindow++
			}
			for col, wt := range r.m.Weights {
				pull[col] += wt * (l.Evidence[col] - f.Evidence[col])
			}
		}
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %d | %d | %s |\n", r.c.ID, r.pos, r.ochiai, passing, inWindow, topPulls(pull, "%s %+.1f"))
	}
	fmt.Fprintf(w, "\n## Second to fifth under %s: the lines ahead of the faulty one\n\n| fault | position | Ochiai | line ahead | its place | same function | lines away | kind | evidence pulling it ahead (weighted difference) |\n|---|---|---|---|---|---|---|---|---|\n", v)
	for _, r := range rows {
		if r.best < 0 || r.pos <= 1 || r.pos > 5 {
			continue
		}
		first := r.best // the faulty line the variant places first
		for i, l := range r.c.Report.Lines {
			if r.c.Faulty[lineKey{l.File, l.Line}] && r.ties[i][0] < r.ties[first][0] {
				first = i
			}
		}
		f := r.c.Report.Lines[first]
		for i, l := range r.c.Report.Lines {
			if r.ties[i][0] >= r.ties[first][0] || float64(r.ties[i][0]) >= r.pos {
				continue // not ahead (the faulty line may be one the report leaves out: a declaration)
			}
			same := "-"
			if r.c.Funcs != nil {
				same = strconv.FormatBool(r.c.Funcs(l.File, l.Line) == r.c.Funcs(f.File, f.Line))
			}
			away := "other file"
			if l.File == f.File {
				away = strconv.Itoa(l.Line - f.Line)
			}
			var kinds []string
			for col, v := range l.Evidence {
				if k, ok := strings.CutPrefix(col, "static.kind."); ok && v > 0 {
					kinds = append(kinds, k)
				}
			}
			slices.Sort(kinds)
			kind := strings.Join(kinds, "+")
			fmt.Fprintf(w, "| %s | %.1f | %.1f | %s:%d | %d | %s | %s | %s | %s |\n", r.c.ID, r.pos, r.ochiai, l.File, l.Line, r.ties[i][0], same, away, kind, pulling(r.m, l, f))
		}
	}
	return nil
}

// pulling names the three columns whose weighted difference puts line a
// most ahead of line b under m.
func pulling(m *localize.Model, a, b localize.RankedLine) string {
	pull := map[string]float64{}
	for col, wt := range m.Weights {
		pull[col] = wt * (a.Evidence[col] - b.Evidence[col])
	}
	return topPulls(pull, "%s %+.2f")
}

// topPulls spells the three columns that pull most (positive values
// only, the largest first), each with format (column, value).
func topPulls(pull map[string]float64, format string) string {
	cols := slices.SortedFunc(maps.Keys(pull), func(x, y string) int {
		if pull[x] != pull[y] {
			if pull[x] > pull[y] {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	var why []string
	for _, col := range cols[:min(3, len(cols))] {
		if pull[col] > 0 {
			why = append(why, fmt.Sprintf(format, col, pull[col]))
		}
	}
	return strings.Join(why, ", ")
}

// wholePosition is the fault's position under m's whole ranking, which
// may hold lines the report does not (declarations).
func wholePosition(c *scoredCase, m *localize.Model) (pos float64, lines int) {
	r, err := learnedRanking(c, m)
	if err != nil {
		return 0, len(c.Report.Lines)
	}
	// The line position only: no function list to rank.
	o, _ := linesOutcome(c, r.Lines, func(*scoredCase, []localize.RankedLine) ([]localize.RankedFunction, error) { return nil, nil })
	return o.pos, len(r.Lines)
}
