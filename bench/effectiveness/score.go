package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Fault says which ranked lines are the fault: lines of one file.
type Fault struct {
	File  string `json:"file"`
	Lines []int  `json:"lines"`
}

func (f Fault) holds(file string, line int) bool {
	return file == f.File && slices.Contains(f.Lines, line)
}

// tieModes are the three ways of examining a tie group, in report order.
var tieModes = [3]rank.TieMode{rank.BestCase, rank.AverageCase, rank.WorstCase}

// FormulaScore is where one formula puts the fault in one ranking.
type FormulaScore struct {
	Found bool       `json:"found"` // the fault is among the ranked lines
	Pos   [3]float64 `json:"pos"`   // 1-based position: best, average, worst over ties
	Exam  [3]float64 `json:"exam"`  // Pos / number of ranked lines; 1 when not found
}

// Scored is the evaluation of one faultline ranking against a known fault.
type Scored struct {
	Lines int `json:"lines"` // ranked (executed) lines
	// FaultExecutedByFailing is false when no failing test executes the
	// faulty line, which no spectrum formula can overcome.
	FaultExecutedByFailing bool                    `json:"faultExecutedByFailing"`
	ByFormula              map[string]FormulaScore `json:"byFormula"`
	// FaultlineRank is the faulty line's best rank in faultline's own
	// ordering (0 if absent), a cross-check of the recomputed one.
	FaultlineRank int `json:"faultlineRank"`
	// FaultFixes is the most failing tests for which a faulty line hosts a
	// verified single-location angelic fix (combined rankings only).
	FaultFixes int `json:"faultFixes"`
	// FaultFoundBy says how the fixes on a faulty line were found: "formula",
	// "value replacement", "predicate switching".
	FaultFoundBy []string `json:"faultFoundBy,omitempty"`
}

// Score ranks the report's lines under every formula, recomputing each
// score from the four counts, and locates the fault.
func Score(rep *RankReport, fault Fault, formulas []rank.Formula) Scored {
	elems := make([]rank.Element, len(rep.Lines))
	s := Scored{Lines: len(rep.Lines), ByFormula: make(map[string]FormulaScore, len(formulas))}
	for i, l := range rep.Lines {
		elems[i] = rank.Element{
			Counts: rank.Counts{EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP},
			Loc:    rank.Location{File: l.File, Line: l.Line},
		}
		if fault.holds(l.File, l.Line) {
			if l.EF > 0 {
				s.FaultExecutedByFailing = true
			}
			if s.FaultlineRank == 0 || l.Rank < s.FaultlineRank {
				s.FaultlineRank = l.Rank
			}
			s.FaultFixes = max(s.FaultFixes, l.Fixes)
		}
	}
	if rep.Angelic != nil {
		for _, f := range rep.Angelic.Fixes {
			hosts := false
			for n := f.Line; n <= max(f.Line, f.EndLine); n++ {
				hosts = hosts || fault.holds(f.File, n)
			}
			by := map[string]string{"replacement": "value replacement", "switch": "predicate switching"}[f.Found]
			by = cmp.Or(by, "formula")
			if hosts && !slices.Contains(s.FaultFoundBy, by) {
				s.FaultFoundBy = append(s.FaultFoundBy, by)
			}
		}
		slices.Sort(s.FaultFoundBy)
	}
	isFaulty := func(i int) bool { return fault.holds(elems[i].Loc.File, elems[i].Loc.Line) }
	// A combined ranking (faultline's default) carries each line's verified
	// angelic fixes: rescore it as faultline orders it, fixes first and the
	// formula within, for the formulas the combination is reported with.
	var fixes []float64
	var locs []rank.Location
	if rep.Order == localize.OrderCombined {
		fixes = make([]float64, len(rep.Lines))
		for i, l := range rep.Lines {
			fixes[i] = float64(l.Fixes)
			locs = append(locs, elems[i].Loc)
		}
	}
	for _, f := range formulas {
		ranked := rank.Rank(elems, f)
		s.ByFormula[f.Name()] = locate(ranked, isFaulty)
		if fixes == nil || !combinedWith[f.Name()] {
			continue
		}
		scores := make([]float64, len(elems))
		for i := range elems {
			scores[i] = f.Score(elems[i].Counts)
		}
		if combined, err := rank.RankScores(locs, fixes, scores); err == nil {
			s.ByFormula[f.Name()+combinedSuffix] = locate(combined, isFaulty)
		}
	}
	return s
}

