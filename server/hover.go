package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline-go/faultline/internal/snapshot"
	"go.lsp.dev/protocol"
)

// hover explains a line: when ranked, its spectrum counts and its score
// under every formula; when a fix candidate changes it, what the angelic
// values mean; when a mutant of it is a verified operator fix, that fix.
func hover(ctx context.Context, s *Server, p *protocol.HoverParams) (*protocol.Hover, error) {
	snap, rel, ok := s.locate(p.TextDocument.URI)
	if !ok || snap.Ranking.Failed == 0 || snap.BuildErrors != "" {
		return nil, nil
	}
	_, ft, ok := s.textOf(snap, rel)
	if !ok {
		return nil, nil
	}
	cur := int(p.Position.Line)
	line, ok := ft.Collected(cur)
	if !ok {
		return nil, nil
	}
	var parts []string
	if i, ok := snap.At[snapshot.FileLine{File: rel, Line: line}]; ok && snap.Ranking.Lines[i].EF > 0 {
		parts = append(parts, snap.HoverText(i))
	}
	if text := angelicHoverText(snap.Findings.FixesTouching(rel, line), rel, line); text != "" {
		parts = append(parts, text)
	}
	if text := operatorHoverText(snap.Findings.OperatorFixesAt(rel, line)); text != "" {
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	r := lineRange(ft, cur, s.encoding())
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: strings.Join(parts, "\n---\n\n")},
		Range:    &r,
	}, nil
}

// angelicHoverText explains the fix candidates changing a collected line,
// each as an edit of its source line: "`x > 2` → `x > 1` makes TestX pass
// (verified by a forced run)", one line per candidate.
func angelicHoverText(fixes []snapshot.FixCandidate, rel string, line int) string {
	var b strings.Builder
	seen := make(map[string]bool)
	for _, fix := range fixes {
		var changes []string
		for _, e := range fix.Shown {
			where := ""
			if e.File != rel || e.Line > line || line > e.EndLine {
				where = fmt.Sprintf(" at %s:%d", e.File, e.Line)
			}
			changes = append(changes, fmt.Sprintf("`%s` → `%s`%s", e.Before, e.After, where))
		}
		sentence := fmt.Sprintf("- %s %s\n", strings.Join(changes, " and "), fix.Effect())
		if !seen[sentence] {
			seen[sentence] = true
			b.WriteString(sentence)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "**angelic fixes** (a demonstration of what would make the test pass, not a fix to apply as is)\n\n" + b.String()
}

// operatorHoverText lists the verified operator fixes of a line, each as
// an edit of the line: "`return a * b` → `return a / b` (`* → /`) makes
// the failing test that runs the line pass ...".
func operatorHoverText(fixes []snapshot.OperatorFix) string {
	if len(fixes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**verified operator fixes** (mutants of this line; the \"Apply verified operator fix\" action previews one)\n\n")
	for _, f := range fixes {
		fmt.Fprintf(&b, "- %s %s\n", f.Shown(), f.Effect())
	}
	return b.String()
}
