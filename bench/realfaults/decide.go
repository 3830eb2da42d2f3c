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

// measures are the rule's six figures of an order: Top-1, Top-5 and EXAM
// on real faults, then on seeded ones; larger is better (EXAM negated).
func measures(cv map[*scoredCase][]outcome, all []*scoredCase, k int) [6]float64 {
	var v [6]float64
	for j, keep := range []func(*scoredCase) bool{func(c *scoredCase) bool { return !c.Seeded }, func(c *scoredCase) bool { return c.Seeded }} {
		s := summarize(cv, all, k, keep)
		v[3*j], v[3*j+1], v[3*j+2] = float64(s.Top[0]), float64(s.Top[2]), -s.EXAM()
	}
	return v
}

var measureNames = [6]string{"real Top-1", "real Top-5", "real EXAM", "seeded Top-1", "seeded Top-5", "seeded EXAM"}

func formatMeasure(m int, v float64) string {
	if m%3 == 2 {
		return fmt.Sprintf("%.4f", -v)
	}
	return fmt.Sprintf("%.0f", v)
}

// bestSingle is the single technique best on the most of the six
// measures (ties: the better real EXAM, then the earlier in orders()).
func bestSingle(cv map[*scoredCase][]outcome, all []*scoredCase, ords []order) int {
	n := singleOrders(ords)
	vals := make([][6]float64, n)
	var top [6]float64
	for k := range n {
		vals[k] = measures(cv, all, k)
		for m := range top {
			if k == 0 || vals[k][m] > top[m] {
				top[m] = vals[k][m]
			}
		}
	}
	best, bestWins := 0, -1
	for k := range n {
		wins := 0
		for m := range top {
			if vals[k][m] == top[m] {
				wins++
			}
		}
		if wins > bestWins || wins == bestWins && vals[k][2] > vals[best][2] {
			best, bestWins = k, wins
		}
	}
	return best
}

// shortfalls lists the measures on which order k is worse than order b.
func shortfalls(cv map[*scoredCase][]outcome, all []*scoredCase, ords []order, k, b int) []string {
	mk, mb := measures(cv, all, k), measures(cv, all, b)
	var out []string
	for m := range mk {
		if mk[m] < mb[m] {
			out = append(out, fmt.Sprintf("%s %s against %s", measureNames[m], formatMeasure(m, mk[m]), formatMeasure(m, mb[m])))
		}
	}
	return out
}

// unbeaten lists, for order k, the measures on which some single
// technique is better: the stricter reading of the rule, against the best
// single technique of each measure.
func unbeaten(cv map[*scoredCase][]outcome, all []*scoredCase, ords []order, k int) []string {
	mk := measures(cv, all, k)
	singles := make([][6]float64, singleOrders(ords))
	for j := range singles {
		singles[j] = measures(cv, all, j)
	}
	var out []string
	for m := range mk {
		best := 0
		for j := range singles {
			if singles[j][m] > singles[best][m] {
				best = j
			}
		}
		if singles[best][m] > mk[m] {
			out = append(out, fmt.Sprintf("%s %s against %s's %s", measureNames[m], formatMeasure(m, mk[m]), ords[best].name, formatMeasure(m, singles[best][m])))
		}
	}
	return out
}

// decide applies the rule: the default order is at least as good as the
// best single technique (the one best on the most of the six measures) on
// held-out Top-1, Top-5 and EXAM, on real faults and on seeded ones. The
// learned order is the default when it is; else the combined rule when it
// is; else the formula alone (the best single technique, when it is the
// default formula). The stricter reading, against each measure's best
// technique, is reported beside.
func decide(all []*scoredCase, ords []order, cv map[*scoredCase][]outcome) decision {
	b := bestSingle(cv, all, ords)
	why := []string{fmt.Sprintf("the best single technique is %s (best on the most of real and seeded Top-1, Top-5 and EXAM)", ords[b].name)}
	if countCases(all, func(c *scoredCase) bool { return c.Seeded }) == 0 {
		why = append(why, "no seeded faults to check, so the combined order stays")
		return decision{spectra.OrderCombined, strings.Join(why, "; ")}
	}
	pick := ""
	for _, c := range []struct {
		k     int
		order string
	}{{learnedOrder(ords), spectra.OrderLearned}, {combinedOrder(ords), spectra.OrderCombined}} {
		short := shortfalls(cv, all, ords, c.k, b)
		if len(short) == 0 {
			why = append(why, fmt.Sprintf("the %s order is at least as good on all six", c.order))
		} else {
			why = append(why, fmt.Sprintf("the %s order is worse on %s", c.order, strings.Join(short, ", ")))
		}
		if len(short) == 0 && pick == "" {
			pick = c.order
		}
		if strict := unbeaten(cv, all, ords, c.k); len(strict) > 0 {
			why = append(why, fmt.Sprintf("against each measure's best technique the %s order is worse on %s", c.order, strings.Join(strict, ", ")))
		}
	}
	if pick == "" {
		pick = spectra.OrderFormula
		if b != 0 {
			why = append(why, fmt.Sprintf("the default formula, Ochiai, is not the best single technique either; %s is", ords[b].name))
		}
	}
	why = append(why, fmt.Sprintf("so the default is the %s order", pick))
	return decision{pick, strings.Join(why, "; ")}
}
