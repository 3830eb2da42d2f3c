package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/snapshot"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// verifyFixArgs are the arguments of faultline.verifyFix, as the "Verify
// angelic fix" code action passes them.
type verifyFixArgs struct {
	URI string `json:"uri"` // a file of the candidate's module
	ID  string `json:"id"`  // FixCandidate.ID
}

// verifyFixResult is faultline.verifyFix's answer.
type verifyFixResult struct {
	Test       string   `json:"test"`
	Passed     bool     `json:"passed"`
	DurationMs int64    `json:"durationMs"`
	Forced     []string `json:"forced"` // "file:line expr = value"
	Output     string   `json:"output"`
}

// verifyFixCommand runs a fix candidate's failing test with its values
// forced, through the provider that found it, and reports the outcome in a
// message and as the result. A candidate whose files changed since the
// tests ran is refused: its values were computed for the old code.
func verifyFixCommand(ctx context.Context, s *Server, arg json.RawMessage) (any, error) {
	args, err := decodeArg[verifyFixArgs](commandVerifyFix, arg)
	if err != nil {
		return nil, err
	}
	if args.URI == "" || args.ID == "" {
		return nil, errorf("%s: give the uri of a file and the id of a fix candidate, as its code action does", commandVerifyFix)
	}
	snap, _, ok := s.locate(uri.URI(args.URI))
	if !ok {
		return nil, errorf("%s: no results for %s", commandVerifyFix, args.URI)
	}
	fix, cand, ok := snap.Findings.Fix(args.ID)
	if !ok {
		return nil, errorf("%s: no fix candidate %q in the latest results of %s; ask for code actions again", commandVerifyFix, args.ID, snap.Root)
	}
	v := s.viewAt(snap.Root)
	if v == nil || v.localizer == nil {
		return nil, errorf("%s: %s has no angelic analysis to verify %q with", commandVerifyFix, snap.Root, args.ID)
	}
	if file, changed := s.changedSince(snap, fix); changed {
		return nil, failed("%s: %s changed since the tests ran, so the candidate may no longer apply; save and run the tests again", commandVerifyFix, file)
	}
	s.consent.give(snap.Root) // asking for a verifying run is consent
	forced := forcedValues(fix)
	prog := s.beginProgress(ctx, "faultline: verifying an angelic fix")
	ver, err := v.localizer.Verify(ctx, cand.Target, cand.Candidate, snap.Settings.Localize)
	if err != nil {
		prog.end("failed")
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failed("%s: %v", commandVerifyFix, err)
	}
	res := verifyFixResult{Test: ver.Test, Passed: ver.Passed, DurationMs: ver.Duration.Milliseconds(), Forced: forced, Output: ver.Output}
	values := strings.Join(forced, ", ")
	if ver.Passed {
		prog.end("passed")
		s.client.showMessage(protocol.MessageTypeInfo, fmt.Sprintf("faultline: %s passes with %s forced (run took %s)", ver.Test, values, ver.Duration.Round(time.Millisecond)))
	} else {
		prog.end("failed")
		msg := fmt.Sprintf("faultline: %s still fails with %s forced (run took %s)", ver.Test, values, ver.Duration.Round(time.Millisecond))
		if last := lastLine(ver.Output); last != "" {
			msg += ": " + last
		}
		s.client.showMessage(protocol.MessageTypeWarning, msg)
	}
	return res, nil
}

// verifyFixAction is the code action beside a fix's preview that runs
// faultline.verifyFix on it.
func verifyFixAction(u uri.URI, fix snapshot.FixCandidate, kind protocol.CodeActionKind) (*protocol.CodeAction, error) {
	raw, err := protocol.Marshal(verifyFixArgs{URI: string(u), ID: fix.ID})
	if err != nil {
		return nil, fmt.Errorf("encoding action arguments: %w", err)
	}
	title := "Verify angelic fix (rerun the test with these values forced): " + fix.Title
	return &protocol.CodeAction{
		Title:   title,
		Kind:    &kind,
		Command: protocol.Command{Title: title, Command: commandVerifyFix, Arguments: []protocol.LSPAny{raw}},
	}, nil
}

// changedSince reports a file of the candidate whose buffer or disk content
// differs from what the tests ran on.
func (s *Server) changedSince(snap *snapshot.Snapshot, fix snapshot.FixCandidate) (string, bool) {
	files := []string{fix.File}
	for _, e := range fix.Edits {
		files = append(files, e.File)
	}
	for _, rel := range files {
		collected, ok := snap.Hashes[rel]
		if !ok {
			collected = snapshot.CollectedContent(snap.Root, rel, snap.Matrix.FileHashes[rel], s.cache)
		}
		f, ok := s.currentFile(filepath.Join(snap.Root, filepath.FromSlash(rel)))
		if !ok || collected == "" || f.hash != collected {
			return rel, true
		}
	}
	return "", false
}

// forcedValues describes the values a candidate forces.
func forcedValues(fix snapshot.FixCandidate) []string {
	var out []string
	for _, e := range fix.Edits {
		out = append(out, fmt.Sprintf("%s:%d %s = %s", e.File, e.StartLine, e.ExprText(), e.NewText))
	}
	return out
}

// lastLine is the last non-blank line of a test's output.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "--- ") {
			return l
		}
	}
	return ""
}

// failed is the error of a request that was well-formed but could not be
// carried out; its message is for the user.
func failed(format string, args ...any) error {
	return &jsonrpc2.Error{Code: jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), Message: fmt.Sprintf(format, args...)}
}
