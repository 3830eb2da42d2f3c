package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// explainArgs are the arguments of faultline.explainTest.
type explainArgs struct {
	URI     string `json:"uri"`     // a file of the test's module
	Test    string `json:"test"`    // the failing leaf test, as go test names it
	Package string `json:"package"` // its import path; "" when the name is unique
	Base    string `json:"base"`    // the revision to compare with; "" bisects
}

// explainCommand explains a failing test from the git history, as faultline
// explain does: the result is the explanation (its changes and cause tree,
// in the working tree's lines as the tests last ran), and a message names
// the root changes. It runs tests, so asking is consent.
func explainCommand(ctx context.Context, s *Server, arg json.RawMessage) (any, error) {
	args, err := decodeArg[explainArgs](commandExplainTest, arg)
	if err != nil {
		return nil, err
	}
	if args.URI == "" || args.Test == "" {
		return nil, errorf("%s: give the uri of a file in the module and the failing test's name", commandExplainTest)
	}
	snap, _, ok := s.locate(uri.URI(args.URI))
	if !ok {
		return nil, errorf("%s: no results for %s", commandExplainTest, args.URI)
	}
	target, ok := snap.FailingLeaf(args.Package, args.Test)
	if !ok {
		return nil, errorf("%s: %s is not a failing test of %s in the latest results", commandExplainTest, args.Test, snap.Root)
	}
	v := s.viewAt(snap.Root)
	if v == nil || v.localizer == nil {
		return nil, errorf("%s: %s has no localization service to explain with", commandExplainTest, snap.Root)
	}
	s.consent.give(snap.Root)
	prog := s.beginProgress(ctx, "faultline: explaining "+target.Test+" from the git history")
	exs, err := v.localizer.Explain(ctx, snap.Matrix, localize.ExplainOptions{Base: args.Base, Tests: []localize.Target{target},
		Memory: snap.Settings.Localize.Memory, TestMemory: snap.Settings.Localize.TestMemory, Progress: func(msg string) { prog.report(msg, 0) }}, nil)
	if err == nil && len(exs.Tests) != 1 {
		err = fmt.Errorf("no explanation came back for %s", target.Test)
	}
	if err != nil {
		prog.end("failed")
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failed("%s: %v", commandExplainTest, err)
	}
	ex := exs.Tests[0]
	prog.end("done")
	v.mu.Lock()
	if v.explained == nil {
		v.explained = map[localize.Target]localize.Explanation{}
	}
	v.explained[target] = ex
	v.mu.Unlock()
	s.diagnose(v)
	s.client.showMessage(protocol.MessageTypeInfo, explainSummary(ex))
	return ex, nil
}

// firstLeaf is the first of the failing leaf tests (indices into the
// matrix's tests) that ran, in the matrix's order.
func firstLeaf(snap *snapshot.Snapshot, failing map[int]bool) (*localize.TestRun, bool) {
	for i := range snap.Matrix.Tests {
		if t := &snap.Matrix.Tests[i]; failing[i] && t.Verdict != localize.VerdictBuildError {
			return t, true
		}
	}
	return nil, false
}

// hasHistory reports whether the module at root can be explained from a
// git history, asking the service once per view.
func (s *Server) hasHistory(ctx context.Context, root string) bool {
	v := s.viewAt(root)
	if v == nil || v.localizer == nil {
		return false
	}
	v.mu.Lock()
	known := v.history
	v.mu.Unlock()
	if known == nil {
		ok := v.localizer.CheckHistory(ctx) == nil
		if ctx.Err() != nil {
			return false
		}
		known = &ok
		v.mu.Lock()
		v.history = known
		v.mu.Unlock()
	}
	return *known
}

// explainSummary is the one-line message of an explanation.
func explainSummary(ex localize.Explanation) string {
	if ex.Message != "" {
		return fmt.Sprintf("faultline: %s: %s", ex.Test, ex.Message)
	}
	var root, aux []string
	for _, c := range ex.Changes {
		at := fmt.Sprintf("%s:%d", c.File, c.Line)
		if c.Role == "root" {
			root = append(root, at)
		} else {
			aux = append(aux, at)
		}
	}
	base := ex.Base
	if len(base) > 12 {
		base = base[:12]
	}
	msg := fmt.Sprintf("faultline: %s passes at %s; reverting %s makes it pass again", ex.Test, base, strings.Join(root, ", "))
	if len(aux) > 0 {
		msg += fmt.Sprintf(" (with %s, which the revert needs to compile)", strings.Join(aux, ", "))
	}
	if ex.NoRoot != "" {
		msg += fmt.Sprintf("; found by delta debugging, as %s", ex.NoRoot.Text())
	}
	return msg
}

