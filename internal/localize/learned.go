package localize

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/parsed"
	"github.com/faultline-go/faultline/spectra/rank"
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
	// Window bounds what the model may reorder: the lines the formula
	// ranks within its first Window positions (a tie group that starts
	// there, whole); the others follow in the formula's order. A weighted
	// sum can demote a faulty line far below where the formula had it,
	// which costs EXAM, while developers look at the first few lines
	// only. 0 reorders every line.
	Window int `json:"window,omitempty"`
	// Normalize divides each column but the formula's score by its
	// largest absolute value in the ranking before it is weighed
	// (Evidence.Scales): a call count or a distance runs to hundreds in
	// one project and to a few in another, and a weight learned over
	// both then means the same in each.
	Normalize bool `json:"normalize,omitempty"`
	// Margin, when positive, lets the model overrule the formula inside
	// the window only by whole margins: scores are counted in steps of
	// Margin, the formula ordering the lines of one step. A weighted sum
	// passes a line the formula ranked higher on small differences in
	// many weak columns; a margin keeps the formula's order there.
	Margin float64 `json:"margin,omitempty"`
	// FormulaTop, when set, adds its Bonus to the score of the lines the
	// formula ranks within its first Top positions (a tie group that
	// starts there, whole): they keep their places unless the model is
	// that much surer of another line.
	FormulaTop *FormulaTop `json:"formulaTop,omitempty"`
	// Lift names evidence columns that bring a line into the window
	// wherever the formula ranks it, when positive: a verified fix on a
	// line the formula ranks far down is still worth a developer's look.
	Lift []string `json:"lift,omitempty"`
	// Tail, when the model has a window, orders the lines below it: a
	// weight per evidence column, the formula breaking ties. Empty: the
	// formula's order. The formula's order near the top is what the
	// window protects; further down another weighing of the same counts
	// (Tarantula's, say) can meet a fault sooner.
	Tail map[string]float64 `json:"tail,omitempty"`
	// Functions, when set, reorders the model's order function by
	// function below its kept top (FunctionFirst): a fault far down
	// often shares its function with a line ranked high.
	Functions *FunctionFirstOptions `json:"functions,omitempty"`
	// Declarations, when set, places the package-level declarations the
	// ranked lines read after their first reader (WithDeclarations): no
	// spectrum holds them, so without it a fault in one is never met.
	Declarations *DeclarationOptions `json:"declarations,omitempty"`
	// Unexecuted, when set, places the code lines no test runs next to
	// the executed lines of their function (WithUnexecuted): headers,
	// closing braces and the places omission faults are fixed in.
	Unexecuted *UnexecutedOptions `json:"unexecuted,omitempty"`
	// FunctionModel, when set, orders the functions a ranking lists
	// (RankFunctions) by their aggregated evidence rather than by their
	// best lines; the lines' order does not change.
	FunctionModel *FunctionModel `json:"functionModel,omitempty"`
	// Evaluation says how the model was trained and how it did on
	// held-out folds.
	Evaluation string `json:"evaluation"`
}

// ShippedModel returns the model in the binary, decoded once: the default
// order asks for it on every localization and snapshot. Callers must not
// change it.
var ShippedModel = sync.OnceValue(func() *Model {
	var m Model
	if err := json.Unmarshal(modelJSON, &m); err != nil || m.Weights == nil {
		bug.Reportf("the shipped model does not decode: %v", err)
		return &Model{Name: "none", Default: OrderCombined, Weights: map[string]float64{}}
	}
	return &m
})

// Score returns a line's learned score and the evidence behind it,
// largest contribution first.
func (m *Model) Score(ev *Evidence, i int) (float64, []Reason) {
	return m.score(m.names(), m.weighed(ev), ev, i)
}

// weighed is the evidence as the model weighs it: scaled when the model
// normalizes.
func (m *Model) weighed(ev *Evidence) *Evidence {
	if !m.Normalize {
		return ev
	}
	return ev.Scaled(ev.Scales())
}

// lifted says whether line i has a positive value in one of the Lift
// columns.
func (m *Model) lifted(ev *Evidence, i int) bool {
	for _, col := range m.Lift {
		if c := ev.Columns[col]; i < len(c) && c[i] > 0 {
			return true
		}
	}
	return false
}

// names are the model's columns in the order its sums take them: a sum in
// map order would differ in its last bits from line to line and call to
// call, and break ties at random.
func (m *Model) names() []string { return slices.Sorted(maps.Keys(m.Weights)) }

