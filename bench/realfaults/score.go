package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra/rank"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// A scoredCase is one fault with the ranking faultline gave it: a mined
// real fault or a seeded one kept by bench/effectiveness -rankings.
type scoredCase struct {
	ID      string
	Group   string // the project (real faults) or module (seeded ones): folds never split a group
	Size    string // one-line, one-hunk, multi-hunk (real faults)
	Seeded  bool
	HeldOut bool
	Faulty  map[lineKey]bool
	Report  *localize.RankReport // nil when faultline gave no ranking
	// Funcs names the function holding a line of the faulty version,
	// for function-level figures; nil when its source is not at hand
	// (seeded faults).
	Funcs localize.FunctionOf
	// Reads names the declarations a line of the faulty version reads;
	// nil when its source is not at hand.
	Reads localize.DeclarationReads
	// Spans gives the declared functions of a file of the faulty
	// version; nil when its source is not at hand.
	Spans localize.FunctionSpans
	// OwnSpectra are the functions with their own spectra's ranking, as
	// faultline rank -json gives them; nil when the ranking predates it.
	OwnSpectra []localize.RankedFunction
	Err        string
	Seconds    float64
	Load       float64
}

type lineKey struct {
	File string
	Line int
}

// loadRealCases reads the faults of the benchmark with the rankings eval
// kept under work/eval. Projects are split into two halves by a hash of
// their name, so a fault is held out exactly when its project is.
func loadRealCases(b *realfault.Benchmark, work string) ([]*scoredCase, error) {
	var out []*scoredCase
	for i := range b.Faults {
		f := &b.Faults[i]
		c := &scoredCase{ID: f.ID, Group: f.Repo, Size: f.Size, HeldOut: heldOutProject(f.Repo), Faulty: map[lineKey]bool{}}
		for _, fl := range f.Faulty {
			// A pure insertion's faulty lines are the code lines around it.
			for _, n := range append(slices.Clone(fl.Lines), fl.Around...) {
				c.Faulty[lineKey{fl.File, n}] = true
			}
		}
		dir := filepath.Join(work, "eval", f.ID)
		if st, err := os.Stat(filepath.Join(dir, "src")); err == nil && st.IsDir() {
			c.Funcs = localize.SourceFunctions(filepath.Join(dir, "src"))
			c.Reads = localize.SourceDeclarationReads(filepath.Join(dir, "src"))
			c.Spans = localize.SourceFunctionSpans(filepath.Join(dir, "src"))
		}
		meta, err := readRunMeta(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // not evaluated yet
		} else if err != nil {
			return nil, err
		}
		c.Seconds, c.Load = meta.Seconds["evidence"], meta.Load[0]
		if e := meta.Errors["evidence"]; e != "" {
			c.Err = e
		} else if err := readReport(filepath.Join(dir, "evidence.json"), &c.Report); err != nil {
			c.Err = err.Error()
		} else if c.OwnSpectra, err = readOwnSpectra(filepath.Join(dir, "evidence.json")); err != nil {
			return nil, err
		} else if err := addMutationRanks(c.Report); err != nil {
			return nil, fmt.Errorf("%s: %w", f.ID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// addMutationRanks gives the lines of a ranking made with mutants the
// rank columns rank gives them now (localize.MutationRanks), when it was
// made before they existed.
func addMutationRanks(r *localize.RankReport) error {
	mutated, ranked := false, false
	for _, l := range r.Lines {
		mutated = mutated || l.Evidence["mutation.mutants"] > 0
		_, has := l.Evidence["mutation.muse.reciprocalRank"]
		ranked = ranked || has
	}
	if !mutated || ranked {
		return nil
	}
	muse, metallaxis := make([]float64, len(r.Lines)), make([]float64, len(r.Lines))
	for i, l := range r.Lines {
		muse[i], metallaxis[i] = l.Evidence["mutation.muse"], l.Evidence["mutation.metallaxis"]
	}
	cols, err := localize.MutationRanks(r.Lines, muse, metallaxis)
	if err != nil {
		return err
	}
	for name, col := range cols {
		for i, v := range col {
			if v == 0 {
				continue
			}
			if r.Lines[i].Evidence == nil {
				r.Lines[i].Evidence = map[string]float64{}
			}
			r.Lines[i].Evidence[name] = v
		}
	}
	return nil
}

// heldOutProject puts a project in the held-out half by a hash of its name.
func heldOutProject(repo string) bool {
	h := fnv.New32a()
	h.Write([]byte(repo))
	return h.Sum32()%2 == 1
}

func readReport(path string, into **localize.RankReport) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var r localize.RankReport
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if r.Failed == 0 || len(r.Lines) == 0 {
		return fmt.Errorf("no ranking: %s", r.Message)
	}
	*into = &r
	return nil
}

// readOwnSpectra reads the functions of a faultline rank -json output that
// carry their own spectra's ranking; nil when none does.
func readOwnSpectra(path string) ([]localize.RankedFunction, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r struct {
		Functions []localize.RankedFunction `json:"functions"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !slices.ContainsFunc(r.Functions, func(f localize.RankedFunction) bool { return f.Spectrum != nil }) {
		return nil, nil
	}
	return r.Functions, nil
}

// savedRanking is what bench/effectiveness -rankings writes per fault.
type savedRanking struct {
	Module string `json:"module"`
	Site   string `json:"site"`
	Fault  struct {
		File  string `json:"file"`
		Lines []int  `json:"lines"`
	} `json:"fault"`
	HeldOut bool                 `json:"heldOut"`
	Report  *localize.RankReport `json:"report"`
}

// loadSeededCases reads bench/effectiveness' kept rankings; their split is
// the harness's own.
func loadSeededCases(dir string) ([]*scoredCase, error) {
	if dir == "" {
		return nil, nil
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*scoredCase
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var s savedRanking
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		// Folds are grouped by module, as real faults' are by project (the
		// harness's own split is by mutant).
		c := &scoredCase{ID: s.Module + " " + s.Site, Group: s.Module, Seeded: true, HeldOut: heldOutProject(s.Module), Faulty: map[lineKey]bool{}, Report: s.Report}
		if c.Report == nil || len(c.Report.Lines) == 0 {
			c.Report, c.Err = nil, "no ranking"
		} else if err := addMutationRanks(c.Report); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, n := range s.Fault.Lines {
			c.Faulty[lineKey{s.Fault.File, n}] = true
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// An order ranks a case's lines; it returns each line's tie group, in the
// report's line order.
type order struct {
	name string
	rank func(c *scoredCase) ([][2]int, error)
	// lines, when set, gives the order's whole ranking instead: an order
	// that places lines no spectrum holds ranks more lines than the
	// report.
	lines func(c *scoredCase) ([]localize.RankedLine, error)
	// functions, with lines, lists the functions of a ranking as the
	// order does; nil: by their best lines.
	functions func(c *scoredCase, lines []localize.RankedLine) ([]localize.RankedFunction, error)
}

// orders are the techniques alone, the current combined order and the
// learned order of model m.
func orders(m *localize.Model) []order {
	var out []order
	for _, name := range []string{"ochiai", "op2", "dstar2", "tarantula", "barinel", "gp13"} {
		f, err := rank.Lookup(name)
		if err != nil {
			panic(err) // the registry's own names
		}
		out = append(out, order{name: f.Name(), rank: func(c *scoredCase) ([][2]int, error) {
			elems := make([]rank.Element, len(c.Report.Lines))
			for i, l := range c.Report.Lines {
				elems[i] = rank.Element{Counts: rank.Counts{EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP}, Loc: rank.Location{File: l.File, Line: l.Line}}
			}
			ties := make([][2]int, len(elems))
			for _, r := range rank.Rank(elems, f) {
				ties[r.Elem] = [2]int{r.TieFirst, r.TieLast}
			}
			return ties, nil
		}})
	}
	// The mutation formulas score only the lines whose mutants ran, so
	// Ochiai orders the rest (and breaks their ties), as it would for a
	// user who ran mutants within a budget.
	for _, mf := range mutationFormulas {
		out = append(out, order{name: mf.name, rank: func(c *scoredCase) ([][2]int, error) {
			return byScores(c, evidence(c, mf.column), evidence(c, "spectrum.ochiai"))
		}})
	}
	out = append(out,
		order{name: "BlockRank", rank: func(c *scoredCase) ([][2]int, error) {
			return byScores(c, evidence(c, "blockrank.rank"))
		}},
		order{name: "angelic alone", rank: func(c *scoredCase) ([][2]int, error) {
			return byScores(c, evidence(c, "angelic.fix"), evidence(c, "angelic.multi"), evidence(c, "angelic.unverified"))
		}},
		order{name: "Ochiai + angelic fixes first (combined)", rank: func(c *scoredCase) ([][2]int, error) {
			ties := make([][2]int, len(c.Report.Lines))
			for i, l := range c.Report.Lines {
				ties[i] = l.Tie
			}
			return ties, nil
		}},
		learnedOrder("learned", func(*scoredCase) *localize.Model { return m }),
	)
	return out
}

// A mutationFormula is a mutation-based technique, ranking by its column
// of the evidence.
type mutationFormula struct{ name, column string }

// mutationFormulas are the mutation-based techniques.
var mutationFormulas = []mutationFormula{
	{"Metallaxis-FL", "mutation.metallaxis"},
	{"MUSE", "mutation.muse"},
}

// hasMutation says whether any case's ranking carries mutation evidence
// (eval ran faultline with -mutants).
func hasMutation(cases []*scoredCase) bool {
	for _, c := range cases {
		if c.Report == nil {
			continue
		}
		for _, l := range c.Report.Lines {
			if l.Evidence["mutation.mutants"] > 0 {
				return true
			}
		}
	}
	return false
}

func lineScores(c *scoredCase, f func(localize.RankedLine) float64) []float64 {
	s := make([]float64, len(c.Report.Lines))
	for i, l := range c.Report.Lines {
		s[i] = f(l)
	}
	return s
}

func evidence(c *scoredCase, column string) []float64 {
	return lineScores(c, func(l localize.RankedLine) float64 { return l.Evidence[column] })
}

func byScores(c *scoredCase, scores ...[]float64) ([][2]int, error) {
	locs := make([]rank.Location, len(c.Report.Lines))
	for i, l := range c.Report.Lines {
		locs[i] = rank.Location{File: l.File, Line: l.Line}
	}
	ranked, err := rank.RankScores(locs, scores[0], scores[1:]...)
	if err != nil {
		return nil, err
	}
	ties := make([][2]int, len(locs))
	for _, r := range ranked {
		ties[r.Elem] = [2]int{r.TieFirst, r.TieLast}
	}
	return ties, nil
}

// learnedInput is what the service's learned order reads for a case: the
// Ochiai ranking of its lines (scores and tie groups recomputed from the
// counts, in the report's line order) and the evidence they carry.
func learnedInput(c *scoredCase) (*localize.Ranking, *localize.Evidence) {
	n := len(c.Report.Lines)
	base := &localize.Ranking{Formula: "ochiai", Failed: c.Report.Failed, Passed: c.Report.Passed, Lines: slices.Clone(c.Report.Lines)}
	ochiai := rank.Default()
	ev := &localize.Evidence{Columns: map[string][]float64{}}
	elems := make([]rank.Element, n)
	for i, l := range base.Lines {
		elems[i] = rank.Element{Counts: rank.Counts{EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP}, Loc: rank.Location{File: l.File, Line: l.Line}}
	}
	for _, r := range rank.Rank(elems, ochiai) {
		base.Lines[r.Elem].Tie = [2]int{r.TieFirst, r.TieLast}
	}
	for i := range base.Lines {
		l := &base.Lines[i]
		l.Score = ochiai.Score(rank.Counts{EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP})
		for name, v := range l.Evidence {
			col := ev.Columns[name]
			if col == nil {
				col = make([]float64, n)
				ev.Columns[name] = col
			}
			col[i] = v
		}
	}
	return base, ev
}

// learnedRanking ranks a case with the service's own learned order,
// function by function and with declarations placed when the model says
// so.
func learnedRanking(c *scoredCase, m *localize.Model) (*localize.Ranking, error) {
	base, ev := learnedInput(c)
	r, err := m.Rank(base, ev, localize.ModuleSource{Functions: c.Funcs, Reads: c.Reads, Spans: c.Spans})
	if err != nil {
		return nil, fmt.Errorf("%w (seeded faults get their functions from -seeded-src)", err)
	}
	return r, nil
}

// learnedTies gives each of the case's report lines its tie group under
// the learned order.
func learnedTies(c *scoredCase, m *localize.Model) ([][2]int, error) {
	r, err := learnedRanking(c, m)
	if err != nil {
		return nil, err
	}
	return tiesInReportOrder(c, r), nil
}

// learnedOrder is the learned order of the model modelOf gives a case,
// scored over its whole ranking.
func learnedOrder(name string, modelOf func(*scoredCase) *localize.Model) order {
	return order{name: name, lines: func(c *scoredCase) ([]localize.RankedLine, error) {
		r, err := learnedRanking(c, modelOf(c))
		if err != nil {
			return nil, err
		}
		return r.Lines, nil
	}, functions: func(c *scoredCase, lines []localize.RankedLine) ([]localize.RankedFunction, error) {
		return modelOf(c).RankFunctions(lines, c.Funcs)
	}}
}

// byBestLine ranks functions by their best lines, as an order without a
// function model of its own lists them.
func byBestLine(c *scoredCase, lines []localize.RankedLine) ([]localize.RankedFunction, error) {
	return localize.RankFunctions(lines, c.Funcs), nil
}

// linesOutcome scores a whole ranking, its lines in rank order, and the
// function list rankFns makes of it.
func linesOutcome(c *scoredCase, lines []localize.RankedLine, rankFns func(*scoredCase, []localize.RankedLine) ([]localize.RankedFunction, error)) (outcome, error) {
	faultyIn := map[[2]int]int{}
	for _, l := range lines {
		if c.Faulty[lineKey{l.File, l.Line}] {
			faultyIn[l.Tie]++
		}
	}
	o := outcome{pos: expectedPosition(faultyIn), lines: len(lines), executed: len(c.Report.Lines)}
	if c.Funcs != nil {
		faulty := faultyFunctions(c)
		fns, err := rankFns(c, lines)
		if err != nil {
			return o, err
		}
		fnIn := map[[2]int]int{}
		for _, f := range fns {
			if faulty[f.Function] {
				fnIn[f.Tie]++
			}
		}
		o.fnPos, o.fnScored = expectedPosition(fnIn), true
	}
	return o, nil
}

// faultPosition is where a developer examining the ranking top down meets
// the first faulty line, in expectation over the order of tied lines: in a
// tie group of t lines starting at position p with k faulty ones, p +
// (t-k)/(k+1). It is 0 when no faulty line is ranked.
func faultPosition(c *scoredCase, ties [][2]int) float64 {
	faultyIn := map[[2]int]int{}
	for i, l := range c.Report.Lines {
		if c.Faulty[lineKey{l.File, l.Line}] {
			faultyIn[ties[i]]++
		}
	}
	return expectedPosition(faultyIn)
}

// functionPosition is faultPosition at function level: the functions
// ranked by their best lines under the order (localize.RankFunctions), the
// faulty functions those holding a faulty line. It also returns how many
// functions the ranking holds.
func functionPosition(c *scoredCase, ties [][2]int) (pos float64, functions int) {
	// The lines in the order's rank order: within a tie group the order
	// of the report, which changes no function's tie group.
	order := make([]int, len(c.Report.Lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return ties[a][0] - ties[b][0] })
	lines := make([]localize.RankedLine, len(order))
	for k, i := range order {
		lines[k] = c.Report.Lines[i]
		lines[k].Rank, lines[k].Tie = k+1, ties[i]
	}
	faulty := faultyFunctions(c)
	fns := localize.RankFunctions(lines, c.Funcs)
	faultyIn := map[[2]int]int{}
	for _, f := range fns {
		if faulty[f.Function] {
			faultyIn[f.Tie]++
		}
	}
	return expectedPosition(faultyIn), len(fns)
}

// faultyFunctions are the functions holding a case's faulty lines.
func faultyFunctions(c *scoredCase) map[localize.Function]bool {
	faulty := map[localize.Function]bool{}
	for l := range c.Faulty {
		faulty[c.Funcs(l.File, l.Line)] = true
	}
	return faulty
}

// ownSpectrumPosition is the faulty function's position when the functions
// are ranked by the formula of their own spectra; ok is false when the
// case's ranking does not carry them or its source is not at hand.
func ownSpectrumPosition(c *scoredCase) (pos float64, ok bool) {
	if c.OwnSpectra == nil || c.Funcs == nil {
		return 0, false
	}
	faulty := faultyFunctions(c)
	faultyIn := map[[2]int]int{}
	for _, f := range c.OwnSpectra {
		if f.Spectrum != nil && faulty[f.Function] {
			faultyIn[f.Spectrum.Tie]++
		}
	}
	return expectedPosition(faultyIn), true
}

// ownSpectrumSummary gives the function-level figures of ranking the
// functions by their own spectra over the cases keep selects.
func ownSpectrumSummary(cases []*scoredCase, keep func(*scoredCase) bool) summary {
	var s summary
	for _, c := range cases {
		if c.Report == nil || !keep(c) {
			continue
		}
		if pos, ok := ownSpectrumPosition(c); ok {
			s.add(outcome{pos: pos, lines: len(c.OwnSpectra), fnPos: pos, fnScored: true})
		}
	}
	return s
}

// expectedPosition is the expected first position of a faulty element
// given the count of faulty ones in each tie group; 0 for none.
func expectedPosition(faultyIn map[[2]int]int) float64 {
	best := 0.0
	for g, k := range faultyIn {
		t := float64(g[1] - g[0] + 1)
		p := float64(g[0]) + (t-float64(k))/float64(k+1)
		if best == 0 || p < best {
			best = p
		}
	}
	return best
}

// worstPosition is where the first faulty line would stand if every tie
// broke against it (0: none ranked).
func worstPosition(c *scoredCase, ties [][2]int) float64 {
	faultyIn := map[[2]int]int{}
	for i, l := range c.Report.Lines {
		if c.Faulty[lineKey{l.File, l.Line}] {
			faultyIn[ties[i]]++
		}
	}
	worst := 0
	for g, k := range faultyIn {
		if p := g[1] - k + 1; worst == 0 || p < worst {
			worst = p
		}
	}
	return float64(worst)
}

// outcome is one order's result on one case.
type outcome struct {
	pos float64 // 0: no faulty line ranked
	// worst is the position were every tie broken against the faulty
	// lines (orders that rank by tie groups only; 0 otherwise).
	worst float64
	lines int
	// executed is how many lines some test runs (the report's lines),
	// the same for every order: EXAM over it does not fall when an order
	// adds lines no spectrum holds.
	executed int
	// fnPos is the faulty function's position (0: not ranked) when
	// fnScored: the case's source is at hand.
	fnPos    float64
	fnScored bool
}

// summary is an order's figures over a set of cases.
type summary struct {
	Faults, Unranked int
	Top              [4]int // Top-1, 3, 5, 10
	exam             float64
	examExecuted     float64
	// FnFaults are the faults scored at function level too, FnTop their
	// faulty functions in the top 1 and 5.
	FnFaults int
	FnTop    [2]int
}

var topN = [4]float64{1, 3, 5, 10}

func (s *summary) add(o outcome) {
	s.Faults++
	if o.fnScored {
		s.FnFaults++
		for k, n := range [2]float64{1, 5} {
			if o.fnPos > 0 && o.fnPos <= n {
				s.FnTop[k]++
			}
		}
	}
	if o.pos == 0 {
		s.Unranked++
		s.exam++ // the whole ranking examined in vain
		s.examExecuted++
		return
	}
	for k, n := range topN {
		if o.pos <= n {
			s.Top[k]++
		}
	}
	s.exam += o.pos / float64(o.lines)
	if o.executed > 0 {
		s.examExecuted += min(1, o.pos/float64(o.executed))
	}
}

// EXAM is the mean share of the ranking examined before the fault; a
// fault with no faulty line ranked counts as 1.
func (s *summary) EXAM() float64 {
	if s.Faults == 0 {
		return math.NaN()
	}
	return s.exam / float64(s.Faults)
}

// EXAMExecuted is EXAM over the lines some test runs, whatever the order
// added: a share above 1 counts as 1.
func (s *summary) EXAMExecuted() float64 {
	if s.Faults == 0 {
		return math.NaN()
	}
	return s.examExecuted / float64(s.Faults)
}

// fnCells gives the function-level Top-1 and Top-5 as table cells, "-"
// when no fault was scored at function level.
func (s *summary) fnCells() (top1, top5 string) {
	if s.FnFaults == 0 {
		return "-", "-"
	}
	cell := func(n int) string {
		return fmt.Sprintf("%d/%d (%.0f %%)", n, s.FnFaults, 100*float64(n)/float64(s.FnFaults))
	}
	return cell(s.FnTop[0]), cell(s.FnTop[1])
}

func (s *summary) pct(k int) float64 {
	if s.Faults == 0 {
		return math.NaN()
	}
	return 100 * float64(s.Top[k]) / float64(s.Faults)
}

// evaluate runs every order on every case with a ranking.
func evaluate(cases []*scoredCase, ords []order) (map[*scoredCase][]outcome, error) {
	out := map[*scoredCase][]outcome{}
	for _, c := range cases {
		if c.Report == nil {
			continue
		}
		var os []outcome
		for _, o := range ords {
			if o.lines != nil {
				lines, err := o.lines(c)
				if err != nil {
					return nil, fmt.Errorf("%s, %s: %w", c.ID, o.name, err)
				}
				rankFns := o.functions
				if rankFns == nil {
					rankFns = byBestLine
				}
				lo, err := linesOutcome(c, lines, rankFns)
				if err != nil {
					return nil, fmt.Errorf("%s, %s: %w", c.ID, o.name, err)
				}
				os = append(os, lo)
				continue
			}
			ties, err := o.rank(c)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", c.ID, o.name, err)
			}
			o := outcome{pos: faultPosition(c, ties), worst: worstPosition(c, ties), lines: len(c.Report.Lines), executed: len(c.Report.Lines)}
			if c.Funcs != nil {
				o.fnPos, _ = functionPosition(c, ties)
				o.fnScored = true
			}
			os = append(os, o)
		}
		out[c] = os
	}
	return out, nil
}

// summarize sums order k's outcomes over the cases keep selects.
func summarize(res map[*scoredCase][]outcome, cases []*scoredCase, k int, keep func(*scoredCase) bool) summary {
	var s summary
	for _, c := range cases {
		if os, ok := res[c]; ok && keep(c) {
			s.add(os[k])
		}
	}
	return s
}
