package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// suggestArgs are the arguments of faultline.suggestInputs, as the "Add
// inputs that sharpen the ranking" code action passes them.
type suggestArgs struct {
	URI     string `json:"uri"`     // a file of the target's module
	Package string `json:"package"` // import path of the target's package
	Target  string `json:"target"`  // FuzzX
}

// suggestActions offers, on the declaration of a failing fuzz target in
// the range, to add the inputs faultline suggest -write would add.
// The declarations come from the file's current text.
func suggestActions(s *Server, snap *snapshot.Snapshot, rel string, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	if !strings.HasSuffix(rel, "_test.go") {
		return nil, nil
	}
	f, ok := s.currentFile(filepath.Join(snap.Root, filepath.FromSlash(rel)))
	if !ok {
		return nil, nil
	}
	pkg := snapshot.ImportPath(snap.Base.Matrix.ModulePath, path.Dir(rel))
	kind := protocol.CodeActionKind("source")
	var actions []protocol.CommandOrCodeAction
	for _, decl := range snapshot.TestDecls(f.text) {
		cur := decl.Line - 1
		if !strings.HasPrefix(decl.Name, "Fuzz") || cur < int(p.Range.Start.Line) || cur > int(p.Range.End.Line) {
			continue
		}
		if len(snap.Base.FailingRuns(pkg, decl.Name)) == 0 {
			continue
		}
		raw, err := protocol.Marshal(suggestArgs{URI: string(f.uri), Package: pkg, Target: decl.Name})
		if err != nil {
			return nil, fmt.Errorf("encoding action arguments: %w", err)
		}
		const title = "Add inputs that sharpen the ranking"
		actions = append(actions, &protocol.CodeAction{
			Title:   title,
			Kind:    &kind,
			Command: protocol.Command{Title: title, Command: commandSuggestInputs, Arguments: []protocol.LSPAny{raw}},
		})
	}
	return actions, nil
}

// suggestCommand searches the inputs that sharpen a failing fuzz target's
// ranking through the localization service, adds them to the target's seed
// corpus as faultline suggest -write does, and runs the tests again so the
// ranking includes them. The result is the service's suggestion.
func suggestCommand(ctx context.Context, s *Server, arg json.RawMessage) (any, error) {
	args, err := decodeArg[suggestArgs](commandSuggestInputs, arg)
	if err != nil {
		return nil, err
	}
	if args.URI == "" || args.Target == "" {
		return nil, errorf("%s: give the uri of a file and a fuzz target, as its code action does", commandSuggestInputs)
	}
	snap, _, ok := s.locate(uri.URI(args.URI))
	if !ok {
		return nil, errorf("%s: no results for %s", commandSuggestInputs, args.URI)
	}
	v := s.viewAt(snap.Root)
	if v == nil || v.localizer == nil {
		return nil, errorf("%s: %s has no localization service to search inputs with", commandSuggestInputs, snap.Root)
	}
	if len(snap.Base.FailingRuns(args.Package, args.Target)) == 0 {
		return nil, errorf("%s: %s is not a failing fuzz target of %s", commandSuggestInputs, args.Target, args.Package)
	}
	formula, err := localize.ParseFormula(snap.Settings.Formula)
	if err != nil {
		formula = localize.DefaultFormula() // blockrank, sattar: compared beside op2 and SAT-TAR anyway
	}
	s.consent.give(snap.Root) // asking for inputs is consent to run the target
	prog := s.beginProgress(ctx, "faultline: searching inputs for "+args.Target)
	out, err := v.localizer.Suggest(ctx, snap.Base.Matrix, localize.SuggestOptions{
		Formula: formula, Targets: []string{args.Target}, Packages: []string{args.Package}, Write: true, Memory: snap.Settings.Localize.Memory, TestMemory: snap.Settings.Localize.TestMemory,
	}, nil)
	if err != nil {
		prog.end("failed")
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failed("%s: %v", commandSuggestInputs, err)
	}
	if len(out) == 0 {
		prog.end("nothing to search")
		return nil, failed("%s: %s has no failing entry the search could start from", commandSuggestInputs, args.Target)
	}
	sg := out[0]
	msg := fmt.Sprintf("faultline: %s is %s; %d inputs added to its seed corpus", sg.Target, sg.Status, len(sg.Written))
	if sg.SeveralFaults {
		msg += "; no line is run by every failing entry, so the failures likely come from several faults"
	}
	prog.end(msg)
	s.client.showMessage(protocol.MessageTypeInfo, msg)
	if len(sg.Written) > 0 {
		v.runNow()
	}
	return sg, nil
}
