package server

import (
	"bytes"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// lineRange spans the text of current line i, leading indentation excluded.
func lineRange(ft *snapshot.FileText, i int, enc encoding) protocol.Range {
	line := ft.Lines[i]
	indent := len(line) - len(bytes.TrimLeft(line, " \t"))
	return protocol.Range{
		Start: protocol.Position{Line: uint32(i), Character: enc.width(line[:indent])},
		End:   protocol.Position{Line: uint32(i), Character: enc.width(line)},
	}
}

// severity grades a suspicious line by the best rank of its tie group.
func severity(l localize.RankedLine) protocol.DiagnosticSeverity {
	if l.Tie[0] <= 3 {
		return protocol.DiagnosticSeverityWarning
	}
	return protocol.DiagnosticSeverityInformation
}

// diagnostic builds the diagnostic of ranked line i shown at current line cur.
func (s *Server) diagnostic(snap *snapshot.Snapshot, i int, ft *snapshot.FileText, cur int, enc encoding) protocol.Diagnostic {
	l := snap.Ranking.Lines[i]
	d := protocol.Diagnostic{
		Range:    lineRange(ft, cur, enc),
		Severity: severity(l),
		Code:     protocol.String("suspicious"),
		Source:   protocol.NewOptional("faultline"),
		Message:  protocol.String(snap.DiagnosticMessage(i)),
		Data:     fmt.Appendf(nil, `{"score":%s,"rank":%d}`, jsonNumber(l.Score), l.Rank),
	}
	for n, t := range snap.FailingTests(i) {
		if n == 5 {
			break
		}
		if loc, ok := s.testLocation(snap, t, enc); ok {
			d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: loc,
				Message:  fmt.Sprintf("%s fails (%s) and runs this line", t.Name, t.Verdict),
			})
		}
	}
	return d
}

// testLocation points at where a failing test reported its failure, or else
// at the test function.
func (s *Server) testLocation(snap *snapshot.Snapshot, t *localize.TestRun, enc encoding) (protocol.Location, bool) {
	file, line := "", 0
	if len(t.FailSites) > 0 {
		file, line = t.FailSites[0].File, t.FailSites[0].Line
	} else if fn, ok := snap.TestFunc(t); ok {
		file, line = fn.File, fn.Line
	}
	if file == "" {
		return protocol.Location{}, false
	}
	f, ft, ok := s.textOf(snap, file)
	if !ok {
		return protocol.Location{}, false
	}
	cur, ok := ft.Current(line)
	if !ok {
		return protocol.Location{}, false
	}
	return protocol.Location{URI: f.uri, Range: lineRange(ft, cur, enc)}, true
}

// fileURI is the URI of snapshot file rel.
func fileURI(snap *snapshot.Snapshot, rel string) uri.URI {
	return uri.File(filepath.Join(snap.Root, filepath.FromSlash(rel)))
}

// jsonNumber formats a score as a JSON number (scores are always finite).
func jsonNumber(x float64) string { return fmt.Sprintf("%.6g", x) }
