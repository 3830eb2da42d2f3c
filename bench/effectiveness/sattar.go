package main

import (
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra/rank"
)

// satTarOrder is the name SAT-TAR's order is scored under: faultline's
// ranking with -formula sattar (Tarantula plus the bonus of the failing
// tests' unsat cores, confidence breaking ties), and with the angelic
// fixes of the main run first.
const satTarOrder = localize.SatTarName

// SatTarOrders are the names ScoreSatTar adds, in report order.
func SatTarOrders(angelic bool) []string {
	if angelic {
		return []string{satTarOrder, satTarOrder + combinedSuffix}
	}
	return []string{satTarOrder}
}

// ScoreSatTar adds SAT-TAR's order to s: st is faultline's ranking by
// SAT-TAR of the same collection as rep, whose fixes (when it ran the
// angelic analysis) give the combined order.
func ScoreSatTar(s *Scored, rep, st *RankReport, fault Fault) {
	if st == nil || st.Formula != localize.SatTarName {
		return
	}
	n := len(st.Lines)
	locs := make([]rank.Location, n)
	scores := make([]float64, n)
	confs := make([]float64, n)
	for i, l := range st.Lines {
		locs[i] = rank.Location{File: l.File, Line: l.Line}
		scores[i] = l.Score
		if l.SatTar != nil {
			confs[i] = l.SatTar.Confidence
		}
	}
	isFaulty := func(i int) bool { return fault.holds(locs[i].File, locs[i].Line) }
	if ranked, err := rank.RankScores(locs, scores, confs); err == nil {
		s.ByFormula[satTarOrder] = locate(ranked, isFaulty)
	}
	if rep.Order != localize.OrderCombined {
		return
	}
	fixesAt := map[rank.Location]float64{}
	for _, l := range rep.Lines {
		fixesAt[rank.Location{File: l.File, Line: l.Line}] = float64(l.Fixes)
	}
	fixes := make([]float64, n)
	for i := range fixes {
		fixes[i] = fixesAt[locs[i]]
	}
	if ranked, err := rank.RankScores(locs, fixes, scores, confs); err == nil {
		s.ByFormula[satTarOrder+combinedSuffix] = locate(ranked, isFaulty)
	}
}
