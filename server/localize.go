package server

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"

	"github.com/faultline-go/faultline/internal/localize"
)

// localize starts the localization of the view's current results in the
// background, when the angelic or mutants setting is on or the formula is
// SAT-TAR's (whose cores come from the service) and a test fails: the service
// takes cached analyses at once and runs the others one failing test at a
// time, and every state it reaches becomes a snapshot, so that diagnostics,
// hints, lenses and the ranking view follow the combined order as it
// forms. A newer result or a settings change cancels it.
func (v *view) localize() {
	st := v.srv.currentSettings()
	v.mu.Lock()
	if v.analysis != nil {
		v.analysis()
		v.analysis = nil
	}
	m := v.matrix
	v.mu.Unlock()
	if v.localizer == nil || m == nil || !st.Localizes() || !hasFailure(m) {
		return
	}
	if v.mayRun(deferredWork{analysis: true}) != nil {
		return // until the user agrees
	}
	ctx, cancel := context.WithCancel(v.ctx)
	v.mu.Lock()
	v.analysis = cancel
	v.mu.Unlock()
	if !v.srv.startAnalysis() {
		return
	}
	v.srv.spawn("the angelic analysis of "+v.root, func() {
		defer v.srv.analyses.Done()
		title := "faultline: angelic analysis" // the mutants run with it
		if !st.Angelic {
			title = "faultline: SAT-TAR's cores" // what else Localizes asks for
		}
		p := v.srv.beginProgress(ctx, title)
		start := time.Now()
		defer func() { v.srv.trace.phase(v.root, "analysis", time.Since(start), "") }()
		loc, err := v.localizer.Localize(ctx, m, st.LocalizeOptions(), func(l *localize.Localization) {
			if a := l.Angelic; a != nil && a.Analyzed+a.Pending > 0 {
				p.report(fmt.Sprintf("%d of %d failing tests analysed", a.Analyzed, a.Analyzed+a.Pending), 100*a.Analyzed/(a.Analyzed+a.Pending))
			}
			v.localized(m, l)
		})
		switch {
		case ctx.Err() != nil:
			p.end("cancelled: newer results arrived")
		case err != nil:
			p.end("failed")
			v.srv.client.logf(protocol.MessageTypeWarning, "%s: the angelic analysis failed: %v", v.root, err)
		default:
			if loc.Angelic == nil {
				v.localized(m, loc) // progress sees only analyses
			}
			p.end(angelicSummary(loc))
			if st := loc.SatTar; st != nil {
				for _, n := range st.Notes {
					v.srv.client.logf(protocol.MessageTypeInfo, "%s: SAT-TAR: %s", v.root, n)
				}
			}
			if a := loc.Angelic; a != nil {
				if a.Unavailable != "" {
					v.srv.unavailable(a.Unavailable)
				}
				for _, n := range a.Notes {
					v.srv.client.logf(protocol.MessageTypeInfo, "%s: %s", v.root, n)
				}
			}
		}
	})
}

// localized takes a new state of the localization of m.
func (v *view) localized(m *localize.Matrix, l *localize.Localization) {
	v.mu.Lock()
	if v.matrix != m || v.ctx.Err() != nil {
		v.mu.Unlock()
		return // results have moved on
	}
	v.loc = l
	v.mu.Unlock()
	v.rebuild()
}

func hasFailure(m *localize.Matrix) bool {
	for _, t := range m.Tests {
		if t.Verdict.Failing() {
			return true
		}
	}
	return false
}

// angelicSummary says in a few words what the analysis found.
func angelicSummary(l *localize.Localization) string {
	a := l.Angelic
	if a == nil && l.SatTar != nil {
		return fmt.Sprintf("%d cores", len(l.SatTar.Cores))
	}
	if a == nil && l.Mutation != nil {
		return fmt.Sprintf("%d of %d mutants run, %d verified operator fixes", l.Mutation.Run, l.Mutation.Generated, len(l.Mutation.Fixes))
	}
	if a == nil {
		return "no failing test"
	}
	if a.Unavailable != "" {
		return "not available"
	}
	s := fmt.Sprintf("%d of %d failing tests analysed, %d verified fixes", a.Analyzed, a.Failing, len(a.Fixes))
	if m := l.Mutation; m != nil {
		s += fmt.Sprintf(", %d verified operator fixes", len(m.Fixes))
	}
	return s
}

// unavailable says once per session why no angelic analysis runs.
func (s *Server) unavailable(why string) {
	s.unavailableOnce.Do(func() {
		s.client.logf(protocol.MessageTypeWarning, "faultline: serving formula rankings only: %s", why)
	})
}
