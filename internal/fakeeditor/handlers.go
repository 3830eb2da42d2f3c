package fakeeditor

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// defaultHandlers answer the requests faultline's server sends, as a
// compliant editor that asks its user nothing would.
func (e *Editor) defaultHandlers() map[string]Handler {
	none := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	return map[string]Handler{
		protocol.MethodWorkspaceConfiguration:       e.configuration,
		protocol.MethodWindowWorkDoneProgressCreate: none,
		protocol.MethodWorkspaceInlayHintRefresh:    none,
		protocol.MethodWorkspaceCodeLensRefresh:     none,
		protocol.MethodWindowShowMessageRequest:     FirstAction,
	}
}

// SetHandler makes h answer the server's requests of method from now on;
// a nil h makes the editor answer them MethodNotFound.
func (e *Editor) SetHandler(method string, h Handler) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if h == nil {
		delete(e.handlers, method)
		return
	}
	e.handlers[method] = h
}

// SetSettings sets what the editor answers to workspace/configuration for
// every item asked for (at first null: no settings).
func (e *Editor) SetSettings(settings json.RawMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.settings = settings
}

// configuration answers workspace/configuration with the settings.
func (e *Editor) configuration(_ context.Context, raw json.RawMessage) (any, error) {
	var p protocol.ConfigurationParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("workspace/configuration: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]json.RawMessage, len(p.Items))
	for i := range out {
		out[i] = e.settings
	}
	return out, nil
}

// FirstAction answers window/showMessageRequest by choosing its first
// action, as a user who clicks the first button does (null when it offers
// none). It is the editor's default.
func FirstAction(_ context.Context, raw json.RawMessage) (any, error) {
	var p protocol.ShowMessageRequestParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("window/showMessageRequest: %w", err)
	}
	if len(p.Actions) == 0 {
		return nil, nil
	}
	return p.Actions[0], nil
}

// Dismiss answers window/showMessageRequest with null, as a user who closes
// the question without choosing does.
func Dismiss(context.Context, json.RawMessage) (any, error) { return nil, nil }

// Answer makes a window/showMessageRequest handler from a function that
// picks the action (nil: the question is dismissed).
func Answer(pick func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error)) Handler {
	return func(_ context.Context, raw json.RawMessage) (any, error) {
		var p protocol.ShowMessageRequestParams
		if err := protocol.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("window/showMessageRequest: %w", err)
		}
		item, err := pick(p)
		if item == nil || err != nil {
			return nil, err
		}
		return item, nil
	}
}
