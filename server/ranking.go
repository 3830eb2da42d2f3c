package server

import (
	"context"
	"slices"

	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
)

// methodRanking is the custom request returning the ranked list, for an
// editor's tree view.
const methodRanking = "faultline/ranking"

type rankingParams struct {
	URI string `json:"uri"` // restrict to the module of this file; "" for all
}

type rankingResult struct {
	Formula string `json:"formula"`
	// Order is the order that produced the ranking: "formula", "combined"
	// once verified angelic fixes order it, or "learned" (Model names the
	// model).
	Order  string        `json:"order"`
	Model  string        `json:"model,omitempty"`
	Failed int           `json:"failed"`
	Passed int           `json:"passed"`
	Lines  []rankingLine `json:"lines"`
}

// rankingLine carries the fields of `faultline rank -json` plus the URI.
// Line is where the line is now in the buffer (1-based); lines edited since
// the tests ran are left out.
type rankingLine struct {
	URI   string  `json:"uri"`
	File  string  `json:"file"`
	Line  int     `json:"line"`
	Score float64 `json:"score"`
	Rank  int     `json:"rank"`
	Tie   [2]int  `json:"tie"`
	EF    int     `json:"ef"`
	EP    int     `json:"ep"`
	NF    int     `json:"nf"`
	NP    int     `json:"np"`
	Fixes int     `json:"fixes,omitempty"` // analysed failing tests a verified angelic value here makes pass
	// Because is the evidence that weighed most under the learned order,
	// as in faultline rank -json; Why says in a sentence why the line
	// stands where it does, as the hover does.
	Because []localize.Reason `json:"because,omitempty"`
	Why     string            `json:"why"`
}

func ranking(ctx context.Context, s *Server, p *rankingParams) (*rankingResult, error) {
	views := s.allViews()
	if p.URI != "" {
		path, ok := folderPath(uri.URI(p.URI))
		v := s.viewOf(path)
		if !ok || v == nil {
			return nil, errorf("%s: %s is not in a module of the workspace", methodRanking, p.URI)
		}
		views = []*view{v}
	}
	return rankingOf(views, s), nil
}

// rankingOf lists the lines the failing tests run, best first, across the
// given views.
func rankingOf(views []*view, s *Server) *rankingResult {
	res := &rankingResult{Formula: s.currentSettings().Formula, Order: localize.OrderFormula, Lines: []rankingLine{}}
	for _, v := range views {
		snap := v.snapshot()
		if snap == nil || snap.BuildErrors != "" {
			continue
		}
		res.Formula = snap.Ranking.Formula
		// One order is asked of every view; one still waiting for its
		// analyses stands by the formula.
		if snap.Ranking.Order != localize.OrderFormula {
			res.Order, res.Model = snap.Ranking.Order, snap.Ranking.Model
		}
		res.Failed += snap.Ranking.Failed
		res.Passed += snap.Ranking.Passed
		if snap.Ranking.Failed == 0 {
			continue
		}
		for i, l := range snap.Ranking.Lines {
			if l.EF == 0 {
				continue
			}
			f, ft, ok := s.textOf(snap, l.File)
			if !ok {
				continue
			}
			cur, ok := ft.Current(l.Line)
			if !ok {
				continue
			}
			res.Lines = append(res.Lines, rankingLine{
				URI: string(f.uri), File: l.File, Line: cur + 1, Score: l.Score, Rank: l.Rank,
				Tie: l.Tie, EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP, Fixes: l.Fixes,
				Because: l.Because, Why: snap.WhySentence(i),
			})
		}
	}
	slices.SortStableFunc(res.Lines, func(a, b rankingLine) int { return a.Rank - b.Rank })
	return res
}
