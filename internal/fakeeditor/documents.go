package fakeeditor

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Initialize performs the handshake: initialize with params, then
// initialized.
func (e *Editor) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	var res protocol.InitializeResult
	if err := e.Call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		return nil, err
	}
	if err := e.Notify(protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		return nil, err
	}
	return &res, nil
}

// Shutdown asks the server to shut down and then to exit.
func (e *Editor) Shutdown(ctx context.Context) error {
	if err := e.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
		return err
	}
	return e.Notify(protocol.MethodExit, nil)
}

// OpenFile opens the document u, holding text, at version 1.
func (e *Editor) OpenFile(u uri.URI, text string) error {
	e.mu.Lock()
	if _, open := e.versions[u]; open {
		e.mu.Unlock()
		return fmt.Errorf("opening %s: already open", u)
	}
	e.versions[u] = 1
	e.mu.Unlock()
	return e.Notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageKindGo, Version: 1, Text: text},
	})
}

// ChangeFile replaces the whole text of the open document u, at its next
// version.
func (e *Editor) ChangeFile(u uri.URI, text string) error {
	e.mu.Lock()
	version, open := e.versions[u]
	if !open {
		e.mu.Unlock()
		return fmt.Errorf("changing %s: not open", u)
	}
	version++
	e.versions[u] = version
	e.mu.Unlock()
	return e.Notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	})
}

// SaveFile tells the server that u was saved; the file on disk is the
// caller's to write. It need not be open: a file saved by another program
// is saved too.
func (e *Editor) SaveFile(u uri.URI) error {
	return e.Notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
	})
}

// CloseFile closes the open document u.
func (e *Editor) CloseFile(u uri.URI) error {
	e.mu.Lock()
	delete(e.versions, u)
	e.mu.Unlock()
	return e.Notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
	})
}
