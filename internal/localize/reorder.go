package localize

import "slices"

// InOrder returns l with its lines in the named order ("" for the shipped
// model's default), made as Localize makes the order it is asked for, but
// from what l already holds: l.Formula (the ranking of the formula,
// BlockRank or SAT-TAR), l.Base (the formula ranking the evidence is
// gathered over; l.Formula when nil), l.Angelic's results and l.SatTar. It
// is for a caller that ranks a matrix itself and changes the order without
// analysing again: the language server, which localizes to one failing
// test and takes the order from a setting.
//
// Only the learned order gathers evidence. prior, when set, is the
// Evidence of an earlier call over the same matrix and base lines: the
// columns that do not depend on the analyses are taken from it as they
// are. The returned localization's Evidence is the one to pass next time.
func InOrder(l *Localization, order string, prior *Evidence) (*Localization, error) {
	if order == "" {
		order = ShippedModel().Default
	}
	if err := CheckOrder(order); err != nil {
		return nil, err
	}
	loc := *l
	loc.Formula = withFormulaScores(l.Formula)
	loc.Ranking, loc.Evidence = loc.Formula, nil
	if loc.Base == nil {
		loc.Base = l.Formula
	}
	st := &state{loc: &loc, opts: Options{Order: order, Angelic: l.Angelic != nil}, prior: prior}
	if a := l.Angelic; a != nil {
		// The notes the ordering adds go to a copy: l's are shared.
		copied := *a
		copied.Notes = slices.Clip(a.Notes)
		loc.Angelic = &copied
		st.order(&loc, a.Results)
	} else {
		st.order(&loc, nil)
	}
	return &loc, nil
}