// explanationDiagnostics adds the changes of explanations to out: a
// warning on each root change, with the cause chain as related
// information, and an information on each auxiliary change. A change is
// shown only while its file is as it was explained (the explanation's
// content hash), and a cause step only while its file is: an edited file
// shows nothing of it rather than a wrong line.
func (s *Server) explanationDiagnostics(root string, explained []localize.Explanation, out map[uri.URI]fileDiagnostics) {
	slices.SortFunc(explained, func(a, b localize.Explanation) int {
		return strings.Compare(a.Package+" "+a.Test, b.Package+" "+b.Test)
	})
	unchanged := func(ex localize.Explanation, rel string) (openFile, bool) {
		f, ok := s.currentFile(filepath.Join(root, filepath.FromSlash(rel)))
		return f, ok && ex.Hashes[rel] != "" && string(f.hash) == ex.Hashes[rel]
	}
	for _, ex := range explained {
		var related []protocol.DiagnosticRelatedInformation
		for _, st := range ex.Cause {
			if f, ok := unchanged(ex, st.File); ok {
				related = append(related, protocol.DiagnosticRelatedInformation{
					Location: protocol.Location{URI: f.uri, Range: wholeLines(st.Line, st.EndLine)},
					Message:  fmt.Sprintf("%s:%d %s", st.File, st.Line, st.Why),
				})
			}
		}
		for _, c := range ex.Changes {
			f, ok := unchanged(ex, c.File)
			if !ok {
				continue
			}
			d := protocol.Diagnostic{
				Range:  wholeLines(c.Line, c.EndLine),
				Code:   protocol.String("regression"),
				Source: protocol.NewOptional("faultline"),
			}
			was := strings.TrimSpace(c.Old)
			if was == "" {
				was = "nothing"
			}
			if c.Role == "root" {
				revert := "reverting it"
				if others := otherRoots(ex, c); len(others) > 0 {
					revert = "reverting it together with " + strings.Join(others, ", ")
				}
				d.Severity = protocol.DiagnosticSeverityWarning
				d.Message = protocol.String(fmt.Sprintf("this change since %s makes %s fail: %s makes the test pass (was: %s)", shortCommit(ex.Base), ex.Test, revert, was))
				if cm := c.Commit; cm != nil {
					d.Message = protocol.String(fmt.Sprintf("this change at %s, from commit %s of %s %q, makes %s fail: %s makes the test pass (was: %s)",
						c.Where(), shortCommit(cm.Hash), cm.Date, cm.Subject, ex.Test, revert, was))
				}
				d.RelatedInformation = related
			} else {
				d.Severity = protocol.DiagnosticSeverityInformation
				d.Message = protocol.String(fmt.Sprintf("the revert of the change that makes %s fail needs this change reverted too, to compile (was: %s)", ex.Test, was))
			}
			fd := out[f.uri]
			fd.version = f.version
			fd.diags = append(fd.diags, d)
			out[f.uri] = fd
		}
	}
}

// revertActions offers, on a root change of an explanation within r of
// file rel, to preview the revert that made the test pass: the root and
// auxiliary changes put back to the base's text, while their files are as
// explained.
func (s *Server) revertActions(snap *snapshot.Snapshot, rel string, r protocol.Range) []protocol.CommandOrCodeAction {
	v := s.viewAt(snap.Root)
	if v == nil {
		return nil
	}
	v.mu.Lock()
	explained := slices.Collect(maps.Values(v.explained))
	v.mu.Unlock()
	slices.SortFunc(explained, func(a, b localize.Explanation) int {
		return strings.Compare(a.Package+" "+a.Test, b.Package+" "+b.Test)
	})
	kind := protocol.CodeActionKindQuickFix
	var actions []protocol.CommandOrCodeAction
	for _, ex := range explained {
		if !slices.ContainsFunc(ex.Changes, func(c localize.Change) bool {
			return c.Role == "root" && c.File == rel && c.Line-1 <= int(r.End.Line) && max(c.EndLine, c.Line)-1 >= int(r.Start.Line)
		}) {
			continue
		}
		changes := map[uri.URI][]protocol.TextEdit{}
		complete := true
		for _, c := range ex.Changes {
			f, ok := s.currentFile(filepath.Join(snap.Root, filepath.FromSlash(c.File)))
			if !ok || ex.Hashes[c.File] == "" || string(f.hash) != ex.Hashes[c.File] {
				complete = false
				break
			}
			changes[f.uri] = append(changes[f.uri], protocol.TextEdit{Range: wholeLines(c.Line, c.EndLine), NewText: c.Old})
		}
		if !complete {
			continue
		}
		actions = append(actions, &protocol.CodeAction{
			Title: fmt.Sprintf("Preview revert of the responsible change: %s passed at %s (%d changes)", ex.Test, shortCommit(ex.Base), len(ex.Changes)),
			Kind:  &kind,
			Edit:  &protocol.WorkspaceEdit{Changes: changes},
		})
	}
	return actions
}

// otherRoots are the root changes of ex other than c, as file:line.
func otherRoots(ex localize.Explanation, c localize.Change) []string {
	var out []string
	for _, o := range ex.Changes {
		if o.Role == "root" && o != c {
			out = append(out, fmt.Sprintf("%s:%d", o.File, o.Line))
		}
	}
	return out
}

// wholeLines is the range of 1-based lines first..last, from the start of
// the first to the start of the line after the last; a change that only
// deletes (last < first) is an empty range at the start of first.
func wholeLines(first, last int) protocol.Range {
	start := protocol.Position{Line: uint32(max(first-1, 0))}
	if last < first {
		return protocol.Range{Start: start, End: start}
	}
	return protocol.Range{Start: start, End: protocol.Position{Line: uint32(last)}}
}

func shortCommit(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
