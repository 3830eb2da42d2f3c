package localize

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"faultline/internal/bug"
	"faultline/spectra"
	"faultline/spectra/rank"
)

// modelJSON is the learned order's model, trained by bench/realfaults
// (go run ./bench/realfaults train) and shipped in the binary.
//
//go:embed model.json
var modelJSON []byte

// Model is a learned order: a weight per evidence column, a line's score
// being the weighted sum of its evidence. Columns it has no weight for
// count for nothing, so new evidence changes nothing until it is trained.
type Model struct {
	Name string `json:"name"`
	// Default is the order faultline uses when none is asked for: learned
	// when the model won on held-out faults, else the best single
	// technique ("formula" or "combined").
	Default string             `json:"default"`
	Weights map[string]float64 `json:"weights"`
	// Head bounds what the model reorders: the lines the formula ranks
	// within the first Head places (ties included) and those hosting a
	// verified angelic fix; the other lines follow in the formula's order.
	// Zero reorders every line.
	Head int `json:"head,omitempty"`
	// Evaluation says how the model was trained and how it did on
	// held-out folds.
	Evaluation string `json:"evaluation"`
}

// ShippedModel returns the model in the binary.
func ShippedModel() *Model {
	var m Model
	if err := json.Unmarshal(modelJSON, &m); err != nil || m.Weights == nil {
		bug.Reportf("the shipped model does not decode: %v", err)
		return &Model{Name: "none", Default: spectra.OrderCombined, Weights: map[string]float64{}}
	}
	return &m
}

// Score returns a line's learned score and the evidence behind it,
// largest contribution first.
func (m *Model) Score(ev *Evidence, i int) (float64, []spectra.Reason) {
	score := 0.0
	var why []spectra.Reason
	for name, w := range m.Weights {
		c, ok := ev.Columns[name]
		if !ok || c[i] == 0 || w == 0 {
			continue
		}
		score += w * c[i]
		why = append(why, spectra.Reason{Evidence: name, Value: c[i], Contribution: w * c[i]})
	}
	slices.SortFunc(why, func(a, b spectra.Reason) int {
		if a.Contribution != b.Contribution {
			if a.Contribution > b.Contribution {
				return -1
			}
			return 1
		}
		if a.Evidence < b.Evidence {
			return -1
		}
		return 1
	})
	return score, why
}

// maxReasons is how many pieces of evidence a line's Because lists.
const maxReasons = 3

// InHead says whether the model reorders line i of a formula ranking
// (Model.Head).
func (m *Model) InHead(formula *spectra.Ranking, ev *Evidence, i int) bool {
	if m.Head <= 0 || formula.Lines[i].Tie[0] <= m.Head {
		return true
	}
	for _, name := range []string{"angelic.fix", "angelic.multi"} {
		if c, ok := ev.Columns[name]; ok && c[i] > 0 {
			return true
		}
	}
	return false
}

// Learned orders the lines of a formula ranking by the model's score over
// their evidence, the formula breaking ties, then code order (the lines
// outside the model's head after, in the formula's order); each line
// keeps its formula score and counts, and gets its evidence and the
// reasons for its place.
func Learned(formula *spectra.Ranking, ev *Evidence, m *Model) (*spectra.Ranking, error) {
	n := len(formula.Lines)
	locs := make([]rank.Location, n)
	head := make([]float64, n)
	scores := make([]float64, n)
	formulaScores := make([]float64, n)
	because := make([][]spectra.Reason, n)
	for i, l := range formula.Lines {
		locs[i] = rank.Location{File: l.File, Line: l.Line}
		formulaScores[i] = l.Score
		if !m.InHead(formula, ev, i) {
			continue
		}
		head[i] = 1
		scores[i], because[i] = m.Score(ev, i)
		if math.IsNaN(scores[i]) {
			return nil, fmt.Errorf("model %s scores %s:%d as NaN", m.Name, l.File, l.Line)
		}
	}
	ranked, err := rank.RankScores(locs, head, scores, formulaScores)
	if err != nil {
		return nil, err
	}
	out := *formula
	out.Order, out.Model = spectra.OrderLearned, m.Name
	out.Lines = make([]spectra.RankedLine, n)
	for p, r := range ranked {
		l := formula.Lines[r.Elem]
		l.Rank, l.Tie = r.Rank, [2]int{r.TieFirst, r.TieLast}
		l.Evidence = ev.Line(r.Elem)
		var why []spectra.Reason
		for _, b := range because[r.Elem] {
			if b.Contribution > 0 && len(why) < maxReasons {
				why = append(why, b)
			}
		}
		if head[r.Elem] == 0 {
			// Outside the head the formula alone placed it.
			column := "spectrum." + formula.Formula + ".rank"
			if v := l.Evidence[column]; v != 0 {
				why = []spectra.Reason{{Evidence: column, Value: v, Contribution: v}}
			}
		}
		l.Because = why
		out.Lines[p] = l
	}
	return &out, nil
}
