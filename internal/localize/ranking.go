package localize

import (
	"github.com/faultline-go/faultline/specs"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/blockrank"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Ranking is the service's ranking of a matrix's executed lines: a
// technique's scores (Technique), ordered as Order says and explained line
// by line. Its JSON form is the documented output of faultline rank -json.
type Ranking struct {
	Formula string `json:"formula"`
	// Order is how the lines are ordered: OrderFormula (by score alone),
	// OrderCombined (lines hosting verified angelic fixes for more failing
	// tests first, then by score) or OrderLearned (by a learned model of
	// all the evidence, Model naming it).
	Order  string       `json:"order"`
	Model  string       `json:"model,omitempty"` // the learned order's model
	Failed int          `json:"failed"`          // counted failing tests
	Passed int          `json:"passed"`          // passing tests
	Lines  []RankedLine `json:"lines"`
	// BlockRank describes the solve of a BlockRank ranking.
	BlockRank *BlockRankSummary `json:"blockrank,omitempty"`
}

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
	// line's place under the formula.
	OrderScore *float64 `json:"orderScore,omitempty"`
	// Fixes counts the analysed failing tests for which this line hosts a
	// verified single-location angelic fix; set by the combined and the
	// learned orders.
	Fixes int `json:"fixes,omitempty"`
	// BlockRank explains the score of a BlockRank ranking.
	BlockRank *BlockRankLine `json:"blockrank,omitempty"`
	// Evidence holds what every technique says of the line, one named
	// number per technique's column (zeros left out).
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

// The explanations the techniques give of a line's score, as a Ranking
// carries them.
type (
	// BlockRankLine explains one line's BlockRank score.
	BlockRankLine = spectra.BlockRankLine
	// BlockRankSummary is what a BlockRank ranking says about its solve.
	BlockRankSummary = spectra.BlockRankSummary
	// SatTarLine explains one line's score in SAT-TAR's order.
	SatTarLine = specs.SatTarLine
)

// rankingOf is the ranking of a technique's scores in their own order.
func rankingOf(s *spectra.Scores) *Ranking {
	r := &Ranking{Formula: s.Formula, Order: OrderFormula, Failed: s.Failed, Passed: s.Passed, BlockRank: s.BlockRank, Lines: make([]RankedLine, len(s.Lines))}
	for i, l := range s.Lines {
		r.Lines[i] = RankedLine{File: l.File, Line: l.Line, Score: l.Score, Rank: l.Rank, Tie: l.Tie, EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP, Block: l.Block, BlockRank: l.BlockRank}
	}
	return r
}

// satTarRanking is SAT-TAR's ranking, each line with its explanation.
func satTarRanking(st *specs.Ranking) *Ranking {
	r := rankingOf(st.Scores)
	for i := range r.Lines {
		r.Lines[i].SatTar = st.Lines[i]
	}
	return r
}

// RankFormula ranks every line executed by a counted test under f (nil:
// the default formula), most suspicious first, in the formula's order.
func RankFormula(m *spectra.Matrix, f rank.Formula) (*Ranking, error) {
	s, err := spectra.RankLines(m, f)
	if err != nil {
		return nil, err
	}
	return rankingOf(s), nil
}

// RankBlockRank ranks every line executed by a counted test by BlockRank;
// the matrix must carry edge profiles (spectra.ErrNoFlow when not).
func RankBlockRank(m *spectra.Matrix, opts blockrank.Options) (*Ranking, error) {
	s, err := spectra.RankBlockRank(m, opts)
	if err != nil {
		return nil, err
	}
	return rankingOf(s), nil
}