// combinedSuffix names a formula combined with the angelic fixes.
const combinedSuffix = "+angelic"

// combinedWith are the formulas whose combination with the angelic fixes
// is scored: faultline's default and the best-scoring ones.
var combinedWith = map[string]bool{"ochiai": true, "op2": true, "dstar2": true}

// topNs are the cut-offs reported as Top-N.
var topNs = [4]int{1, 3, 5, 10}

// examCuts are the shares of the code the BlockRank paper reports the
// faults found within (its Table II).
var examCuts = [4]float64{0.05, 0.10, 0.15, 0.20}

// Summary aggregates one formula over a set of scored faults.
type Summary struct {
	Formula  string
	Faults   int
	Top      [4][2]int  // per cut-off of topNs: faults within it in the best and the worst case
	Exam     [3]float64 // mean EXAM, best, average, worst
	NotFound int        // faults missing from the ranking (counted with EXAM 1)
	// The paper's measures, ties examined as a whole (worst case): faults
	// found within each share of examCuts of the ranked lines, and the
	// mean and standard deviation of that share (the effort).
	Within     [4]int
	EffortMean float64
	EffortStd  float64
	// Top1Expected is the number of faults ranked first when ties are
	// examined in random order.
	Top1Expected float64
}

// Summarize aggregates the scored faults per formula, best average EXAM
// first (ties by name).
func Summarize(scored []Scored, formulas []string) []Summary {
	out := make([]Summary, 0, len(formulas))
	for _, name := range formulas {
		sum := Summary{Formula: name}
		for _, s := range scored {
			fs, ok := s.ByFormula[name]
			if !ok {
				continue
			}
			sum.Faults++
			if !fs.Found {
				sum.NotFound++
			}
			for m := range tieModes {
				sum.Exam[m] += fs.Exam[m]
			}
			if fs.Found && fs.Pos[0] == 1 {
				// Pos[2] is the last position of the fault's tie group
				// less the other faulty lines in it; one faulty line is
				// the common case, where 1/size is the chance of first.
				sum.Top1Expected += 1 / (fs.Pos[2] - fs.Pos[0] + 1)
			}
			for k, cut := range examCuts {
				if fs.Found && fs.Exam[2] <= cut {
					sum.Within[k]++
				}
			}
			sum.EffortStd += fs.Exam[2] * fs.Exam[2] // the sum of squares until the mean is known
			for k, n := range topNs {
				if fs.Found && fs.Pos[0] <= float64(n) {
					sum.Top[k][0]++
				}
				if fs.Found && fs.Pos[2] <= float64(n) {
					sum.Top[k][1]++
				}
			}
		}
		if sum.Faults > 0 {
			for m := range sum.Exam {
				sum.Exam[m] /= float64(sum.Faults)
			}
			sum.EffortMean = sum.Exam[2]
			sum.EffortStd = math.Sqrt(max(0, sum.EffortStd/float64(sum.Faults)-sum.EffortMean*sum.EffortMean))
		}
		out = append(out, sum)
	}
	slices.SortStableFunc(out, func(a, b Summary) int {
		return cmp.Or(cmp.Compare(a.Exam[1], b.Exam[1]), cmp.Compare(a.Formula, b.Formula))
	})
	return out
}

// ResolveFormulas looks up formula names; an empty list means every
// registered formula plus the Opt wrapper of each bounded one.
func ResolveFormulas(names []string) ([]rank.Formula, error) {
	if len(names) == 0 {
		names = append(names, rank.Names()...)
		for _, n := range rank.Names() {
			f, err := rank.Lookup(n)
			if err != nil {
				return nil, fmt.Errorf("registered formula %q: %w", n, err)
			}
			if f.Bounded() {
				names = append(names, "opt-"+n)
			}
		}
	}
	formulas := make([]rank.Formula, 0, len(names))
	seen := make(map[string]bool)
	for _, n := range names {
		f, err := rank.Lookup(n)
		if err != nil {
			return nil, err
		}
		if !seen[f.Name()] {
			seen[f.Name()] = true
			formulas = append(formulas, f)
		}
	}
	return formulas, nil
}
