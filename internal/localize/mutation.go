package localize

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/mutation"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Mutation is what the mutation analysis contributed. Its JSON form is
// the "mutation" object of faultline rank -json.
type Mutation struct {
	Generated int     `json:"generated"` // mutants compiled into the schemata
	Run       int     `json:"run"`       // mutants run against their covering tests
	Seconds   float64 `json:"seconds"`   // its time, generation and builds included
	// Fixes are the verified operator fixes: mutants that make every
	// covering failing test pass and keep every covering passing test
	// passing.
	Fixes []OperatorFix `json:"fixes"`
	Notes []string      `json:"notes,omitempty"`
	// Cached says the analysis was taken from the cache: the same source,
	// tests and options ran every mutant before.
	Cached bool `json:"cached,omitempty"`
	// Lines are the mutation scores by line, for the evidence.
	Lines map[mutation.Loc]mutation.Scores `json:"-"`
}

// OperatorFix is one verified operator fix: the mutated source line.
type OperatorFix struct {
	File     string `json:"file"` // relative to the module root, slash-separated
	Line     int    `json:"line"`
	Operator string `json:"operator"` // the kind of change (mutation.Op...)
	Change   string `json:"change"`   // as "* → /"
	Edited   string `json:"edited"`   // the line as the fix has it
	Fixed    int    `json:"fixed"`    // failing tests it makes pass
}

// Removes says whether the fix removes its line's statement: the
// removal operator leaves Edited empty.
func (f OperatorFix) Removes() bool { return f.Edited == "" }

// FailingThatRun names the failing tests the fix makes pass, as those
// that run what (a noun phrase): "the failing test that runs it", "the 2
// failing tests that run it".
func (f OperatorFix) FailingThatRun(what string) string {
	if f.Fixed == 1 {
		return "the failing test that runs " + what
	}
	return fmt.Sprintf("the %d failing tests that run %s", f.Fixed, what)
}

// mutate runs the mutation analysis over the lines the failing tests
// execute, the formula's best first, within opts.Mutants mutants and the
// analysis budget of the failing tests it would analyse, counted from the
// first mutant's run, its runs ending by deadline whatever that budget.
func (s *Service) mutate(ctx context.Context, loc *Localization, opts Options, deadline time.Time) *Mutation {
	m := loc.Matrix
	var lines []mutation.Loc
	for _, l := range loc.Base.Lines {
		if l.EF > 0 {
			lines = append(lines, mutation.Loc{File: l.File, Line: l.Line})
		}
	}
	var tests []mutation.Test
	failing := 0
	for _, t := range m.Tests {
		if t.Verdict == VerdictSkip || t.Verdict == VerdictBuildError {
			continue
		}
		covered := map[mutation.Loc]bool{}
		for b := range t.Hits.All() {
			blk := m.Blocks[b]
			for _, n := range blk.Lines {
				covered[mutation.Loc{File: blk.File, Line: n}] = true
			}
		}
		if t.Verdict.Failing() {
			failing++
		}
		tests = append(tests, mutation.Test{Package: t.Package, Name: t.Name, Failing: t.Verdict.Failing(), Lines: covered, Elapsed: t.Elapsed})
	}
	mopts := mutation.Options{MaxMutants: opts.Mutants, Timeout: mutation.DefaultTimeout,
		RunBudget: time.Duration(min(failing, opts.MaxAnalyzed)) * opts.Budget, Deadline: deadline}
	key, keyed := s.mutationKey(ctx, lines, tests, mopts)
	if keyed {
		var c cachedMutation
		if s.mutationCache.get(key, &c) {
			return c.mutation()
		}
	}
	out := &Mutation{Fixes: []OperatorFix{}}
	res, err := mutation.Analyze(ctx, s.ws.Module(), lines, tests, mopts)
	if err != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("mutation analysis failed: %v", err))
		return out
	}
	defer func() {
		// Only a whole analysis is kept: one the clock cut short or a
		// build failed may go further next time.
		if keyed && !res.Cut && len(res.BuildErrors) == 0 && ctx.Err() == nil {
			if data, err := jsonMarshal(cachedOf(out)); err == nil {
				s.mutationCache.put(key, data)
			}
		}
	}()
	out.Generated, out.Run, out.Seconds, out.Lines = res.Generated, res.Run, res.Elapsed.Seconds(), res.Lines
	for pkg, msg := range res.BuildErrors {
		out.Notes = append(out.Notes, fmt.Sprintf("the mutants of %s did not build: %s", pkg, msg))
	}
	if out.Run < out.Generated {
		out.Notes = append(out.Notes, fmt.Sprintf("ran %d of %d mutants within the budget", out.Run, out.Generated))
	}
	for _, k := range res.Kills {
		if k.Fix {
			mu := k.Mutant
			out.Fixes = append(out.Fixes, OperatorFix{File: mu.File, Line: mu.Line, Operator: mu.Operator, Change: mu.Change,
				Edited: mu.Edited, Fixed: k.FailToPass})
		}
	}
	return out
}

// mutationFormat changes when the cached mutation analyses' form or
// meaning does.
const mutationFormat = "faultline-mutation-2"

