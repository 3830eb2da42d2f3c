package server

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// FuzzMessages sends one arbitrary message body to an initialized server and
// checks that it survives: a request sent afterwards is still answered.
// Found inputs are kept under testdata/fuzz/FuzzMessages.
func FuzzMessages(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.go"},"position":{"line":1,"character":2}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.go","languageId":"go","version":1,"text":"package x\n"}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///x.go","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"text":"y"}]}}`,
		`{"jsonrpc":"2.0","id":"s","method":"workspace/executeCommand","params":{"command":"faultline.showFailingTests","arguments":[{"uri":"file:///x.go","line":-1}]}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99999999999}}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"faultline":{"top":-1,"formula":7}}}}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeWorkspaceFolders","params":{"event":{"added":[{"uri":"untitled:x","name":"x"}],"removed":null}}}`,
		`[{"jsonrpc":"2.0","id":3,"method":"faultline/ranking","params":{}},{}]`,
		`{"jsonrpc":"2.0","id":4,"method":"textDocument/inlayHint","params":{"textDocument":{"uri":"file:///x.go"},"range":{"start":{"line":4294967295,"character":0},"end":{"line":0,"character":0}}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","id":6,"result":null}`,
		`[]`,
		`{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) == 0 {
			return // an empty frame is a framing error, which ends any connection
		}
		r := startRaw(t, Options{Open: noEngine(t)})
		defer r.close()
		r.wait = 10 * time.Second // a hang is a finding, and must be reported as one
		if err := r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"capabilities":{}}}`); err != nil {
			t.Fatal(err)
		}
		if _, err := r.response(`"init"`); err != nil {
			t.Fatal(err)
		}
		if err := r.send(string(body)); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(body, []byte("exit")) {
			return // the server may legitimately be gone
		}
		if err := r.send(`{"jsonrpc":"2.0","id":"final","method":"faultline/ranking","params":{}}`); err != nil {
			t.Fatalf("server gone after %q: %v", body, err)
		}
		m, err := r.response(`"final"`)
		if err != nil {
			t.Fatalf("no answer after %q: %v", body, err)
		}
		if m.Error == nil && !json.Valid(m.Result) {
			t.Fatalf("invalid result after %q: %s", body, m.Result)
		}
	})
}
