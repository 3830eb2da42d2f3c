package localize

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/faultline-go/faultline/analysis/mutation"
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
	mopts := mutation.Options{MaxMutants: opts.Mutants, Timeout: 2 * time.Second,
		RunBudget: time.Duration(min(failing, opts.MaxAnalyzed)) * opts.Budget, Deadline: deadline}
	out := &Mutation{Fixes: []OperatorFix{}}
	res, err := mutation.Analyze(ctx, s.ws.Module(), lines, tests, mopts)
	if err != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("mutation analysis failed: %v", err))
		return out
	}
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
// hosts a verified operator fix.
func mutationEvidence(in *evidenceInput, put func(string, int, float64)) error {
	if in.mutation == nil {
		return nil
	}
	for i, l := range in.lines {
		s, ok := in.mutation.Lines[mutation.Loc{File: l.File, Line: l.Line}]
		if !ok {
			continue
		}
		put("metallaxis", i, s.Metallaxis)
		put("muse", i, s.MUSE)
		put("mutants", i, float64(s.Mutants))
		if s.Fixes > 0 {
			put("fix", i, 1)
		}
	}
	return nil
}
