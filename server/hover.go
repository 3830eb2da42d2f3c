package server

import (
	"context"

	"go.lsp.dev/protocol"
)

// hover explains a ranked line: its spectrum counts and its score under
// every formula.
func hover(ctx context.Context, s *Server, p *protocol.HoverParams) (*protocol.Hover, error) {
	snap, rel, ok := s.locate(p.TextDocument.URI)
	if !ok || snap.ranking.Failed == 0 || snap.buildErrors != "" {
		return nil, nil
	}
	_, ft, ok := s.textOf(snap, rel)
	if !ok {
		return nil, nil
	}
	cur := int(p.Position.Line)
	line, ok := ft.collected(cur)
	if !ok {
		return nil, nil
	}
	i, ok := snap.at[fileLine{rel, line}]
	if !ok || snap.ranking.Lines[i].EF == 0 {
		return nil, nil
	}
	r := lineRange(ft, cur, s.encoding())
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: snap.hoverText(i)},
		Range:    &r,
	}, nil
}
