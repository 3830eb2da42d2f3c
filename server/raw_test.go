package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

func pipe() (net.Conn, net.Conn) { return net.Pipe() }

// rawClient writes frames byte for byte, to send what no well-behaved
// client library would.
type rawClient struct {
	conn   net.Conn
	in     *bufio.Reader
	done   chan error
	frames chan []byte // bodies read from the server, in order
	err    error       // why frames was closed
	wait   time.Duration
}

// startRaw starts a server and a reader that drains its output as it comes:
// the pipe is unbuffered, so an unread notification would stall the server.
func startRaw(t testing.TB, opts Options) *rawClient {
	serverEnd, clientEnd := net.Pipe()
	r := &rawClient{conn: clientEnd, in: bufio.NewReader(clientEnd), done: make(chan error, 1), frames: make(chan []byte, 1024), wait: waitLimit}
	if opts.Trust == nil {
		opts.Trust = testTrustList(t)
	}
	go func() { r.done <- New(opts).Serve(context.Background(), serverEnd) }()
	go func() {
		defer close(r.frames)
		for {
			body, err := r.readFrame()
			if err != nil {
				r.err = err
				return
			}
			r.frames <- body
		}
	}()
	return r
}

func (r *rawClient) send(body string) error {
	r.conn.SetWriteDeadline(time.Now().Add(r.wait))
	_, err := fmt.Fprintf(r.conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// message is a decoded frame from the server.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// readFrame reads one frame body.
func (r *rawClient) readFrame() ([]byte, error) {
	length := -1
	for {
		line, err := r.in.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.in, body); err != nil {
		return nil, err
	}
	return body, nil
}

// nextBody returns the next frame body from the server.
func (r *rawClient) nextBody() ([]byte, error) {
	select {
	case body, ok := <-r.frames:
		if !ok {
			return nil, fmt.Errorf("connection closed: %v", r.err)
		}
		return body, nil
	case <-time.After(r.wait):
		return nil, fmt.Errorf("no message from the server in %s", r.wait)
	}
}

// next reads the next message from the server.
func (r *rawClient) next() (message, error) {
	body, err := r.nextBody()
	if err != nil {
		return message{}, err
	}
	var m message
	if bytes.HasPrefix(body, []byte("[")) {
		var batch []message
		if err := json.Unmarshal(body, &batch); err != nil {
			return message{}, fmt.Errorf("server sent %q: %w", body, err)
		}
		return message{Method: "(batch reply)"}, nil
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, fmt.Errorf("server sent %q: %w", body, err)
	}
	return m, nil
}

// response reads frames until the response with the given id (as JSON),
// skipping the server's notifications.
func (r *rawClient) response(id string) (message, error) {
	for {
		m, err := r.next()
		if err != nil {
			return m, err
		}
		if m.Method == "" && string(m.ID) == id {
			return m, nil
		}
	}
}

// close ends the connection and waits for the server to stop.
func (r *rawClient) close() {
	r.conn.Close()
	select {
	case <-r.done:
	case <-time.After(r.wait):
	}
}

func TestMalformedMessages(t *testing.T) {
	r := startRaw(t, Options{Open: noEngine(t)})
	defer r.close()
	tests := []struct {
		name  string
		frame string
		code  int
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
		b, err := r.nextBody()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(b), "[") {
			body = b
			break
		}
	}
	var replies []message
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
	r.send(`{"jsonrpc":"2.0","id":3,"method":"github.com/faultline-go/faultline/ranking","params":{}}`)
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