// mutationKey is the cache key of a mutation analysis: the test binaries
// of the packages whose tests it runs (their source and dependencies), the
// lines and tests it was given and its bounds. false when the module
// cannot be listed.
func (s *Service) mutationKey(ctx context.Context, lines []mutation.Loc, tests []mutation.Test, opts mutation.Options) (string, bool) {
	listing, keys, err := s.ws.Module().ListKeys(ctx)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%d\x00%v\x00%v\x00", mutationFormat, opts.MaxMutants, opts.Timeout, opts.RunBudget)
	for _, l := range lines {
		fmt.Fprintf(&b, "%s:%d\x00", l.File, l.Line)
	}
	binaries := map[string]bool{}
	for _, t := range tests {
		fmt.Fprintf(&b, "%s %s %v\x00", t.Package, t.Name, t.Failing)
		if binaries[t.Package] {
			continue
		}
		pkg := listing.Package(t.Package)
		if pkg == nil {
			return "", false
		}
		binaries[t.Package] = true
		fmt.Fprintf(&b, "%s\x00", keys.TestBinary(pkg))
	}
	return testbuild.Bytes([]byte(b.String())), true
}

// cachedMutation is a Mutation with its line scores, which its JSON form
// leaves out.
type cachedMutation struct {
	Mutation Mutation
	Lines    []cachedScores
}

type cachedScores struct {
	Loc    mutation.Loc
	Scores mutation.Scores
}

func cachedOf(m *Mutation) cachedMutation {
	c := cachedMutation{Mutation: *m}
	for l, sc := range m.Lines {
		c.Lines = append(c.Lines, cachedScores{l, sc})
	}
	return c
}

func (c cachedMutation) mutation() *Mutation {
	m := c.Mutation
	m.Cached, m.Lines = true, map[mutation.Loc]mutation.Scores{}
	for _, l := range c.Lines {
		m.Lines[l.Loc] = l.Scores
	}
	if m.Fixes == nil {
		m.Fixes = []OperatorFix{}
	}
	return &m
}

// ScoresAt returns the mutation scores of one line (a path relative to
// the module root); false when no mutant of it ran or m is nil.
func (m *Mutation) ScoresAt(file string, line int) (mutation.Scores, bool) {
	if m == nil {
		return mutation.Scores{}, false
	}
	s, ok := m.Lines[mutation.Loc{File: file, Line: line}]
	return s, ok && s.Mutants > 0
}

// OperatorFixesAt returns the verified operator fixes on one line of a
// file (a path relative to the module root or absolute).
func (l *Localization) OperatorFixesAt(file string, line int) []OperatorFix {
	if l.Mutation == nil {
		return nil
	}
	if filepath.IsAbs(file) {
		if rel, err := filepath.Rel(l.Matrix.Root, file); err == nil {
			file = filepath.ToSlash(rel)
		}
	}
	var out []OperatorFix
	for _, f := range l.Mutation.Fixes {
		if f.File == file && f.Line == line {
			out = append(out, f)
		}
	}
	return out
}

// mutationEvidence gives, when the mutation analysis ran, each mutated
// line's Metallaxis-FL and MUSE scores, its mutants run, and whether it
// hosts a verified operator fix; and every line's reciprocal rank under
// each of the two scores (MutationRanks).
func mutationEvidence(in *evidenceInput, put func(string, int, float64)) error {
	if in.mutation == nil {
		return nil
	}
	n := len(in.lines)
	muse, metallaxis := make([]float64, n), make([]float64, n)
	for i, l := range in.lines {
		s, ok := in.mutation.Lines[mutation.Loc{File: l.File, Line: l.Line}]
		if !ok {
			continue
		}
		if s.Mutants > 0 {
			muse[i], metallaxis[i] = s.MUSE, s.Metallaxis
			put("metallaxis", i, s.Metallaxis)
			put("muse", i, s.MUSE)
			put("mutants", i, float64(s.Mutants))
		}
		if s.Fixes > 0 {
			put("fix", i, 1)
		}
	}
	cols, err := MutationRanks(in.lines, muse, metallaxis)
	if err != nil {
		return err
	}
	for name, col := range cols {
		name, _ = strings.CutPrefix(name, "mutation.")
		for i, v := range col {
			put(name, i, v)
		}
	}
	return nil
}

// MutationRanks gives each line's reciprocal rank (1 for the first line,
// 1/2 for the second, ties at their average position) when the lines are
// ordered by MUSE and by Metallaxis-FL (one score a line), Ochiai's score
// over the lines' counts breaking ties and
// ordering the lines no mutant ran on: the columns
// mutation.muse.reciprocalRank and mutation.metallaxis.reciprocalRank. A
// rank is scale-free where MUSE's scores are not (they shrink with the
// number of kills), and its reciprocal tells the first few lines apart,
// where a share of a long ranking hardly does.
func MutationRanks(lines []RankedLine, muse, metallaxis []float64) (map[string][]float64, error) {
	locs, ochiai := make([]rank.Location, len(lines)), make([]float64, len(lines))
	for i, l := range lines {
		locs[i] = rank.Location{File: l.File, Line: l.Line}
		ochiai[i] = rank.Default().Score(rank.Counts{EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP})
	}
	out := map[string][]float64{}
	for name, scores := range map[string][]float64{"mutation.muse.reciprocalRank": muse, "mutation.metallaxis.reciprocalRank": metallaxis} {
		ranked, err := rank.RankScores(locs, scores, ochiai)
		if err != nil {
			return nil, fmt.Errorf("ranking by %s: %w", name, err)
		}
		col := make([]float64, len(locs))
		for _, r := range ranked {
			col[r.Elem] = 1 / r.Average()
		}
		out[name] = col
	}
	return out, nil
}
