package server

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// showTestsArgs are the arguments of faultline.showFailingTests.
type showTestsArgs struct {
	URI  string `json:"uri"`
	Line int    `json:"line"` // 0-based line in the buffer, as in LSP positions
}

// codeAction offers, on ranked lines in the range, to show the failing tests
// that run the line and, where a provider found one, to preview a fix or
// apply a verified operator fix; on a failing fuzz target, to add the
// inputs that sharpen the ranking.
func codeAction(ctx context.Context, s *Server, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	snap, rel, ok := s.locate(p.TextDocument.URI)
	if !ok || snap.Ranking.Failed == 0 || snap.BuildErrors != "" {
		return nil, nil
	}
	actions, err := suggestActions(s, snap, rel, p)
	if err != nil {
		return nil, err
	}
	_, ft, ok := s.textOf(snap, rel)
	if !ok {
		return actions, nil
	}
	kind := protocol.CodeActionKindQuickFix
	for cur := int(p.Range.Start.Line); cur <= int(p.Range.End.Line) && cur < len(ft.Lines); cur++ {
		line, ok := ft.Collected(cur)
		if !ok {
			continue
		}
		i, ok := snap.At[snapshot.FileLine{File: rel, Line: line}]
		if !ok || snap.Ranking.Lines[i].EF == 0 {
			continue
		}
		raw, err := protocol.Marshal(showTestsArgs{URI: string(p.TextDocument.URI), Line: cur})
		if err != nil {
			return nil, fmt.Errorf("encoding action arguments: %w", err)
		}
		title := fmt.Sprintf("Show failing tests that run this line (%d)", snap.Ranking.Lines[i].EF)
		actions = append(actions, &protocol.CodeAction{
			Title:   title,
			Kind:    &kind,
			Command: protocol.Command{Title: title, Command: commandShowFailingTests, Arguments: []protocol.LSPAny{raw}},
		})
		for _, fix := range snap.Findings.FixesAt(rel, line) {
			edit, ok := s.fixEdit(snap, fix)
			if !ok {
				continue
			}
			actions = append(actions, &protocol.CodeAction{
				Title: "Preview angelic fix (demonstration): " + fix.Title,
				Kind:  &kind,
				Edit:  edit,
			})
			if _, _, ok := snap.Findings.Fix(fix.ID); ok {
				action, err := verifyFixAction(p.TextDocument.URI, fix, kind)
				if err != nil {
					return nil, err
				}
				actions = append(actions, action)
			}
		}
		for _, fix := range snap.Findings.OperatorFixesAt(rel, line) {
			edit, ok := s.bufferEdit(snap, []snapshot.Edit{fix.Edit})
			if !ok {
				continue
			}
			actions = append(actions, &protocol.CodeAction{
				Title: "Apply verified operator fix: " + fix.Title(),
				Kind:  &kind,
				Edit:  edit,
			})
		}
	}
	return append(actions, s.revertActions(snap, rel, p.Range)...), nil
}

// fixEdit maps a fix candidate onto the current buffers; a candidate whose
// lines were edited since collection is dropped.
func (s *Server) fixEdit(snap *snapshot.Snapshot, fix snapshot.FixCandidate) (*protocol.WorkspaceEdit, bool) {
	for _, e := range fix.Edits {
		if !writable(e.NewText) {
			return nil, false
		}
	}
	return s.bufferEdit(snap, fix.Edits)
}

// bufferEdit maps edits of the collected source onto the current buffers;
// false when a line they edit was changed since collection.
func (s *Server) bufferEdit(snap *snapshot.Snapshot, edits []snapshot.Edit) (*protocol.WorkspaceEdit, bool) {
	enc := s.encoding()
	changes := make(map[uri.URI][]protocol.TextEdit)
	for _, e := range edits {
		f, ft, ok := s.textOf(snap, e.File)
		if !ok {
			return nil, false
		}
		start, ok1 := ft.Current(e.StartLine)
		end, ok2 := ft.Current(e.EndLine)
		if !ok1 || !ok2 {
			return nil, false
		}
		pos := func(line, col int) protocol.Position {
			text := ft.Lines[line]
			col = min(max(col-1, 0), len(text))
			return protocol.Position{Line: uint32(line), Character: enc.width(text[:col])}
		}
		changes[f.uri] = append(changes[f.uri], protocol.TextEdit{
			Range:   protocol.Range{Start: pos(start, e.StartCol), End: pos(end, e.EndCol)},
			NewText: e.NewText,
		})
	}
	return &protocol.WorkspaceEdit{Changes: changes}, true
}

// writable reports whether an angelic value can stand in the source as it
// is (see localize.Writable).
func writable(text string) bool { return localize.Writable(text) }
