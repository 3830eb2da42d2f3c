//go:build cgo

// Package angelic plugs faultline's angelic analysis (faultline/analysis)
// into the language server as a server.Provider: after each collection it
// analyzes the failing tests in the background and hands the server the
// angelic values (shown as inlay hints beside their expressions) and the
// fix candidates (offered as "Preview angelic fix" code actions). As a
// server.FixVerifier it runs a candidate's test again with its values
// forced on request ("Verify angelic fix"). It lives apart from package
// server so the server itself does not need the solver.
package angelic

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"faultline/analysis"
	"faultline/internal/testbuild"
	"faultline/server"
)

// Provider runs the angelic analysis on a module's failing tests.
type Provider struct {
	opts     analysis.Options
	maxTests int

	mu     sync.Mutex
	nextID int
	// byRoot holds the verifiable candidates of each module's latest
	// analysis by FixCandidate.ID; an analysis replaces its module's.
	byRoot  map[string]map[string]produced
	modules map[string]*testbuild.Module // by root
}

// produced is a candidate with the test it makes pass.
type produced struct {
	target    analysis.Target
	candidate analysis.Candidate
}

// New returns a provider analyzing at most maxTests failing tests per
// collection (the analysis costs solver time and test runs per test).
func New(opts analysis.Options, maxTests int) *Provider {
	return &Provider{opts: opts, maxTests: max(maxTests, 1), byRoot: make(map[string]map[string]produced), modules: map[string]*testbuild.Module{}}
}

// module returns the module at root, opened once.
func (p *Provider) module(root string) (*testbuild.Module, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.modules[root]; m != nil {
		return m, nil
	}
	m, err := testbuild.Open(root, testbuild.Config{})
	if err != nil {
		return nil, err
	}
	p.modules[root] = m
	return m, nil
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
		p.replace(in.Root, nil)
		return server.Findings{}, nil
	}
	mod, err := p.module(in.Root)
	if err != nil {
		return server.Findings{}, fmt.Errorf("angelic analysis: %w", err)
	}
	results, err := analysis.Analyze(ctx, mod, targets, p.opts)
	if err != nil {
		return server.Findings{}, fmt.Errorf("angelic analysis: %w", err)
	}
	kept := make(map[string]produced)
	f := findings(results, func(r analysis.TestResult, c analysis.Candidate) string {
		if !c.Verifiable() {
			return ""
		}
		id := p.newID()
		kept[id] = produced{analysis.Target{Package: r.Package, Test: r.Test}, c}
		return id
	})
	p.replace(in.Root, kept)
	return f, nil
}

func (p *Provider) newID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	return "angelic-" + strconv.Itoa(p.nextID)
}

func (p *Provider) replace(root string, kept map[string]produced) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byRoot[root] = kept
}

// VerifyFix implements server.FixVerifier: it runs the candidate's test
// with its angelic values forced, refusing when the sources changed since
// the analysis.
func (p *Provider) VerifyFix(ctx context.Context, root, id string) (server.FixVerification, error) {
	p.mu.Lock()
	c, ok := p.byRoot[root][id]
	p.mu.Unlock()
	if !ok {
		return server.FixVerification{}, fmt.Errorf("fix candidate %q is not from the latest angelic analysis of %s", id, root)
	}
	mod, err := p.module(root)
	if err != nil {
		return server.FixVerification{}, err
	}
	v, err := analysis.Verify(ctx, mod, c.target, c.candidate, p.opts)
	if err != nil {
		return server.FixVerification{}, fmt.Errorf("verifying %s: %w", c.target.Test, err)
	}
	return server.FixVerification{Test: v.Test, Passed: v.Passed, Duration: v.Duration, Output: v.Output}, nil
}

// findings turns the analysis' candidates into what the server shows: each
// location's angelic value just after its expression, and each candidate
// as an edit that writes the angelic values in place of the expressions,
// named by the ID that register gives it ("" when it cannot be verified).
func findings(results []analysis.TestResult, register func(analysis.TestResult, analysis.Candidate) string) server.Findings {
	var f server.Findings
	seen := make(map[server.AngelicValue]bool)
	for _, r := range results {
		for _, c := range r.Candidates {
			if len(c.Locations) == 0 {
				continue
			}
			var changes []string
			fix := server.FixCandidate{File: c.Locations[0].File, Line: c.Locations[0].Line, Verified: c.Verified,
				Test: r.Test, ID: register(r, c)}
			for _, l := range c.Locations {
				v := server.AngelicValue{File: l.File, Line: l.EndLine, Col: l.EndCol, Label: "⇒ " + l.Angelic}
				if !seen[v] {
					seen[v] = true
					f.Values = append(f.Values, v)
				}
				changes = append(changes, fmt.Sprintf("%s ⇒ %s", l.Expr, l.Angelic))
				fix.Edits = append(fix.Edits, server.Edit{
					File: l.File, StartLine: l.Line, StartCol: l.Col, EndLine: l.EndLine, EndCol: l.EndCol, NewText: l.Angelic,
					Expr: l.Expr, Original: l.Original,
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
