package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// command runs one workspace/executeCommand command on its first argument.
type command func(ctx context.Context, s *Server, arg json.RawMessage) (any, error)

func commands() map[string]command {
	return map[string]command{
		commandRun:              runCommand,
		commandLocalizeTest:     localizeCommand,
		commandShowFailingTests: showFailingTestsCommand,
		commandVerifyFix:        verifyFixCommand,
		commandSuggestInputs:    suggestCommand,
		commandExplainTest:      explainCommand,
	}
}

// executeCommand dispatches to the command registry. It is asynchronous: a
// run waits for the tests.
func executeCommand(ctx context.Context, s *Server, p *protocol.ExecuteCommandParams) (any, error) {
	cmd, ok := commands()[p.Command]
	if !ok {
		return nil, errorf("unknown command %q", p.Command)
	}
	var arg json.RawMessage
	if len(p.Arguments) > 0 {
		arg = json.RawMessage(p.Arguments[0])
	}
	return cmd(ctx, s, arg)
}

// decodeArg decodes a command's object argument; an absent one decodes as
// the zero value.
func decodeArg[T any](command string, arg json.RawMessage) (T, error) {
	var v T
	if len(arg) == 0 || string(arg) == "null" {
		return v, nil
	}
	if err := json.Unmarshal(arg, &v); err != nil {
		return v, errorf("%s: invalid argument: %v", command, err)
	}
	return v, nil
}

type runArgs struct {
	URI string `json:"uri"` // restrict to the module of this file; "" runs all
}

type runResult struct {
	Modules []moduleResult `json:"modules"`
}

type moduleResult struct {
	Root        string `json:"root"`
	Failed      int    `json:"failed"`
	Passed      int    `json:"passed"`
	BuildErrors int    `json:"buildErrors"`
	Error       string `json:"error,omitempty"`
}

// runCommand collects now and waits for the result: the on-demand run when
// automatic runs are off.
func runCommand(ctx context.Context, s *Server, arg json.RawMessage) (any, error) {
	args, err := decodeArg[runArgs](commandRun, arg)
	if err != nil {
		return nil, err
	}
	views := s.allViews()
	if args.URI != "" {
		path, ok := folderPath(uri.URI(args.URI))
		v := s.viewOf(path)
		if !ok || v == nil {
			return nil, errorf("%s: %s is not in a module of the workspace", commandRun, args.URI)
		}
		views = []*view{v}
	}
	var runs []*run
	for _, v := range views {
		s.consent.give(v.root) // asking for a run is consent
		runs = append(runs, v.runNow())
	}
	var res runResult
	for i, r := range runs {
		select {
		case <-r.done:
		case <-ctx.Done():
			r.cancel()
			return nil, ctx.Err()
		}
		mr := moduleResult{Root: views[i].root}
		switch {
		case r.err != nil:
			mr.Error = r.err.Error()
		case r.matrix != nil:
			mr.BuildErrors = len(r.matrix.BuildErrors)
			for _, t := range r.matrix.Tests {
				switch {
				case t.Verdict.Failing():
					mr.Failed++
				case t.Verdict == localize.VerdictPass:
					mr.Passed++
				}
			}
		}
		res.Modules = append(res.Modules, mr)
	}
	return res, nil
}

// localizeCommand restricts the ranking of a module to one failing test, or
// lifts the restriction when the test is "".
func localizeCommand(ctx context.Context, s *Server, arg json.RawMessage) (any, error) {
	args, err := decodeArg[localizeArgs](commandLocalizeTest, arg)
	if err != nil {
		return nil, err
	}
	var v *view
	if args.URI != "" {
		if path, ok := folderPath(uri.URI(args.URI)); ok {
			v = s.viewOf(path)
		}
	} else if views := s.allViews(); len(views) == 1 {
		v = views[0]
	}
	if v == nil {
		return nil, errorf("%s: give the uri of a file in the test's module", commandLocalizeTest)
	}
	if args.Test != "" {
		snap := v.snapshot()
		if snap == nil || !snap.Base.HasFailing(args.Package, args.Test) {
			return nil, errorf("%s: %s is not a failing test of %s", commandLocalizeTest, args.Test, v.root)
		}
	}
	v.setFocus(args.Test)
	return rankingOf([]*view{v}, s), nil
}

type failingTest struct {
	Name    string `json:"name"`
	Package string `json:"package"`
	Verdict string `json:"verdict"`
	URI     string `json:"uri,omitempty"`
	Line    int    `json:"line,omitempty"` // 0-based, where it failed or is declared
	Message string `json:"message,omitempty"`
}

// showFailingTestsCommand lists the failing tests that run a line, in a
// message and as the result.
func showFailingTestsCommand(ctx context.Context, s *Server, arg json.RawMessage) (any, error) {
	args, err := decodeArg[showTestsArgs](commandShowFailingTests, arg)
	if err != nil {
		return nil, err
	}
	snap, rel, ok := s.locate(uri.URI(args.URI))
	if !ok {
		return nil, errorf("%s: no results for %s", commandShowFailingTests, args.URI)
	}
	_, ft, ok := s.textOf(snap, rel)
	if !ok {
		return nil, errorf("%s: %s changed since the tests ran", commandShowFailingTests, args.URI)
	}
	line, ok := ft.Collected(args.Line)
	i, ranked := snap.At[snapshot.FileLine{File: rel, Line: line}]
	if !ok || !ranked {
		return nil, errorf("%s: line %d of %s was not run by the tests, or was edited since", commandShowFailingTests, args.Line+1, args.URI)
	}
	enc := s.encoding()
	var out []failingTest
	var names []string
	for _, t := range snap.FailingTests(i) {
		ft := failingTest{Name: t.Name, Package: t.Package, Verdict: string(t.Verdict), Message: firstLine(t.Output)}
		if loc, ok := s.testLocation(snap, t, enc); ok {
			ft.URI, ft.Line = string(loc.URI), int(loc.Range.Start.Line)
		}
		out = append(out, ft)
		names = append(names, t.Name)
	}
	s.client.showMessage(protocol.MessageTypeInfo,
		fmt.Sprintf("faultline: %s:%d is run by %d failing tests: %s", rel, line, len(names), strings.Join(names, ", ")))
	return out, nil
}

// firstLine is the first non-blank line of a test's output.
func firstLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "=== RUN") {
			return l
		}
	}
	return ""
}
