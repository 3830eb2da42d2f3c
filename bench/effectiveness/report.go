package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// ReportMeta is what the report says about how it was produced.
type ReportMeta struct {
	Command  string
	Seed     uint64
	HeldOut  float64
	Elapsed  string
	Formulas []string
	Partial  bool // the run was interrupted before every subject was done
}

// WriteReport renders the results as markdown: subjects, one table per
// fault set (tuning, held-out, known faults, all), and every fault.
func WriteReport(w io.Writer, meta ReportMeta, res *Results) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Effectiveness of the ranking formulas\n\n")
	fmt.Fprintf(&b, "Regenerate with:\n\n```sh\n%s\n```\n\n", meta.Command)
	fmt.Fprintf(&b, "Seed %d; %.0f%% of the kept mutants drawn into the held-out set; wall time %s.\n\n", meta.Seed, 100*meta.HeldOut, meta.Elapsed)
	if meta.Partial {
		b.WriteString("**The run was interrupted: the figures cover only the faults scored before that.**\n\n")
	}
	b.WriteString("Each fault is ranked once by `faultline rank -json`; every formula is then scored from the four counts of every executed line. " +
		"Positions are 1-based; a fault counts as the mutated line or the first line of its statement. " +
		"Top-N cells read best/worst over ties (the fault examined first or last in its tie group). " +
		"EXAM is the fraction of ranked lines examined up to the fault; a fault missing from the ranking counts as EXAM 1.\n\n")
	if slices.Contains(meta.Formulas, blockRankFull) {
		b.WriteString("faultline ranks with `-formula blockrank` (edge profiles collected in the same run), and the same collection once more with " +
			"`-blockrank-mode calibrated`; `blockrank` is the full reading, `blockrank-calibrated` the paper's worked example. " +
			"`A>B` orders by A and breaks its ties by B; `+angelic` puts lines hosting verified angelic fixes first, as faultline's combined order does.\n\n")
	}

	b.WriteString("## Subjects\n\n| subject | packages | passing leaf tests | files | lines | sites | tried | kept | no build | all pass | none pass | hang | note |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range res.Subjects {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n",
			s.Spec, s.Packages, s.Tests, s.Files, s.Lines, s.Sites, s.Tried, s.Kept, s.NoBuild, s.AllPass, s.AllFail, s.TimedOut, cell(s.Err))
	}
	b.WriteString("\n")

	var tuning, heldOut, known, all []FaultResult
	for _, f := range res.Faults {
		switch {
		case f.Site == nil:
			known = append(known, f)
		case f.HeldOut:
			heldOut = append(heldOut, f)
		default:
			tuning = append(tuning, f)
		}
		all = append(all, f)
	}
	for _, set := range []struct {
		title  string
		faults []FaultResult
	}{{"Tuning set (seeded mutants)", tuning}, {"Held-out set (seeded mutants)", heldOut}, {"Known faults (fault.json)", known}, {"All faults", all}} {
		if len(set.faults) == 0 {
			continue
		}
		writeSet(&b, set.title, set.faults, meta.Formulas)
	}

	writeCombined(&b, all, meta.Formulas)
	writeConstructs(&b, all)

	b.WriteString("## Faults\n\n| set | module | fault | change | failed/passed (go test) | failed/passed (faultline) | lines | ochiai pos (best–worst) | executed by a failing test | faultline s | note |\n|---|---|---|---|---|---|---:|---|---|---:|---|\n")
	for _, f := range res.Faults {
		set, change := "tuning", f.Description
		switch {
		case f.Site == nil:
			set = "known"
		case f.HeldOut:
			set = "held-out"
		}
		if f.Site != nil {
			change = fmt.Sprintf("`%s` → `%s`", f.Site.Old, f.Site.New)
		}
		lines, pos, executed := "", "", ""
		if f.Scored != nil {
			lines = fmt.Sprint(f.Scored.Lines)
			executed = fmt.Sprint(f.Scored.FaultExecutedByFailing)
			if fs, ok := f.Scored.ByFormula["ochiai"]; ok && fs.Found {
				pos = fmt.Sprintf("%g–%g", fs.Pos[0], fs.Pos[2])
			} else if ok {
				pos = "absent"
			}
			if fs, ok := f.Scored.ByFormula["ochiai"+combinedSuffix]; ok && fs.Found {
				pos += fmt.Sprintf(" (combined %g–%g)", fs.Pos[0], fs.Pos[2])
			}
			if fs, ok := f.Scored.ByFormula[blockRankFull]; ok && fs.Found {
				pos += fmt.Sprintf(" (blockrank %g–%g)", fs.Pos[0], fs.Pos[2])
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s:%s | %s | %d/%d | %d/%d | %s | %s | %s | %.1f | %s |\n",
			set, f.Module, f.Fault.File, joinInts(f.Fault.Lines), cell(change), f.Failed, f.Passed, f.RankFailed, f.RankPassed,
			lines, pos, executed, f.Seconds, cell(f.Err))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSet(b *strings.Builder, title string, faults []FaultResult, formulas []string) {
	var scored []Scored
	notExecuted, failedRuns := 0, 0
	for _, f := range faults {
		if f.Scored == nil {
			failedRuns++
			continue
		}
		scored = append(scored, *f.Scored)
		if !f.Scored.FaultExecutedByFailing {
			notExecuted++
		}
	}
	fmt.Fprintf(b, "## %s\n\n%d faults, %d scored", title, len(faults), len(scored))
	if failedRuns > 0 {
		fmt.Fprintf(b, " (%d without a usable faultline ranking, see the fault list)", failedRuns)
	}
	fmt.Fprintf(b, "; the faulty line was never executed by a failing test in %d of them.\n\n", notExecuted)
	if len(scored) == 0 {
		return
	}
	b.WriteString("| formula | Top-1 expected | Top-1 | Top-3 | Top-5 | Top-10 | EXAM best | EXAM average | EXAM worst | absent |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	sums := Summarize(scored, formulas)
	for _, s := range sums {
		fmt.Fprintf(b, "| %s | %.1f | %d/%d | %d/%d | %d/%d | %d/%d | %.4f | %.4f | %.4f | %d |\n", s.Formula, s.Top1Expected,
			s.Top[0][0], s.Top[0][1], s.Top[1][0], s.Top[1][1], s.Top[2][0], s.Top[2][1], s.Top[3][0], s.Top[3][1],
			s.Exam[0], s.Exam[1], s.Exam[2], s.NotFound)
	}
	b.WriteString("\nThe BlockRank paper's measures (its Table II), ties examined as a whole: the share of faults found within 5, 10, 15 and 20 % of the ranked lines, " +
		"and the mean and standard deviation of the share examined (the effort, EXAM worst), in %.\n\n")
	b.WriteString("| order | ≤ 5 % | ≤ 10 % | ≤ 15 % | ≤ 20 % | effort mean | effort stdev |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range sums {
		pct := func(n int) float64 { return 100 * float64(n) / float64(max(1, s.Faults)) }
		fmt.Fprintf(b, "| %s | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |\n", s.Formula,
			pct(s.Within[0]), pct(s.Within[1]), pct(s.Within[2]), pct(s.Within[3]), 100*s.EffortMean, 100*s.EffortStd)
	}
	b.WriteString("\n")
}

// writeCombined compares each formula with its combination with the
// angelic fixes on the same faults: those whose ranking faultline could
// combine (the analysis ran).
func writeCombined(b *strings.Builder, faults []FaultResult, formulas []string) {
	var names []string
	for _, f := range formulas {
		if strings.HasSuffix(f, combinedSuffix) {
			names = append(names, strings.TrimSuffix(f, combinedSuffix), f)
		}
	}
	if len(names) == 0 {
		return
	}
	var combined []FaultResult
	for _, f := range faults {
		if f.Scored != nil {
			if _, ok := f.Scored.ByFormula[names[1]]; ok {
				combined = append(combined, f)
			}
		}
	}
	hosted, replaced := 0, 0
	var total, solve, rest []float64
	for _, f := range combined {
		if f.Scored.FaultFixes > 0 {
			hosted++
		}
		if slices.Equal(f.Scored.FaultFoundBy, []string{"value replacement"}) {
			replaced++
		}
		for _, a := range f.Analysis {
			total = append(total, a.Seconds)
			solve = append(solve, a.SolveSeconds)
			rest = append(rest, a.Seconds-a.SolveSeconds)
		}
	}
	fmt.Fprintf(b, "## Formula alone against combined with angelic fixes, on the same faults\n\n"+
		"The %d of %d faults whose ranking faultline combined (the angelic analysis ran on their failing tests). "+
		"Top-1 expected is the number of faults ranked first when ties are examined in random order.\n\n", len(combined), len(faults))
	fmt.Fprintf(b, "The faulty line hosts a verified single-location fix of at least one failing test in %d of %d faults", hosted, len(combined))
	if replaced > 0 {
		fmt.Fprintf(b, " (in %d of them only fixes found by value replacement)", replaced)
	}
	b.WriteString(".")
	if len(total) > 0 {
		fmt.Fprintf(b, " Angelic analysis per failing test (%d tests): median %.2f s, worst %.2f s; in the solver median %.2f s, worst %.2f s; "+
			"the rest (test runs, replay) median %.2f s, worst %.2f s; the instrumented build, once per package, is not included.", len(total),
			medianOf(total), maxOf(total), medianOf(solve), maxOf(solve), medianOf(rest), maxOf(rest))
	}
	b.WriteString("\n\n")
	b.WriteString("| order | Top-1 expected | Top-1 | Top-3 | Top-5 | Top-10 | EXAM best | EXAM average | EXAM worst |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, name := range names {
		var scored []Scored
		for _, f := range combined {
			scored = append(scored, *f.Scored)
		}
		for _, s := range Summarize(scored, []string{name}) {
			fmt.Fprintf(b, "| %s | %.1f | %d/%d | %d/%d | %d/%d | %d/%d | %.4f | %.4f | %.4f |\n", name, s.Top1Expected,
				s.Top[0][0], s.Top[0][1], s.Top[1][0], s.Top[1][1], s.Top[2][0], s.Top[2][1], s.Top[3][0], s.Top[3][1],
				s.Exam[0], s.Exam[1], s.Exam[2])
		}
	}
	b.WriteString("\n")
}

// writeConstructs breaks the faults down by the construct their faulty
// line is in: how many host a verified fix on the faulty line, and where
// the combined order (ochiai+angelic) places them.
func writeConstructs(b *strings.Builder, faults []FaultResult) {
	byConstruct := map[string][]FaultResult{}
	unclassified := 0
	for _, f := range faults {
		if f.Construct == "" {
			unclassified++
			continue
		}
		byConstruct[f.Construct] = append(byConstruct[f.Construct], f)
	}
	if len(byConstruct) == 0 {
		return
	}
	order := "ochiai" + combinedSuffix
	b.WriteString("## By construct of the faulty line\n\n" +
		"Each fault's faulty line is classified from its type-checked syntax by the data the mutated expression (or, for a known fault, the statement on its line) touches, " +
		"the first that applies of: error, string or byte slice, map, slice or array, struct field, float, call, Boolean && || ! (a swapped && or || is always one), integer. " +
		"A fault hosts a fix when its faulty line hosts a verified single-location angelic fix of some failing test; " +
		"positions are in the combined order (" + order + ": lines hosting verified fixes first), over the faults it ranked; analysis times are per failing test.\n\n")
	if unclassified > 0 {
		fmt.Fprintf(b, "%d faults carry no construct (results of a harness that did not classify; -report-from -classify adds it).\n\n", unclassified)
	}
	b.WriteString("| construct | faults | faulty line hosts a verified fix | by formula / replacement / switching | Top-1 best–worst | Top-5 best–worst | EXAM average | analysis median / worst s |\n" +
		"|---|---:|---:|---|---|---|---:|---|\n")
	for _, name := range append(slices.Clone(constructs), "") {
		fs := byConstruct[name]
		if name == "" {
			fs = faults
			name = "all"
		}
		if len(fs) == 0 {
			continue
		}
		hosted := 0
		foundBy := map[string]int{}
		var scored []Scored
		var times []float64
		for _, f := range fs {
			if f.Scored == nil {
				continue
			}
			if f.Scored.FaultFixes > 0 {
				hosted++
				for _, how := range f.Scored.FaultFoundBy {
					foundBy[how]++
				}
			}
			if _, ok := f.Scored.ByFormula[order]; ok {
				scored = append(scored, *f.Scored)
			}
			for _, a := range f.Analysis {
				times = append(times, a.Seconds)
			}
		}
		top, exam := "–", "–"
		top5 := "–"
		if sums := Summarize(scored, []string{order}); len(sums) == 1 && len(scored) > 0 {
			s := sums[0]
			top = fmt.Sprintf("%d–%d", s.Top[0][0], s.Top[0][1])
			top5 = fmt.Sprintf("%d–%d", s.Top[2][0], s.Top[2][1])
			exam = fmt.Sprintf("%.4f", s.Exam[1])
		}
		timesCell := "–"
		if len(times) > 0 {
			timesCell = fmt.Sprintf("%.2f / %.2f", medianOf(times), maxOf(times))
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d / %d / %d | %s | %s | %s | %s |\n", name, len(fs), hosted,
			foundBy["formula"], foundBy["value replacement"], foundBy["predicate switching"], top, top5, exam, timesCell)
	}
	b.WriteString("\n")
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func maxOf(xs []float64) float64 { return slices.Max(xs) }

// cell makes text safe inside a markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

func joinInts(xs []int) string {
	ys := append([]int(nil), xs...)
	sort.Ints(ys)
	parts := make([]string, len(ys))
	for i, x := range ys {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