// score weighs the line's weighed evidence; its reasons give the
// measured values.
func (m *Model) score(names []string, weighed, measured *Evidence, i int) (float64, []Reason) {
	score := 0.0
	var why []Reason
	for _, name := range names {
		w := m.Weights[name]
		c, ok := weighed.Columns[name]
		if !ok || c[i] == 0 || w == 0 {
			continue
		}
		score += w * c[i]
		why = append(why, Reason{Evidence: name, Value: measured.Columns[name][i], Contribution: w * c[i]})
	}
	slices.SortFunc(why, func(a, b Reason) int {
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

// FormulaTop is a bonus for the formula's first lines (Model.FormulaTop).
type FormulaTop struct {
	Top   int     `json:"top"`
	Bonus float64 `json:"bonus"`
}

// DeclarationOptions says where WithDeclarations may place declarations.
type DeclarationOptions struct {
	// After is the first position they may follow: the lines above keep
	// their places.
	After int `json:"after"`
	// MaxLines, when positive, leaves out declarations of more lines: a
	// long table placed high pushes every line below it down.
	MaxLines int `json:"maxLines,omitempty"`
	// FailingReaders places only declarations read by lines a failing
	// test runs: a wrong value makes a test fail only where it is read.
	FailingReaders bool `json:"failingReaders,omitempty"`
	// Readers, when positive, places only declarations read by the
	// lines within the first Readers positions: each placed declaration
	// pushes every line below it down one place a line.
	Readers int `json:"readers,omitempty"`
}

// ModuleSource is what the orders that read the module's source go by:
// the function holding each line, the declarations each line reads and
// each file's function spans.
// Any may be nil for a model that does not use it.
type ModuleSource struct {
	Functions FunctionOf
	Reads     DeclarationReads
	Spans     FunctionSpans
}

// SourceOf reads the module's source under root as the orders ask.
func SourceOf(root string) ModuleSource {
	return ModuleSourceIn(root, parsed.New(0))
}

// Rank orders a formula ranking's lines by the model: Learned, then
// FunctionFirst, WithDeclarations and WithUnexecuted when the model says
// so.
func (m *Model) Rank(formula *Ranking, ev *Evidence, src ModuleSource) (*Ranking, error) {
	r, err := Learned(formula, ev, m)
	if err != nil {
		return r, err
	}
	if m.Functions != nil {
		if src.Functions == nil {
			return nil, fmt.Errorf("model %s orders by function and has no functions to go by", m.Name)
		}
		if r, err = FunctionFirst(r, src.Functions, *m.Functions); err != nil {
			return nil, err
		}
	}
	if m.Declarations != nil {
		if src.Reads == nil {
			return nil, fmt.Errorf("model %s places declarations and has no source to find them in", m.Name)
		}
		r = WithDeclarations(r, src.Reads, *m.Declarations)
	}
	if m.Unexecuted != nil {
		if src.Spans == nil {
			return nil, fmt.Errorf("model %s places unexecuted lines and has no source to find them in", m.Name)
		}
		r = WithUnexecuted(r, src.Spans, *m.Unexecuted)
	}
	return r, nil
}

// maxReasons is how many pieces of evidence a line's Because lists.
const maxReasons = 3

// Learned orders the lines of a formula ranking by the model's score over
// their evidence, the formula breaking ties, then code order, within the
// model's window (below it, by the model's Tail weights when it has them,
// else by the formula); each line keeps its formula score and counts, and gets
// its evidence, the reasons for its place and, within the window, the
// model's score as its OrderScore.
func Learned(formula *Ranking, ev *Evidence, m *Model) (*Ranking, error) {
	n := len(formula.Lines)
	locs := make([]rank.Location, n)
	scores := make([]float64, n)
	formulaScores := make([]float64, n)
	because := make([][]Reason, n)
	names := m.names()
	weighed := m.weighed(ev)
	for i, l := range formula.Lines {
		locs[i] = rank.Location{File: l.File, Line: l.Line}
		scores[i], because[i] = m.score(names, weighed, ev, i)
		formulaScores[i] = l.Score
		if math.IsNaN(scores[i]) {
			return nil, fmt.Errorf("model %s scores %s:%d as NaN", m.Name, l.File, l.Line)
		}
	}
	byFormula, err := rank.RankScores(locs, formulaScores)
	if err != nil {
		return nil, err
	}
	// keys are what the lines are sorted by within the window: the score,
	// in steps of the margin, plus the formula's top bonus.
	keys := slices.Clone(scores)
	for _, r := range byFormula {
		if m.Margin > 0 {
			keys[r.Elem] = math.Floor(scores[r.Elem] / m.Margin)
		}
		if m.FormulaTop != nil && r.TieFirst <= m.FormulaTop.Top {
			keys[r.Elem] += m.FormulaTop.Bonus
		}
	}
	// inWindow is 1 for the lines the model may reorder, which come first.
	inWindow := make([]float64, n)
	if m.Window > 0 {
		tail := &Model{Weights: m.Tail}
		tailNames := tail.names()
		for _, r := range byFormula {
			if r.TieFirst <= m.Window || m.lifted(ev, r.Elem) {
				inWindow[r.Elem] = 1
			} else {
				scores[r.Elem], _ = tail.score(tailNames, ev, ev, r.Elem)
				keys[r.Elem] = scores[r.Elem]
				because[r.Elem] = nil
				if math.IsNaN(scores[r.Elem]) {
					return nil, fmt.Errorf("model %s's tail scores %s:%d as NaN", m.Name, locs[r.Elem].File, locs[r.Elem].Line)
				}
			}
		}
	} else {
		for i := range inWindow {
			inWindow[i] = 1
		}
	}
	ranked, err := rank.RankScores(locs, inWindow, keys, formulaScores)
	if err != nil {
		return nil, err
	}
	out := *formula
	out.Order, out.Model = OrderLearned, m.Name
	out.Lines = make([]RankedLine, n)
	for p, r := range ranked {
		l := formula.Lines[r.Elem]
		l.Rank, l.Tie = r.Rank, [2]int{r.TieFirst, r.TieLast}
		l.OrderScore = nil
		if inWindow[r.Elem] == 1 {
			l.OrderScore = &scores[r.Elem]
		}
		l.Evidence = ev.Line(r.Elem)
		var why []Reason
		for _, b := range because[r.Elem] {
			if b.Contribution > 0 && len(why) < maxReasons {
				why = append(why, b)
			}
		}
		l.Because = why
		out.Lines[p] = l
	}
	return &out, nil
}
