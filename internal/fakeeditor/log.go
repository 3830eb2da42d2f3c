package fakeeditor

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Kind says what a message from the server is.
type Kind int

const (
	// Notification is a message with a method and no id.
	Notification Kind = iota
	// Request is a message with a method and an id: the editor answers it.
	Request
	// Reply is a message without a method: an answer to a request of the
	// editor's that Call did not await (one sent as a raw frame, or one the
	// server could not read, whose id is null).
	Reply
	// Batch is an array of replies, the answer to a batch.
	Batch
	// Garbage is a frame that is none of the above.
	Garbage
)

// Message is one message from the server, as the log keeps it.
type Message struct {
	At     time.Time // when it arrived
	Kind   Kind
	Method string          // notifications and requests
	ID     json.RawMessage // requests and replies: the id as sent, "null" included
	Params json.RawMessage
	Result json.RawMessage // replies
	Error  *jsonrpc2.Error // replies
	Body   []byte          // the whole frame
}

// decode classifies a frame from the server.
func decode(body []byte) Message {
	m := Message{At: time.Now(), Body: body, Kind: Garbage}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		if json.Valid(t) {
			m.Kind = Batch
		}
		return m
	}
	var wire struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc2.Error `json:"error"`
	}
	if json.Unmarshal(body, &wire) != nil {
		return m
	}
	m.ID, m.Method, m.Params, m.Result, m.Error = wire.ID, wire.Method, wire.Params, wire.Result, wire.Error
	switch {
	case wire.Method != "" && len(wire.ID) == 0:
		m.Kind = Notification
	case wire.Method != "":
		m.Kind = Request
	case len(wire.ID) > 0:
		m.Kind = Reply
	}
	return m
}

// Is reports whether m is a notification or request of method.
func (m Message) Is(method string) bool {
	return (m.Kind == Notification || m.Kind == Request) && m.Method == method
}

// Count returns how many messages of the log are notifications or requests
// of method.
func Count(log []Message, method string) int {
	n := 0
	for _, m := range log {
		if m.Is(method) {
			n++
		}
	}
	return n
}

// Diagnostics returns the diagnostics last published for u in the log, and
// whether any were published at all.
func Diagnostics(log []Message, u uri.URI) ([]protocol.Diagnostic, bool) {
	for i := len(log) - 1; i >= 0; i-- {
		if !log[i].Is(protocol.MethodTextDocumentPublishDiagnostics) {
			continue
		}
		var p protocol.PublishDiagnosticsParams
		if err := protocol.Unmarshal(log[i].Params, &p); err == nil && p.URI == u {
			return p.Diagnostics, true
		}
	}
	return nil, false
}

// Messages returns the texts of the messages of type typ that the log's
// notifications of method (window/logMessage or window/showMessage) carry.
func Messages(log []Message, method string, typ protocol.MessageType) []string {
	var out []string
	for _, m := range log {
		if !m.Is(method) {
			continue
		}
		var p struct {
			Type    protocol.MessageType `json:"type"`
			Message string               `json:"message"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Type == typ {
			out = append(out, p.Message)
		}
	}
	return out
}

// ProgressEnd is the end of a work-done progress the server reported.
type ProgressEnd struct {
	At      time.Time
	Title   string // the title its begin gave
	Message string // the message of its end
}

// ProgressEnds returns the ends of the work-done progress ($/progress) in
// the log, in order.
func ProgressEnds(log []Message) []ProgressEnd {
	var p Progress
	var out []ProgressEnd
	for _, m := range log {
		if end, ok := p.Add(m); ok {
			out = append(out, end)
		}
	}
	return out
}

// Progress follows work-done progress through a log, a message at a time,
// for a reader that does not read the log again from its start.
type Progress struct {
	titles map[string]string // by token
}

// Add reads the next message of the log and returns the end of progress it
// reports, if it reports one.
func (pr *Progress) Add(m Message) (ProgressEnd, bool) {
	if !m.Is(protocol.MethodProgress) {
		return ProgressEnd{}, false
	}
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind    string `json:"kind"`
			Title   string `json:"title"`
			Message string `json:"message"`
		} `json:"value"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return ProgressEnd{}, false
	}
	switch token := string(p.Token); p.Value.Kind {
	case "begin":
		if pr.titles == nil {
			pr.titles = map[string]string{}
		}
		pr.titles[token] = p.Value.Title
	case "end":
		return ProgressEnd{At: m.At, Title: pr.titles[token], Message: p.Value.Message}, true
	}
	return ProgressEnd{}, false
}

// Describe lists a log, one message a line, long ones cut, for a failure
// message.
func Describe(log []Message) string {
	var b strings.Builder
	for _, m := range log {
		line := m.Method + " " + string(m.Params)
		if m.Kind == Reply || m.Kind == Batch || m.Kind == Garbage {
			line = "(reply) " + string(m.Body)
		}
		if len(line) > 300 {
			line = line[:300] + "..."
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
