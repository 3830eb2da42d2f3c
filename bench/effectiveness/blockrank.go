package main

import (
	"math"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// BlockRank orders, scored beside the formulas when faultline ranks with
// -formula blockrank: BlockRank in its full and its calibrated reading,
// each formula of blockRankPartners with BlockRank breaking its ties and
// the other way round, and each of those beneath the angelic fixes.
const (
	blockRankFull       = "blockrank"
	blockRankCalibrated = "blockrank-calibrated"
)

// blockRankPartners are the formulas BlockRank is combined with:
// faultline's default and the best formula of the earlier runs.
var blockRankPartners = []string{"ochiai", "op2"}

// tieBroken names an order by primary, ties broken by secondary.
func tieBroken(primary, secondary string) string { return primary + ">" + secondary }

// BlockRankOrders are the names ScoreBlockRank adds, in report order.
func BlockRankOrders(angelic bool) []string {
	names := []string{blockRankFull, blockRankCalibrated}
	for _, f := range blockRankPartners {
		names = append(names, tieBroken(f, blockRankFull), tieBroken(blockRankFull, f))
	}
	if !angelic {
		return names
	}
	var out []string
	for _, n := range names {
		out = append(out, n, n+combinedSuffix)
	}
	return out
}

// ScoreBlockRank adds the BlockRank orders to s: rep is faultline's
// ranking by BlockRank (full reading, combined with the angelic fixes when
// they ran), calibrated the same collection ranked in the calibrated
// reading (nil when it is missing). Lines outside every block rank last,
// as faultline ranks them.
func ScoreBlockRank(s *Scored, rep, calibrated *RankReport, fault Fault) {
	if rep.Formula != spectra.BlockRankName {
		return
	}
	n := len(rep.Lines)
	locs := make([]rank.Location, n)
	inBlock := make([]float64, n)
	full := make([]float64, n)
	for i, l := range rep.Lines {
		locs[i] = rank.Location{File: l.File, Line: l.Line}
		full[i] = math.Inf(-1)
		if l.BlockRank != nil {
			inBlock[i], full[i] = 1, l.Score
		}
	}
	var cal []float64
	if calibrated != nil {
		byLoc := map[rank.Location]float64{}
		for _, l := range calibrated.Lines {
			if l.BlockRank != nil {
				byLoc[rank.Location{File: l.File, Line: l.Line}] = l.Score
			}
		}
		cal = make([]float64, n)
		for i := range cal {
			cal[i] = math.Inf(-1)
			if v, ok := byLoc[locs[i]]; ok {
				cal[i] = v
			}
		}
	}
	var fixes []float64
	if rep.Order == localize.OrderCombined {
		fixes = make([]float64, n)
		for i, l := range rep.Lines {
			fixes[i] = float64(l.Fixes)
		}
	}
	isFaulty := func(i int) bool { return fault.holds(locs[i].File, locs[i].Line) }
	add := func(name string, keys ...[]float64) {
		if ranked, err := rank.RankScores(locs, keys[0], keys[1:]...); err == nil {
			s.ByFormula[name] = locate(ranked, isFaulty)
		}
		if fixes != nil {
			if ranked, err := rank.RankScores(locs, fixes, keys...); err == nil {
				s.ByFormula[name+combinedSuffix] = locate(ranked, isFaulty)
			}
		}
	}
	add(blockRankFull, inBlock, full)
	if cal != nil {
		add(blockRankCalibrated, inBlock, cal)
	}
	for _, name := range blockRankPartners {
		f, err := rank.Lookup(name)
		if err != nil {
			continue
		}
		scores := make([]float64, n)
		for i, l := range rep.Lines {
			scores[i] = f.Score(rank.Counts{EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP})
		}
		add(tieBroken(name, blockRankFull), scores, inBlock, full)
		add(tieBroken(blockRankFull, name), inBlock, full, scores)
	}
}

// locate finds the fault in a ranking under each tie mode.
func locate(ranked []rank.Ranked, isFaulty func(int) bool) FormulaScore {
	fs := FormulaScore{Exam: [3]float64{1, 1, 1}}
	for m, mode := range tieModes {
		if pos, ok := rank.FaultPosition(ranked, isFaulty, mode); ok {
			fs.Found = true
			fs.Pos[m] = pos
			fs.Exam[m] = pos / float64(len(ranked))
		}
	}
	return fs
}
