package server

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/faultline-go/faultline/internal/snapshot"
	"go.lsp.dev/protocol"
)

// localizeArgs are the arguments of faultline.localizeTest.
type localizeArgs struct {
	Test    string `json:"test"`    // top-level test name; "" clears the localization
	Package string `json:"package"` // import path of its package
	URI     string `json:"uri"`     // a file of its module
}

// codeLens puts a lens on each failing test function of a test file: how
// many suspicious lines and fix candidates the test leads to, and a command
// to localize from that test alone.
func codeLens(ctx context.Context, s *Server, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	snap, rel, ok := s.locate(p.TextDocument.URI)
	if !ok || !strings.HasSuffix(rel, "_test.go") {
		return nil, nil
	}
	f, ft, ok := s.textOf(snap, rel)
	if !ok {
		return nil, nil
	}
	base := snap.Base
	pkg := snapshot.ImportPath(base.Matrix.ModulePath, path.Dir(rel))
	enc := s.encoding()
	var lenses []protocol.CodeLens
	for _, decl := range snapshot.TestDecls(f.text) {
		failing := base.FailingRuns(pkg, decl.Name)
		if len(failing) == 0 {
			continue
		}
		lines := base.LinesRunBy(failing)
		title := fmt.Sprintf("faultline: %d failing · %d suspicious lines", len(failing), len(lines))
		if n := base.Findings.Count(lines); n > 0 {
			title += fmt.Sprintf(" · %d fix candidates", n)
		}
		args := localizeArgs{Test: decl.Name, Package: pkg, URI: string(f.uri)}
		if snap.Focus == decl.Name {
			title = "faultline: localized to this test · show all failing tests"
			args.Test = ""
		} else {
			title += " · localize from this test"
		}
		raw, err := protocol.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("encoding lens arguments: %w", err)
		}
		cur := decl.Line - 1
		lenses = append(lenses, protocol.CodeLens{
			Range:   lineRange(ft, cur, enc),
			Command: protocol.Command{Title: title, Command: commandLocalizeTest, Arguments: []protocol.LSPAny{raw}},
		})
		if leaf, ok := firstLeaf(base, failing); ok && s.hasHistory(ctx, snap.Root) {
			raw, err := protocol.Marshal(explainArgs{URI: string(f.uri), Test: leaf.Name, Package: leaf.Package})
			if err != nil {
				return nil, fmt.Errorf("encoding lens arguments: %w", err)
			}
			title := "faultline: explain " + leaf.Name + " from the git history"
			lenses = append(lenses, protocol.CodeLens{
				Range:   lineRange(ft, cur, enc),
				Command: protocol.Command{Title: title, Command: commandExplainTest, Arguments: []protocol.LSPAny{raw}},
			})
		}
	}
	return lenses, nil
}
