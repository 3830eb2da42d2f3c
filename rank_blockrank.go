package main

import (
	"faultline/spectra"
	"faultline/spectra/blockrank"
	"faultline/spectra/rank"
)

// lineRanker orders a collected matrix's lines: by a formula of the four
// counts, or by BlockRank, which needs the edge profiles collected too.
type lineRanker struct {
	edges bool
	rank  func(*spectra.Matrix) (*spectra.Ranking, error)
}

// lookupRanker returns the ranker a -formula name asks for; mode is
// BlockRank's -blockrank-mode.
func lookupRanker(name, mode string) (lineRanker, error) {
	if spectra.IsBlockRank(name) {
		m, err := blockrank.ParseMode(mode)
		if err != nil {
			return lineRanker{}, err
		}
		return lineRanker{edges: true, rank: func(mx *spectra.Matrix) (*spectra.Ranking, error) {
			return spectra.RankBlockRank(mx, blockrank.Options{Mode: m})
		}}, nil
	}
	f, err := rank.Lookup(name)
	if err != nil {
		return lineRanker{}, err
	}
	return lineRanker{rank: func(mx *spectra.Matrix) (*spectra.Ranking, error) { return spectra.RankLines(mx, f) }}, nil
}
