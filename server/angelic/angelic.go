// Package angelic plugs faultline's angelic analysis (faultline/analysis)
// into the language server as a server.Provider: after each collection it
// analyzes the failing tests in the background and hands the server the
// angelic values (shown as inlay hints beside their expressions) and the
// fix candidates (offered as "Preview angelic fix" code actions). It lives
// apart from package server so the server itself does not need the solver.
package angelic

import (
	"context"
	"fmt"
	"strings"

	"faultline/analysis"
	"faultline/server"
)

// Provider runs the angelic analysis on a module's failing tests.
type Provider struct {
	opts     analysis.Options
	maxTests int
}

// New returns a provider analyzing at most maxTests failing tests per
// collection (the analysis costs solver time and test runs per test).
func New(opts analysis.Options, maxTests int) *Provider {
	return &Provider{opts: opts, maxTests: max(maxTests, 1)}
}

// Name implements server.Provider.
func (p *Provider) Name() string { return "angelic analysis" }

// Analyze implements server.Provider.
func (p *Provider) Analyze(ctx context.Context, in server.AnalysisInput) (server.Findings, error) {
	var targets []analysis.Target
	for _, t := range in.Matrix.Tests {
		if t.Verdict.Failing() && len(targets) < p.maxTests {
			targets = append(targets, analysis.Target{Package: t.Package, Test: t.Name})
		}
	}
	if len(targets) == 0 {
		return server.Findings{}, nil
	}
	results, err := analysis.Analyze(ctx, in.Root, targets, p.opts)
	if err != nil {
		return server.Findings{}, fmt.Errorf("angelic analysis: %w", err)
	}
	return findings(results), nil
}

// findings turns the analysis' candidates into what the server shows: each
// location's angelic value just after its expression, and each candidate
// as an edit that writes the angelic values in place of the expressions.
func findings(results []analysis.TestResult) server.Findings {
	var f server.Findings
	seen := make(map[server.AngelicValue]bool)
	for _, r := range results {
		for _, c := range r.Candidates {
			if len(c.Locations) == 0 {
				continue
			}
			var changes []string
			fix := server.FixCandidate{File: c.Locations[0].File, Line: c.Locations[0].Line, Verified: c.Verified}
			for _, l := range c.Locations {
				v := server.AngelicValue{File: l.File, Line: l.EndLine, Col: l.EndCol, Label: "⇒ " + l.Angelic}
				if !seen[v] {
					seen[v] = true
					f.Values = append(f.Values, v)
				}
				changes = append(changes, fmt.Sprintf("%s ⇒ %s", l.Expr, l.Angelic))
				fix.Edits = append(fix.Edits, server.Edit{
					File: l.File, StartLine: l.Line, StartCol: l.Col, EndLine: l.EndLine, EndCol: l.EndCol, NewText: l.Angelic,
				})
			}
			verdict := "passes under the analysis"
			if c.Verified {
				verdict = "passes when forced"
			}
			fix.Title = fmt.Sprintf("%s (%s %s)", strings.Join(changes, ", "), r.Test, verdict)
			f.Fixes = append(f.Fixes, fix)
		}
	}
	return f
}
