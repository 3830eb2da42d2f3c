package snapshot

import (
	"sync"

	"github.com/faultline-go/faultline/internal/localize"
)

// ordered puts the lines of formula, the ranking of m under the formula
// setting, in the order the settings ask for, made by the localization
// service as faultline rank -order makes it (localize.InOrder): the
// combined order once results are in, the formula's alone, or the learned
// order over every technique's evidence. angelic and results are the
// analyses in view (nil: none yet), cores SAT-TAR's, mutation the
// mutants' (nil: none). The learned order's
// evidence is kept in evc under key, so that a new analysis or a change
// of order gathers only what depends on the analyses again.
func ordered(formula *localize.Ranking, m *localize.Matrix, angelic *localize.Angelic, results []localize.TestResult, cores *localize.SatTar, mutation *localize.Mutation, st Choices, evc *EvidenceCache, key evidenceKey) (*localize.Ranking, error) {
	loc := &localize.Localization{Matrix: m, Formula: formula, Base: formula, SatTar: cores, Mutation: mutation}
	if angelic != nil {
		a := *angelic
		a.Results = results
		loc.Angelic = &a
	}
	order := st.ShownOrder
	if t, err := localize.ParseTechnique(st.Formula); err == nil && order == localize.OrderLearned && (t.BlockRank() || t.SatTar()) {
		// As in faultline rank: the evidence is gathered over the default
		// formula's ranking, which carries every line's counts; BlockRank's
		// and SAT-TAR's verdicts are columns of it.
		base, err := localize.RankFormula(m, nil)
		if err != nil {
			return nil, err
		}
		loc.Base = base
	}
	out, err := localize.InOrder(loc, order, evc.get(key))
	if err != nil {
		return nil, err
	}
	if out.Evidence != nil {
		evc.put(key, out.Evidence)
	}
	return out.Ranking, nil
}

// evidenceKey names the lines one gathering of evidence is over: the
// view's matrix (before it is localized to a test), the focus, the formula
// setting (the base ranking's order of lines), SAT-TAR's cores and the
// mutants' results, whose columns are gathered once per key.
type evidenceKey struct {
	matrix   *localize.Matrix
	focus    string
	formula  string
	cores    *localize.SatTar
	mutation *localize.Mutation
}

// EvidenceCache keeps a view's evidence for its current matrix.
type EvidenceCache struct {
	mu      sync.Mutex
	entries map[evidenceKey]*localize.Evidence
	current *localize.Matrix // set by Keep: evidence over any other is not kept
}

// Keep drops the evidence gathered over any matrix but m, and keeps none
// over another that arrives later (a rebuild that started before m did):
// a view calls it as it takes m, so that the matrix it showed before, which
// the evidence's key holds, is not kept alive beside m and the next run.
func (c *EvidenceCache) Keep(m *localize.Matrix) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.current = m
	for k := range c.entries {
		if k.matrix != m {
			delete(c.entries, k)
		}
	}
}

func (c *EvidenceCache) get(k evidenceKey) *localize.Evidence {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[k]
}

// put keeps ev under k, dropping what was gathered over other matrices:
// the view only shows its latest.
func (c *EvidenceCache) put(k evidenceKey, ev *localize.Evidence) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != nil && k.matrix != c.current {
		return
	}
	for old := range c.entries {
		if old.matrix != k.matrix {
			delete(c.entries, old)
		}
	}
	if c.entries == nil {
		c.entries = map[evidenceKey]*localize.Evidence{}
	}
	c.entries[k] = ev
}
