package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/faultline-go/faultline/internal/fakeeditor"
)

func pipe() (net.Conn, net.Conn) { return net.Pipe() }

// rawClient is the fake editor for tests that write frames byte for byte,
// to send what no well-behaved client would; it reads the server's replies
// in order.
type rawClient struct {
	*fakeeditor.Editor
	seen int           // how many messages of the log next has returned
	wait time.Duration // for each message sent or awaited
}

func startRaw(t testing.TB, opts Options) *rawClient {
	if opts.Trust == nil {
		opts.Trust = testTrustList(t)
	}
	return &rawClient{Editor: fakeeditor.Connect(context.Background(), New(opts).Serve), wait: waitLimit}
}

func (r *rawClient) send(body string) error {
	ctx, cancel := context.WithTimeout(context.Background(), r.wait)
	defer cancel()
	return r.SendRaw(ctx, []byte(body))
}

// next returns the next message from the server.
func (r *rawClient) next() (fakeeditor.Message, error) {
	var m fakeeditor.Message
	err := r.AwaitFor(r.wait, func(log []fakeeditor.Message) bool {
		if len(log) <= r.seen {
			return false
		}
		m = log[r.seen]
		return true
	})
	if err != nil {
		return m, fmt.Errorf("no message from the server: %w", err)
	}
	r.seen++
	if m.Kind == fakeeditor.Garbage {
		return m, fmt.Errorf("server sent %q", m.Body)
	}
	return m, nil
}

// response reads messages until the reply with the given id (as JSON),
// skipping the server's notifications.
func (r *rawClient) response(id string) (fakeeditor.Message, error) {
	for {
		m, err := r.next()
		if err != nil {
			return m, err
		}
		if m.Kind == fakeeditor.Reply && string(m.ID) == id {
			return m, nil
		}
	}
}

// close ends the connection and waits for the server to stop.
func (r *rawClient) close() {
	r.Close()
	select {
	case <-r.Stopped():
	case <-time.After(r.wait):
	}
}

func TestMalformedMessages(t *testing.T) {
	r := startRaw(t, Options{Open: noEngine(t)})
	defer r.close()
	tests := []struct {
		name  string
		frame string
		code  jsonrpc2.Code
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{"binary garbage", "\x00\xff\xfe", -32700},
		{"not an object", `42`, -32600},
		{"no version", `{"id":1,"method":"initialize","params":{}}`, -32600},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"x","result":1}`, -32600},
		{"id of the wrong type", `{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := r.send(tt.frame); err != nil {
				t.Fatal(err)
			}
			m, err := r.response("null")
			if err != nil {
				t.Fatal(err)
			}
			if m.Error == nil || m.Error.Code != tt.code {
				t.Fatalf("got %+v, want error code %d", m, tt.code)
			}
		})
	}
	// The connection survived: a proper request is still answered.
	if err := r.send(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":{}}}`); err != nil {
		t.Fatal(err)
	}
	m, err := r.response("7")
	if err != nil || m.Error != nil {
		t.Fatalf("initialize after malformed input: %+v, %v", m, err)
	}
	if err := r.send(`{"jsonrpc":"2.0","id":8,"method":"shutdown"}`); err != nil {
		t.Fatal(err)
	}
	if m, err := r.response("8"); err != nil || m.Error != nil {
		t.Fatalf("shutdown: %+v, %v", m, err)
	}
}

func TestBatchWithBadMembers(t *testing.T) {
	r := startRaw(t, Options{Open: noEngine(t)})
	defer r.close()
	batch := `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}},42,{"jsonrpc":"2.0","id":2,"method":"nope"}]`
	if err := r.send(batch); err != nil {
		t.Fatal(err)
	}
	// The batch is answered as an array, after any notifications.
	var body []byte
	for {
		m, err := r.next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind == fakeeditor.Batch {
			body = m.Body
			break
		}
	}
	var replies []struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &replies); err != nil {
		t.Fatalf("batch reply %q: %v", body, err)
	}
	codes := map[string]int{}
	for _, m := range replies {
		code := 0
		if m.Error != nil {
			code = m.Error.Code
		}
		codes[string(m.ID)] = code
	}
	if codes["1"] != 0 || codes["null"] == 0 || codes["2"] != -32601 {
		t.Fatalf("batch replies %s", body)
	}
}

func TestCancelRequest(t *testing.T) {
	dir, fake := newFakeModule(t)
	fake.block = true
	r := startRaw(t, Options{Open: fake.open})
	defer r.close()
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":%q,"capabilities":{},"initializationOptions":{"autoRun":false}}}`, "file://"+dir)
	if err := r.send(init); err != nil {
		t.Fatal(err)
	}
	if _, err := r.response("1"); err != nil {
		t.Fatal(err)
	}
	r.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	// Wait until the module is open: the ranking request names its root.
	fake.waitLoaded()
	r.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"faultline.run"}}`)
	fake.waitCollecting()
	// The run is in progress and async: other requests are still answered.
	r.send(`{"jsonrpc":"2.0","id":3,"method":"faultline/ranking","params":{}}`)
	if m, err := r.response("3"); err != nil || m.Error != nil {
		t.Fatalf("ranking during a run: %+v %v", m, err)
	}
	r.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`)
	m, err := r.response("2")
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != -32800 {
		t.Fatalf("cancelled run: got %+v, want RequestCancelled", m)
	}
}
