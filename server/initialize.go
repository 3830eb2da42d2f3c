package server

import (
	"context"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Commands the server executes (workspace/executeCommand).
const (
	commandRun              = "faultline.run"
	commandLocalizeTest     = "faultline.localizeTest"
	commandShowFailingTests = "faultline.showFailingTests"
	commandVerifyFix        = "faultline.verifyFix"
	commandSuggestInputs    = "faultline.suggestInputs"
	commandExplainTest      = "faultline.explainTest"
)

func initialize(ctx context.Context, s *Server, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stateNew {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}
	s.caps = readClientCaps(&p.Capabilities)
	st, err := s.settings.Apply(p.InitializationOptions)
	s.settings = st
	s.reportSettings("initializationOptions", err)
	s.folders = initialFolders(p)
	s.state = stateInitialized

	yes := true
	incremental := protocol.TextDocumentSyncKindIncremental
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: protocol.PositionEncodingKind(s.caps.encoding),
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &yes,
				Change:    &incremental,
				Save:      &protocol.SaveOptions{},
			},
			HoverProvider:     protocol.Boolean(true),
			InlayHintProvider: protocol.Boolean(true),
			CodeLensProvider:  &protocol.CodeLensOptions{},
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix},
			},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{
				Commands: []string{commandRun, commandLocalizeTest, commandShowFailingTests, commandVerifyFix, commandSuggestInputs, commandExplainTest},
			},
			Workspace: &protocol.WorkspaceOptions{
				WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
					Supported:           &yes,
					ChangeNotifications: protocol.Boolean(true),
				},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "faultline"},
	}
	if s.opts.Version != "" {
		res.ServerInfo.Version = protocol.NewOptional(s.opts.Version)
	}
	return res, nil
}

func readClientCaps(c *protocol.ClientCapabilities) clientCaps {
	caps := clientCaps{encoding: encUTF16}
	if c.Window != nil && c.Window.WorkDoneProgress != nil {
		caps.workDoneProgress = *c.Window.WorkDoneProgress
	}
	if w := c.Workspace; w != nil {
		caps.configuration = w.Configuration != nil && *w.Configuration
		caps.inlayHintRefresh = w.InlayHint != nil && w.InlayHint.RefreshSupport != nil && *w.InlayHint.RefreshSupport
		caps.codeLensRefresh = w.CodeLens != nil && w.CodeLens.RefreshSupport != nil && *w.CodeLens.RefreshSupport
	}
	caps.extensions = readExtensions(c.Experimental)
	if c.General != nil && slices.Contains(c.General.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		caps.encoding = encUTF8 // no conversion needed: Go source is UTF-8
	}
	return caps
}

// initialFolders lists the workspace folders as paths: the workspace folders
// when given, else the root URI, else the deprecated root path.
func initialFolders(p *protocol.InitializeParams) []string {
	var out []string
	if folders, ok := p.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if path, ok := folderPath(f.URI); ok {
				out = append(out, path)
			}
		}
		return out
	}
	//lint:ignore SA1019 clients that predate workspace folders name the root by rootUri
	if p.RootURI != nil {
		//lint:ignore SA1019 as above
		if path, ok := folderPath(*p.RootURI); ok {
			return []string{path}
		}
	}
	//lint:ignore SA1019 the oldest clients send only rootPath
	if root, ok := p.RootPath.Get(); ok && root != "" {
		return []string{root}
	}
	return nil
}

// folderPath turns a file URI into a path; other schemes are not on disk.
func folderPath(u uri.URI) (string, bool) {
	if !u.IsFile() {
		return "", false
	}
	return u.FsPath(), true
}
