package server

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// severalFaults warns on each fuzz target whose failing entries share no
// executed line: no one line can be the fault of all of them, so they
// likely meet several faults, which spectrum formulas rank poorly
// together (and sfo has no shared line to narrow).
func (s *Server) severalFaults(ctx context.Context, snap *snapshot.Snapshot, out map[uri.URI]fileDiagnostics) {
	m := snap.Base.Matrix
	enc := s.encoding()
	type target struct {
		pkg, name string
		first     *localize.TestRun
		shared    map[snapshot.FileLine]bool
		failing   int
	}
	var order []*target
	byName := map[[2]string]*target{}
	for i := range m.Tests {
		t := &m.Tests[i]
		top := snapshot.TopLevel(t.Name)
		if !t.Verdict.Failing() || !strings.HasPrefix(top, "Fuzz") || top == t.Name {
			continue
		}
		lines := map[snapshot.FileLine]bool{}
		for b := range t.Hits.All() {
			for _, l := range m.Blocks[b].Lines {
				lines[snapshot.FileLine{File: m.Blocks[b].File, Line: l}] = true
			}
		}
		k := [2]string{t.Package, top}
		tg := byName[k]
		if tg == nil {
			tg = &target{pkg: t.Package, name: top, first: t, shared: lines}
			byName[k] = tg
			order = append(order, tg)
		} else {
			for l := range tg.shared {
				if !lines[l] {
					delete(tg.shared, l)
				}
			}
		}
		tg.failing++
	}
	for _, tg := range order {
		if ctx.Err() != nil {
			return
		}
		if tg.failing < 2 || len(tg.shared) > 0 {
			continue
		}
		fn, ok := snap.TestFunc(tg.first)
		if !ok {
			continue
		}
		f, ft, ok := s.textOf(snap, fn.File)
		if !ok {
			continue
		}
		cur, ok := ft.Current(fn.Line)
		if !ok {
			continue
		}
		fd := out[f.uri]
		fd.version = f.version
		fd.diags = append(fd.diags, protocol.Diagnostic{
			Range:    lineRange(ft, cur, enc),
			Severity: protocol.DiagnosticSeverityWarning,
			Code:     protocol.String("several-faults"),
			Source:   protocol.NewOptional("faultline"),
			Message: protocol.String(fmt.Sprintf("no line is run by all %d failing entries of %s: they likely meet several faults, "+
				"which rank poorly together (fix one first, or rank one entry alone: faultline rank -run '%s/NAME')", tg.failing, tg.name, tg.name)),
		})
		out[f.uri] = fd
	}
}
