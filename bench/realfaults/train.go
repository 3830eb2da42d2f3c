package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/localize"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// Training: a linear model over the evidence columns, learned pairwise
// (a faulty line should score above each non-faulty one of the same
// fault) by logistic loss with an L2 penalty, in plain gradient descent
// from zero weights: no randomness, so the same rankings give the same
// model.
const (
	trainIterations = 400
	trainRate       = 0.5
	trainL2         = 1e-3
	// trainNegatives is how many of a fault's top non-faulty lines (in the
	// ranking faultline reported) are paired with its faulty lines; lines
	// with angelic evidence are paired too wherever they stand.
	trainNegatives = 300
)

func runTrain(args []string) error {
	fs, benchPath, work := rankingsFlagSet("train", "eval's directory (rankings under work/eval)")
	seeded := fs.String("seeded", "", "directory of bench/effectiveness -rankings output (seeded faults); empty: real faults only")
	modelPath := fs.String("model", "", "write the model trained on the tuning halves here (internal/localize/model.json ships it)")
	out := fs.String("out", "-", "markdown report (- for standard output)")
	var opt trainOptions
	fs.IntVar(&opt.Window, "window", learnedWindow, "the formula's first lines the model may reorder (0: every line)")
	fs.IntVar(&opt.Negatives, "negatives", trainNegatives, "a fault's top non-faulty lines paired with its faulty ones")
	fs.IntVar(&opt.Spread, "spread", 0, "more non-faulty lines paired, evenly spread over the rest of the ranking")
	fs.BoolVar(&opt.EqualProjects, "equal-projects", false, "weigh projects (modules) equally in the loss, not faults")
	fs.StringVar(&opt.Without, "without", "", "learn no weight for the columns with these prefixes, | between them (identity.: what they add, by leaving them out)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	all, seed, err := loadCases(*benchPath, *work, *seeded, "")
	if err != nil {
		return err
	}
	tuning := func(c *scoredCase) bool { return !c.HeldOut }
	heldOut := func(c *scoredCase) bool { return c.HeldOut }

	// The shipped model learns from the tuning halves only; the swapped
	// fold (learning from the held-out halves, scoring the tuning ones)
	// says how much the figures depend on which half is which.
	model := trainModel(all, tuning, "pairwise-tuning-halves", opt)
	swapped := trainModel(all, heldOut, "pairwise-heldout-halves", opt)

	ords := orders(model)
	res, err := evaluate(all, ords)
	if err != nil {
		return err
	}
	swapRes, err := evaluate(all, orders(swapped))
	if err != nil {
		return err
	}
	cv := crossValidated(all, res, swapRes)
	model.Default, model.Evaluation = decide(all, ords, cv, len(seed) > 0)

	w, closeOut, err := createOut(*out)
	if err != nil {
		return err
	}
	defer closeOut()
	writeReport(w, all, ords, res, swapRes, cv, model)
	if *modelPath != "" {
		data, err := json.MarshalIndent(model, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*modelPath, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// loadCases loads the real faults eval ranked under work and the seeded
// faults of a bench/effectiveness -rankings directory (none when seeded
// is empty); it returns all of them and the seeded ones.
func loadCases(benchPath, work, seeded, seededSrc string) (all, seed []*scoredCase, err error) {
	b, err := realfault.LoadBenchmark(benchPath)
	if err != nil {
		return nil, nil, err
	}
	real, err := loadRealCases(b, work)
	if err != nil {
		return nil, nil, err
	}
	if seed, err = loadSeededCases(seeded); err != nil {
		return nil, nil, err
	}
	if err := withSeededSources(seed, seededSrc); err != nil {
		return nil, nil, err
	}
	return append(slices.Clone(real), seed...), seed, nil
}

// createOut opens a report path, - for standard output.
func createOut(path string) (io.Writer, func() error, error) {
	if path == "-" {
		return os.Stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// crossValidated takes each fault's outcomes from the fold that held it
// out: the held-out halves from the model learned on the tuning ones, the
// tuning halves from the swapped model. Orders that learn nothing are the
// same in both.
func crossValidated(all []*scoredCase, res, swapRes map[*scoredCase][]outcome) map[*scoredCase][]outcome {
	cv := map[*scoredCase][]outcome{}
	for _, c := range all {
		if c.HeldOut {
			if o, ok := res[c]; ok {
				cv[c] = o
			}
		} else if o, ok := swapRes[c]; ok {
			cv[c] = o
		}
	}
	return cv
}

// decide picks the default order. The rule: over both folds, the default
// is at least as good as the best single technique (the one with the most
// real faults at Top-1, then Top-5, then the lowest EXAM) on Top-1, Top-5
// and EXAM, on real faults and on seeded ones. Of the combined and the
// learned order, those that meet it compete on real faults' Top-1, then
// Top-5, then EXAM; when neither does, the best single technique is the
// default. The last two orders are the combined and the learned one; the
// others are single techniques.
func decide(all []*scoredCase, ords []order, cv map[*scoredCase][]outcome, haveSeeded bool) (string, string) {
	real := func(c *scoredCase) bool { return !c.Seeded }
	seeded := func(c *scoredCase) bool { return c.Seeded }
	better := func(a, b summary) bool { // a ranks before b on real faults
		if a.Top[0] != b.Top[0] {
			return a.Top[0] > b.Top[0]
		}
		if a.Top[2] != b.Top[2] {
			return a.Top[2] > b.Top[2]
		}
		return a.EXAM() < b.EXAM()
	}
	single := 0
	for k := 1; k < len(ords)-2; k++ {
		if better(summarize(cv, all, k, real), summarize(cv, all, single, real)) {
			single = k
		}
	}
	noWorse := func(k int, keep func(*scoredCase) bool) bool {
		a, b := summarize(cv, all, k, keep), summarize(cv, all, single, keep)
		return a.Top[0] >= b.Top[0] && a.Top[2] >= b.Top[2] && !(a.EXAM() > b.EXAM())
	}
	combinedK, learnedK := len(ords)-2, len(ords)-1
	var meets []int
	var verdicts []string
	for _, k := range []int{combinedK, learnedK} {
		r, sd := noWorse(k, real), haveSeeded && noWorse(k, seeded)
		verdicts = append(verdicts, fmt.Sprintf("%s is %s on real faults and %s on seeded ones", ords[k].name, noWorseWord(r), noWorseWord(sd)))
		if r && sd {
			meets = append(meets, k)
		}
	}
	chosen, name := -1, ords[single].name
	for _, k := range meets {
		if chosen < 0 || better(summarize(cv, all, k, real), summarize(cv, all, chosen, real)) {
			chosen = k
		}
	}
	def := localize.OrderFormula
	switch chosen {
	case combinedK:
		def, name = localize.OrderCombined, ords[chosen].name
	case learnedK:
		def, name = localize.OrderLearned, ords[chosen].name
	}
	return def, fmt.Sprintf("Over both folds (each fault ranked by the model that did not learn from its project or module), against the best single technique, %s: %s; the default is %s",
		ords[single].name, strings.Join(verdicts, "; "), name)
}

func noWorseWord(b bool) string {
	if b {
		return "no worse"
	}
	return "worse"
}

func countCases(cs []*scoredCase, keep func(*scoredCase) bool) int {
	n := 0
	for _, c := range cs {
		if keep(c) {
			n++
		}
	}
	return n
}

// offByDefault are the prefixes of evidence columns that a default run of
// faultline does not produce, so a shipped model must not count on them:
// BlockRank needs edge profiles, which cost 6-11 % of a collection and are
// collected only with -edges or -formula blockrank. The benchmark's
// rankings carry them (eval asks for them) for the tables.
var offByDefault = []string{"blockrank."}

func collectedByDefault(column string) bool {
	for _, p := range offByDefault {
		if strings.HasPrefix(column, p) {
			return false
		}
	}
	return true
}

// learnedWindow is how many of the formula's first lines a trained model
// may reorder, unless train is told otherwise (-window). Not learned with
// the weights: a model that may move any line can bury a faulty one the
// formula had near the top. It was ten, the horizon developers inspect
// (Kochhar et al., ISSTA 2016); tune found twenty better on the tuning
// half (more faults in the top five, lower EXAM), and so it was on the
// held-out half (bench/README.md).
const learnedWindow = 20

// trainOptions are what train may vary: the model's window and which
// pairs it learns from.
type trainOptions struct {
	Window int // the model's Window
	// Negatives are a fault's top non-faulty lines paired with its faulty
	// ones, Spread as many more evenly spread over the rest of the
	// ranking (lines with angelic evidence are paired wherever they
	// stand).
	Negatives, Spread int
	// EqualProjects weighs each group (project or module) equally, its
	// faults sharing its weight, so a large project does not decide.
	EqualProjects bool
	// Without are the prefixes of columns left out of the model ("|"
	// between them; "" for none).
	Without string
	// Normalize learns from each fault's columns scaled as a normalizing
	// model scales them (localize.Evidence.Scales), and says so in the
	// model.
	Normalize bool
	// Below, when positive, weighs the pairs whose non-faulty line Ochiai
	// scores below the fault's best faulty line Below times as much as
	// the others.
	Below float64
	// Learn, when set, learns only the weights of the columns with one of
	// these prefixes ("|" between them), starting from the shipped head's
	// weights and keeping its others: what new columns add to a head
	// already chosen, without learning that head again.
	Learn string
	// Listwise learns by the softmax (ListNet top-one) loss over each
	// fault's lines instead of pairs: the probability the model puts on a
	// faulty line coming first, which is what Top-1 counts.
	Listwise bool
	// Prior, when positive, starts every weight from the shipped head's
	// (0 for a column it has none for) and pulls it back there, not to
	// zero, by an L2 penalty Prior times trainL2: the data move the
	// shipped weights only as far as they outweigh that pull.
	Prior float64
}

// trainingCase is one fault's pairs: each faulty line's evidence against
// the non-faulty lines', and the fault's weight in the loss.
type trainingCase struct {
	pos, neg [][]float64
	// negWeight weighs each non-faulty line's pairs; nil weighs them
	// alike.
	negWeight []float64
	weight    float64
}

func trainModel(cases []*scoredCase, keep func(*scoredCase) bool, name string, opt trainOptions) *localize.Model {
	colSet := map[string]bool{}
	for _, c := range cases {
		if keep(c) && c.Report != nil {
			for _, l := range c.Report.Lines {
				for k := range l.Evidence {
					if !collectedByDefault(k) || hasAnyPrefix(k, opt.Without) {
						continue
					}
					colSet[k] = true
				}
			}
		}
	}
	cols := make([]string, 0, len(colSet))
	for k := range colSet {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	vec := func(l localize.RankedLine, scales map[string]float64) []float64 {
		x := make([]float64, len(cols))
		for j, k := range cols {
			x[j] = l.Evidence[k]
			if s, ok := scales[k]; ok {
				x[j] /= s
			}
		}
		return x
	}
	var data []trainingCase
	var groups []string
	for _, c := range cases {
		if !keep(c) || c.Report == nil {
			continue
		}
		var tc trainingCase
		var scales map[string]float64
		if opt.Normalize {
			_, ev := learnedInput(c)
			scales = ev.Scales()
		}
		stride := 0
		if rest := len(c.Report.Lines) - opt.Negatives; opt.Spread > 0 && rest > 0 {
			stride = max(1, rest/opt.Spread)
		}
		var negOchiai []float64 // each non-faulty line's Ochiai score, for Below
		for i, l := range c.Report.Lines {
			angelic := false
			for k := range l.Evidence {
				angelic = angelic || strings.HasPrefix(k, "angelic.")
			}
			spread := stride > 0 && i >= opt.Negatives && (i-opt.Negatives)%stride == 0
			switch {
			case c.Faulty[lineKey{l.File, l.Line}]:
				tc.pos = append(tc.pos, vec(l, scales))
			case i < opt.Negatives || angelic || spread:
				tc.neg = append(tc.neg, vec(l, scales))
				negOchiai = append(negOchiai, l.Evidence[localize.FormulaColumn])
			}
		}
		if opt.Below > 0 {
			// faultScore is Ochiai's score of the fault's best faulty line.
			faultScore := math.Inf(-1)
			for _, l := range c.Report.Lines {
				if c.Faulty[lineKey{l.File, l.Line}] {
					faultScore = max(faultScore, l.Evidence[localize.FormulaColumn])
				}
			}
			tc.negWeight = make([]float64, len(tc.neg))
			for b, o := range negOchiai {
				tc.negWeight[b] = 1
				if o < faultScore {
					tc.negWeight[b] = opt.Below
				}
			}
		}
		if len(tc.pos) > 0 && len(tc.neg) > 0 {
			data = append(data, tc)
			groups = append(groups, c.Group)
		}
	}
	perGroup := map[string]int{}
	for _, g := range groups {
		perGroup[g]++
	}
	for i := range data {
		data[i].weight = 1 / float64(len(data))
		if opt.EqualProjects {
			data[i].weight = 1 / float64(len(perGroup)*perGroup[groups[i]])
		}
	}
	w := make([]float64, len(cols))
	learned := make([]bool, len(cols))
	var from map[string]float64
	if opt.Learn != "" || opt.Prior > 0 {
		from = localize.ShippedModel().Weights
	}
	penalty, prior := trainL2, make([]float64, len(cols))
	if opt.Prior > 0 {
		penalty = opt.Prior * trainL2
		for j, k := range cols {
			prior[j] = from[k]
		}
	}
	for j, k := range cols {
		w[j] = from[k]
		learned[j] = opt.Learn == "" || hasAnyPrefix(k, opt.Learn)
	}
	grad := make([]float64, len(cols))
	for it := 0; it < trainIterations; it++ {
		for j := range grad {
			grad[j] = 2 * penalty * (w[j] - prior[j])
		}
		for _, tc := range data {
			// Each pair's gradient is g·(p-n): summed per line, one pass
			// over the lines' columns, not one per pair.
			negTotal := float64(len(tc.neg))
			if tc.negWeight != nil {
				negTotal = 0
				for _, nw := range tc.negWeight {
					negTotal += nw
				}
			}
			scale := tc.weight / (float64(len(tc.pos)) * negTotal)
			sp, sn := scoresOf(w, tc.pos), scoresOf(w, tc.neg)
			gp, gn := make([]float64, len(sp)), make([]float64, len(sn))
			if opt.Listwise {
				listwiseGradient(tc, sp, sn, gp, gn)
				addScaled(grad, tc.pos, gp)
				addScaled(grad, tc.neg, gn)
				continue
			}
			for a := range sp {
				for b := range sn {
					pair := scale
					if tc.negWeight != nil {
						pair *= tc.negWeight[b]
					}
					g := -pair / (1 + math.Exp(sp[a]-sn[b])) // d/dm log(1+e^-m)
					gp[a] += g
					gn[b] -= g
				}
			}
			addScaled(grad, tc.pos, gp)
			addScaled(grad, tc.neg, gn)
		}
		for j := range w {
			if learned[j] {
				w[j] -= trainRate * grad[j]
			}
		}
	}
	m := &localize.Model{Name: name, Weights: map[string]float64{}, Window: opt.Window, Normalize: opt.Normalize}
	for j, k := range cols {
		if math.Abs(w[j]) >= 1e-4 {
			m.Weights[k] = math.Round(w[j]*1e4) / 1e4
		}
	}
	return m
}

// listwiseGradient sets gp and gn to the gradient, by the lines' scores,
// of the fault's weighted loss -log(Σ_pos e^s / Σ_all e^s): minus the log
// of the probability a softmax over its lines puts on its faulty ones
// (negWeight weighs each non-faulty line's share of the sum).
func listwiseGradient(tc trainingCase, sp, sn, gp, gn []float64) {
	top := math.Inf(-1)
	for _, s := range slices.Concat(sp, sn) {
		top = max(top, s)
	}
	var pos, all float64
	ep, en := make([]float64, len(sp)), make([]float64, len(sn))
	for a, s := range sp {
		ep[a] = math.Exp(s - top)
		pos += ep[a]
	}
	all = pos
	for b, s := range sn {
		en[b] = math.Exp(s - top)
		if tc.negWeight != nil {
			en[b] *= tc.negWeight[b]
		}
		all += en[b]
	}
	for a := range sp {
		gp[a] = tc.weight * (ep[a]/all - ep[a]/pos)
	}
	for b := range sn {
		gn[b] = tc.weight * en[b] / all
	}
}

// hasAnyPrefix says whether column has one of the "|"-separated prefixes
// ("" has none).
func hasAnyPrefix(column, prefixes string) bool {
	return prefixes != "" && slices.ContainsFunc(strings.Split(prefixes, "|"), func(p string) bool { return strings.HasPrefix(column, p) })
}

// scoresOf is each line's weighted sum under w.
func scoresOf(w []float64, lines [][]float64) []float64 {
	out := make([]float64, len(lines))
	for i, x := range lines {
		for j, v := range x {
			out[i] += w[j] * v
		}
	}
	return out
}

// addScaled adds each line's vector times its factor to grad.
func addScaled(grad []float64, lines [][]float64, factor []float64) {
	for i, x := range lines {
		if factor[i] == 0 {
			continue
		}
		for j, v := range x {
			grad[j] += factor[i] * v
		}
	}
}

// writeReport prints the figures: the benchmark, each order on each half,
// real faults by size and by project, the swapped fold and the decision;
// cv holds each fault's outcomes from the fold that held it out.
func writeReport(w io.Writer, all []*scoredCase, ords []order, res, swapRes, cv map[*scoredCase][]outcome, m *localize.Model) {
	fmt.Fprintf(w, "# Real and seeded faults: each technique alone, the combined order and the learned one\n\n")
	fmt.Fprintf(w, "Generated %s by `go run ./bench/realfaults train`.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	projects := map[string][2]int{}
	var secs, loads []float64
	failedRuns := 0
	for _, c := range all {
		if c.Seeded {
			continue
		}
		p := projects[c.Group]
		if c.Report != nil {
			p[0]++
			secs, loads = append(secs, c.Seconds), append(loads, c.Load)
		} else {
			p[1]++
			failedRuns++
		}
		projects[c.Group] = p
	}
	names := make([]string, 0, len(projects))
	for n := range projects {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "Real faults ranked: %d from %d projects (%d more without a ranking); seeded faults ranked: %d.\n",
		len(secs), len(names), failedRuns, countCases(all, func(c *scoredCase) bool { return c.Seeded && c.Report != nil }))
	fmt.Fprintf(w, "Rankings with the search-by-search angelic columns (each line saying which evidence put it there): %d of %d real, %d of %d seeded; the others were made by an earlier faultline, whose angelic analysis had no value replacement.\n\n",
		countCases(all, func(c *scoredCase) bool { return !c.Seeded && c.Report != nil && explained(c.Report) }), len(secs),
		countCases(all, func(c *scoredCase) bool { return c.Seeded && c.Report != nil && explained(c.Report) }),
		countCases(all, func(c *scoredCase) bool { return c.Seeded && c.Report != nil }))
	fmt.Fprintf(w, "| project | half | faults ranked | no ranking |\n|---|---|---|---|\n")
	for _, n := range names {
		half := "tuning"
		if heldOutProject(n) {
			half = "held-out"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d |\n", n, half, projects[n][0], projects[n][1])
	}
	if len(secs) > 0 {
		fmt.Fprintf(w, "\nOne `faultline rank -edges -order combined -evidence` per real fault: median %.0f s, worst %.0f s, at load (1 min) median %.1f.\n",
			median(secs), slices.Max(secs), median(loads))
	}
	sets := []struct {
		title string
		res   map[*scoredCase][]outcome
		keep  func(*scoredCase) bool
	}{
		{"Real faults, both folds (each ranked by the model that did not learn from its project)", cv, func(c *scoredCase) bool { return !c.Seeded }},
		{"Seeded faults, both folds (each ranked by the model that did not learn from its module)", cv, func(c *scoredCase) bool { return c.Seeded }},
		{"Real faults, held-out half (projects not tuned on)", res, func(c *scoredCase) bool { return !c.Seeded && c.HeldOut }},
		{"Seeded faults, held-out half", res, func(c *scoredCase) bool { return c.Seeded && c.HeldOut }},
		{"Real faults, tuning half (the model learned from these)", res, func(c *scoredCase) bool { return !c.Seeded && !c.HeldOut }},
		{"Seeded faults, tuning half (the model learned from these)", res, func(c *scoredCase) bool { return c.Seeded && !c.HeldOut }},
		{"Swapped fold: real faults, tuning half, model learned from the held-out halves", swapRes, func(c *scoredCase) bool { return !c.Seeded && !c.HeldOut }},
		{"Swapped fold: seeded faults, tuning half, model learned from the held-out halves", swapRes, func(c *scoredCase) bool { return c.Seeded && !c.HeldOut }},
	}
	for _, s := range sets {
		writeTable(w, s.title, all, ords, s.res, s.keep)
	}
	for _, size := range []string{"one-line", "one-hunk", "multi-hunk"} {
		writeTable(w, "Real faults, both folds, "+size+" fixes", all, ords, cv, func(c *scoredCase) bool { return !c.Seeded && c.Size == size })
	}
	writeProjects(w, "Real faults by project, both folds", all, ords, cv, names, nil)
	fmt.Fprintf(w, "\n## Decision\n\nDefault order: **%s**. %s.\n\nModel %s weights (learned on the tuning halves):\n\n", m.Default, m.Evaluation, m.Name)
	keys := make([]string, 0, len(m.Weights))
	for k := range m.Weights {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return math.Abs(m.Weights[keys[i]]) > math.Abs(m.Weights[keys[j]]) })
	for _, k := range keys {
		fmt.Fprintf(w, "- %s: %.4f\n", k, m.Weights[k])
	}
}

func writeTable(w io.Writer, title string, all []*scoredCase, ords []order, res map[*scoredCase][]outcome, keep func(*scoredCase) bool) {
	n := countCases(all, func(c *scoredCase) bool { _, ok := res[c]; return ok && keep(c) })
	fmt.Fprintf(w, "\n## %s (%d faults)\n\n", title, n)
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "| order | Top-1 | Top-3 | Top-5 | Top-10 | EXAM | not ranked | function Top-1 | function Top-5 | worse than Ochiai | projects weighed equally: Top-1 / Top-5 / EXAM |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for k, o := range ords {
		s := summarize(res, all, k, keep)
		fn1, fn5 := s.fnCells()
		worse := worseThan(res, all, k, 0, keep)
		t1, t5, exam := perGroup(res, all, k, keep)
		fmt.Fprintf(w, "| %s | %d (%.0f %%) | %d (%.0f %%) | %d (%.0f %%) | %d (%.0f %%) | %.4f | %d | %s | %s | %d (%.0f %%) | %.0f %% / %.0f %% / %.4f |\n", o.name,
			s.Top[0], s.pct(0), s.Top[1], s.pct(1), s.Top[2], s.pct(2), s.Top[3], s.pct(3), s.EXAM(), s.Unranked, fn1, fn5,
			worse, 100*float64(worse)/float64(s.Faults), t1, t5, exam)
	}
	// Ranking functions by their own spectra has no line-level figures;
	// rankings made before faultline gave them count in none.
	if own := ownSpectrumSummary(all, keep); own.FnFaults > 0 {
		fn1, fn5 := own.fnCells()
		fmt.Fprintf(w, "| functions by their own spectra (ochiai) | - | - | - | - | - | - | %s | %s |\n", fn1, fn5)
	}
}

// worseThanWorst counts the cases keep selects on which order k ranks the
// fault below where order base would have had every tie broken against
// the fault: worse than base whatever order its ties took.
func worseThanWorst(res map[*scoredCase][]outcome, cases []*scoredCase, k, base int, keep func(*scoredCase) bool) int {
	return countBelow(res, cases, keep, func(os []outcome) (float64, float64) { return os[k].pos, os[base].worst })
}

// worseThan counts the cases keep selects on which order k meets the
// first faulty line later than order base does (an unranked fault being
// met last of all).
func worseThan(res map[*scoredCase][]outcome, cases []*scoredCase, k, base int, keep func(*scoredCase) bool) int {
	return countBelow(res, cases, keep, func(os []outcome) (float64, float64) { return os[k].pos, os[base].pos })
}

// countBelow counts the cases keep selects whose first position (from
// their outcomes) is below their second, a fault not ranked (0) being
// below any ranked one.
func countBelow(res map[*scoredCase][]outcome, cases []*scoredCase, keep func(*scoredCase) bool, positions func([]outcome) (float64, float64)) int {
	n := 0
	for _, c := range cases {
		os, ok := res[c]
		if !ok || !keep(c) {
			continue
		}
		a, b := positions(os)
		if (a == 0 && b != 0) || (a != 0 && b != 0 && a > b) {
			n++
		}
	}
	return n
}

// perGroup gives order k's Top-1 and Top-5 (per cent) and EXAM over the
// cases keep selects with every group (project or module) weighing the
// same, its faults sharing its weight.
func perGroup(res map[*scoredCase][]outcome, cases []*scoredCase, k int, keep func(*scoredCase) bool) (top1, top5, exam float64) {
	groups := map[string]bool{}
	for _, c := range cases {
		if _, ok := res[c]; ok && keep(c) {
			groups[c.Group] = true
		}
	}
	// In name order: sums in map order would differ in their last bits.
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		s := summarize(res, cases, k, func(c *scoredCase) bool { return keep(c) && c.Group == g })
		top1 += s.pct(0) / float64(len(groups))
		top5 += s.pct(2) / float64(len(groups))
		exam += s.EXAM() / float64(len(groups))
	}
	return top1, top5, exam
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// explained says a ranking was made by a faultline that tells the angelic
// evidence apart by search and says which evidence put each line there.
func explained(r *localize.RankReport) bool {
	for _, l := range r.Lines {
		if len(l.Because) > 0 {
			return true
		}
	}
	return false
}

// writeProjects gives each project's real faults under Ochiai, the
// combined order and the learned one (the last two of ords), under a
// heading that says how the learned one was scored; label, when set,
// gives the name a project's row shows.
func writeProjects(w io.Writer, title string, all []*scoredCase, ords []order, cv map[*scoredCase][]outcome, names []string, label func(string) string) {
	fmt.Fprintf(w, "\n## %s\n\n", title)
	fmt.Fprintf(w, "| project | faults | Ochiai Top-1 / Top-5 / EXAM; function Top-1 / Top-5 | combined | learned |\n|---|---|---|---|---|\n")
	for _, n := range names {
		keep := func(c *scoredCase) bool { return !c.Seeded && c.Group == n }
		var cells []string
		faults := 0
		for _, k := range []int{0, len(ords) - 2, len(ords) - 1} {
			s := summarize(cv, all, k, keep)
			faults = s.Faults
			fn := "-"
			if s.FnFaults > 0 {
				fn = fmt.Sprintf("%d / %d", s.FnTop[0], s.FnTop[1])
			}
			cells = append(cells, fmt.Sprintf("%d / %d / %.4f; %s", s.Top[0], s.Top[2], s.EXAM(), fn))
		}
		if faults > 0 {
			if label != nil {
				n = label(n)
			}
			fmt.Fprintf(w, "| %s | %d | %s |\n", n, faults, strings.Join(cells, " | "))
		}
	}
}
