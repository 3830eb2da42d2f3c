package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/faultline-go/faultline/internal/localize"
)

// tiesInReportOrder gives each of the case's report lines its tie group
// in r.
func tiesInReportOrder(c *scoredCase, r *localize.Ranking) [][2]int {
	index := map[lineKey]int{}
	for i, l := range c.Report.Lines {
		index[lineKey{l.File, l.Line}] = i
	}
	ties := make([][2]int, len(c.Report.Lines))
	for _, l := range r.Lines {
		ties[index[lineKey{l.File, l.Line}]] = l.Tie
	}
	return ties
}

// withSeededSources gives the seeded cases the functions of their modules'
// source, dirs being comma-separated module roots (seeded faults change
// operators in place, so the pristine source's functions are the faulty
// version's). A case whose module is not among them keeps none.
func withSeededSources(cases []*scoredCase, dirs string) error {
	if dirs == "" {
		return nil
	}
	byModule := map[string]localize.ModuleSource{}
	for _, dir := range strings.Split(dirs, ",") {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			return fmt.Errorf("-seeded-src: %w", err)
		}
		mod := modfile.ModulePath(data)
		if mod == "" {
			return fmt.Errorf("-seeded-src: %s/go.mod names no module", dir)
		}
		byModule[mod] = localize.SourceOf(dir)
	}
	for _, c := range cases {
		if c.Seeded {
			c.Funcs, c.Reads, c.Spans = byModule[c.Group].Functions, byModule[c.Group].Reads, byModule[c.Group].Spans
		}
	}
	return nil
}

// functionCases are the cases keep selects, each with its functions in
// place of its lines: a function's evidence its features under the
// aggregates (localize.FunctionFeatures) over the lines linesOf gives, in
// rank order; its faulty functions those holding a faulty line, the
// functions in the order of their best lines; for learning a
// function-level model.
func functionCases(cases []*scoredCase, keep func(*scoredCase) bool, aggregates []string, linesOf func(*scoredCase) ([]localize.RankedLine, error)) ([]*scoredCase, error) {
	var out []*scoredCase
	for _, c := range cases {
		if c.Report == nil || c.Funcs == nil || !keep(c) {
			continue
		}
		lines, err := linesOf(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.ID, err)
		}
		fns, features, err := localize.FunctionFeatures(lines, c.Funcs, aggregates)
		if err != nil {
			return nil, err
		}
		fc := &scoredCase{ID: c.ID, Group: c.Group, Seeded: c.Seeded, HeldOut: c.HeldOut, Faulty: map[lineKey]bool{},
			Report: &localize.RankReport{Ranking: localize.Ranking{Formula: c.Report.Formula}}}
		for k, fn := range fns {
			fc.Report.Lines = append(fc.Report.Lines, localize.RankedLine{File: fn.File, Line: fn.Line, Evidence: features[k]})
		}
		for l := range c.Faulty {
			fn := c.Funcs(l.File, l.Line)
			fc.Faulty[lineKey{fn.File, fn.Line}] = true
		}
		out = append(out, fc)
	}
	return out, nil
}

// reportLines are a case's lines in its report's order.
func reportLines(c *scoredCase) ([]localize.RankedLine, error) { return c.Report.Lines, nil }
