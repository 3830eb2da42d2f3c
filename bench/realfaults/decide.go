package main

import (
	"fmt"
	"strings"

	"faultline/spectra"
)

// The orders' places in orders(): the single techniques first, then the
// combined rule, then the learned order.
func singleOrders(ords []order) int  { return len(ords) - 2 }
func combinedOrder(ords []order) int { return len(ords) - 2 }
func learnedOrder(ords []order) int  { return len(ords) - 1 }

// crossValidated pools the two folds: every fault scored by the model that
// did not learn from its project's half (the orders that learn nothing
// score the same in both).
func crossValidated(all []*scoredCase, res, swapRes map[*scoredCase][]outcome) map[*scoredCase][]outcome {
	out := map[*scoredCase][]outcome{}
	for _, c := range all {
		from := swapRes
		if c.HeldOut {
			from = res
		}
		if os, ok := from[c]; ok {
			out[c] = os
		}
	}
	return out
}

// decision is the default order the rule picks and why.
type decision struct {
	Default string
	Why     string
}

// best is the best single technique's figure on one measure.
type best struct {
	name  string
	value float64
}

// bestSingles returns, over the cases keep selects, the best single
// technique's Top-1, Top-5 and EXAM, each measure on its own.
func bestSingles(cv map[*scoredCase][]outcome, all []*scoredCase, ords []order, keep func(*scoredCase) bool) [3]best {
	var b [3]best
	for k := 0; k < singleOrders(ords); k++ {
		s := summarize(cv, all, k, keep)
		v := [3]float64{float64(s.Top[0]), float64(s.Top[2]), -s.EXAM()}
		for m := range b {
			if k == 0 || v[m] > b[m].value {
				b[m] = best{ords[k].name, v[m]}
			}
		}
	}
	return b
}

// shortfalls lists where order k is worse than the best single technique
// on held-out Top-1, Top-5 or EXAM over the cases keep selects.
func shortfalls(cv map[*scoredCase][]outcome, all []*scoredCase, ords []order, k int, keep func(*scoredCase) bool, set string) []string {
	b := bestSingles(cv, all, ords, keep)
	s := summarize(cv, all, k, keep)
	var out []string
	if float64(s.Top[0]) < b[0].value {
		out = append(out, fmt.Sprintf("%s Top-1 %d < %s's %.0f", set, s.Top[0], b[0].name, b[0].value))
	}
	if float64(s.Top[2]) < b[1].value {
		out = append(out, fmt.Sprintf("%s Top-5 %d < %s's %.0f", set, s.Top[2], b[1].name, b[1].value))
	}
	if -s.EXAM() < b[2].value {
		out = append(out, fmt.Sprintf("%s EXAM %.4f > %s's %.4f", set, s.EXAM(), b[2].name, -b[2].value))
	}
	return out
}

// decide applies the rule: the default order is at least as good as the
// best single technique on held-out Top-1, Top-5 and EXAM, on real faults
// and on seeded ones (each measure against the technique best on it). Of
// the orders the service can default to (the learned order, the combined
// rule, the default formula alone) the first that meets it is the default,
// the learned order first. When none does, the one with the fewest
// shortfalls is, the simplest on a tie (formula, then combined), and the
// shortfalls are said.
func decide(all []*scoredCase, ords []order, cv map[*scoredCase][]outcome) decision {
	real := func(c *scoredCase) bool { return !c.Seeded }
	seeded := func(c *scoredCase) bool { return c.Seeded }
	type candidate struct {
		k     int
		order string
		short []string
	}
	cands := []*candidate{{k: learnedOrder(ords), order: spectra.OrderLearned}, {k: combinedOrder(ords), order: spectra.OrderCombined},
		{k: 0, order: spectra.OrderFormula}} // ords[0] is the default formula, Ochiai
	var why []string
	for _, c := range cands {
		c.short = append(shortfalls(cv, all, ords, c.k, real, "real"), shortfalls(cv, all, ords, c.k, seeded, "seeded")...)
		if countCases(all, seeded) == 0 {
			c.short = append(c.short, "no seeded faults to check")
		}
		if len(c.short) == 0 {
			why = append(why, fmt.Sprintf("the %s order is at least as good as the best single technique on Top-1, Top-5 and EXAM on real and seeded faults", c.order))
			return decision{c.order, strings.Join(why, "; ")}
		}
		why = append(why, fmt.Sprintf("the %s order falls short (%s)", c.order, strings.Join(c.short, ", ")))
	}
	pick := cands[2]
	for _, c := range []*candidate{cands[1], cands[0]} {
		if len(c.short) < len(pick.short) {
			pick = c
		}
	}
	why = append(why, fmt.Sprintf("no order meets the rule; the %s order falls short least", pick.order))
	return decision{pick.order, strings.Join(why, "; ")}
}
