package server

import (
	"context"

	"go.lsp.dev/protocol"
)

// inlayHint shows score and rank at the end of each suspicious line in the
// requested range, and the providers' angelic values beside expressions.
func inlayHint(ctx context.Context, s *Server, p *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	snap, rel, ok := s.locate(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	_, ft, ok := s.textOf(snap, rel)
	if !ok {
		return nil, nil
	}
	enc := s.encoding()
	yes := true
	inRange := func(cur int) bool { return uint32(cur) >= p.Range.Start.Line && uint32(cur) <= p.Range.End.Line }
	var hints []protocol.InlayHint
	for _, i := range snap.flaggedIn[rel] {
		l := snap.ranking.Lines[i]
		cur, ok := ft.current(l.Line)
		if !ok || !inRange(cur) {
			continue
		}
		hints = append(hints, protocol.InlayHint{
			Position:    protocol.Position{Line: uint32(cur), Character: enc.width(ft.lines[cur])},
			Label:       protocol.String(hintLabel(l)),
			Tooltip:     protocol.String(snap.diagnosticMessage(i)),
			PaddingLeft: &yes,
		})
	}
	for _, av := range snap.findings.valuesIn(rel) {
		cur, ok := ft.current(av.Line)
		if !ok || !inRange(cur) {
			continue
		}
		col := min(max(av.Col-1, 0), len(ft.lines[cur]))
		hints = append(hints, protocol.InlayHint{
			Position:    protocol.Position{Line: uint32(cur), Character: enc.width(ft.lines[cur][:col])},
			Label:       protocol.String(av.Label),
			Tooltip:     protocol.String("angelic value: the failing tests pass if this expression takes this value"),
			PaddingLeft: &yes,
		})
	}
	return hints, nil
}
