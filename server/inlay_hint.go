package server

import (
	"context"

	"github.com/faultline-go/faultline/internal/snapshot"
	"go.lsp.dev/protocol"
)

// hintKey identifies the hints of one file: results of one snapshot (and its
// findings so far) shown on one content of the file.
type hintKey struct {
	root    string
	seq     uint64
	rel     string
	content snapshot.ContentHash
}

// inlayHint shows score and rank at the end of each suspicious line in the
// requested range, and the providers' angelic values beside expressions.
// A file's hints are computed once per content and cached under its hash.
func inlayHint(ctx context.Context, s *Server, p *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	snap, rel, ok := s.locate(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	f, ft, ok := s.textOf(snap, rel)
	if !ok {
		return nil, nil
	}
	key := hintKey{snap.Root, snap.Seq, rel, f.hash}
	all, ok := s.hints.Get(key)
	if !ok {
		all = s.fileHints(snap, rel, ft)
		s.hints.Put(key, all)
	}
	var hints []protocol.InlayHint
	for _, h := range all {
		if h.Position.Line >= p.Range.Start.Line && h.Position.Line <= p.Range.End.Line {
			hints = append(hints, h)
		}
	}
	return hints, nil
}

// fileHints computes every hint of one file.
func (s *Server) fileHints(snap *snapshot.Snapshot, rel string, ft *snapshot.FileText) []protocol.InlayHint {
	enc := s.encoding()
	yes := true
	var hints []protocol.InlayHint
	for _, i := range snap.FlaggedIn[rel] {
		l := snap.Ranking.Lines[i]
		cur, ok := ft.Current(l.Line)
		if !ok {
			continue
		}
		hints = append(hints, protocol.InlayHint{
			Position:    protocol.Position{Line: uint32(cur), Character: enc.width(ft.Lines[cur])},
			Label:       protocol.String(snapshot.HintLabel(l)),
			Tooltip:     protocol.String(snap.DiagnosticMessage(i)),
			PaddingLeft: &yes,
		})
	}
	for _, av := range snap.Findings.ValuesIn(rel) {
		cur, ok := ft.Current(av.Line)
		if !ok {
			continue
		}
		col := min(max(av.Col-1, 0), len(ft.Lines[cur]))
		hints = append(hints, protocol.InlayHint{
			Position:    protocol.Position{Line: uint32(cur), Character: enc.width(ft.Lines[cur][:col])},
			Label:       protocol.String(av.Label),
			Tooltip:     protocol.String("angelic value: the failing tests pass if this expression takes this value"),
			PaddingLeft: &yes,
		})
	}
	return hints
}
