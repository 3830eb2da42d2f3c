package fakeeditor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// limit only turns a hang into a failure.
const limit = time.Minute

// stubEnv, when set, makes the test binary the stub server on its standard
// input and output, exiting with status 3, for the tests of Start.
const stubEnv = "FAKEEDITOR_STUB_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stubEnv) != "" {
		stdio := struct {
			io.Reader
			io.Writer
			io.Closer
		}{os.Stdin, os.Stdout, os.Stdout}
		if err := stub(context.Background(), stdio); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// stubMessage is a message the stub server reads.
type stubMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// stub is a server scripted by the methods it is sent: echo answers with
// its params, fail with an error, tell sends the notification its params
// describe, ask sends the request its params describe and answers with the
// editor's reply, batch answers with an array, last answers with the
// params of the last notification of the method it names; a frame that is not JSON is
// answered with a parse error of id null, and exit ends the stub.
func stub(_ context.Context, rwc io.ReadWriteCloser) error {
	defer rwc.Close()
	in := bufio.NewReader(rwc)
	last := map[string]json.RawMessage{} // params of notifications, by method
	write := func(format string, args ...any) error {
		return writeFrame(rwc, fmt.Appendf(nil, format, args...))
	}
	for {
		body, err := readFrame(in)
		if err != nil {
			return nil
		}
		var m stubMessage
		if json.Unmarshal(body, &m) != nil {
			err = write(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
		} else {
			switch m.Method {
			case "echo":
				err = write(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, m.Params)
			case "fail":
				err = write(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"failed"}}`, m.ID)
			case "tell":
				var n struct{ Method, Params string }
				json.Unmarshal(m.Params, &n)
				if err = write(`{"jsonrpc":"2.0","method":%q,"params":%s}`, n.Method, n.Params); err == nil {
					err = write(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID)
				}
			case "ask":
				var r stubMessage
				if r, err = stubAsk(in, write, m.Params); err == nil {
					err = write(`{"jsonrpc":"2.0","id":%s,"result":{"result":%s,"error":%s}}`, m.ID, orNull(r.Result), orNull(r.Error))
				}
			case "last":
				var method string
				json.Unmarshal(m.Params, &method)
				err = write(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, orNull(last[method]))
			case "batch":
				err = write(`[{"jsonrpc":"2.0","id":1,"result":null}]`)
			case "exit":
				return errors.New("told to exit")
			}
			if len(m.ID) == 0 {
				last[m.Method] = m.Params
			}
		}
		if err != nil {
			return err
		}
	}
}

// stubAsk sends the request params describe and reads the editor's reply.
func stubAsk(in *bufio.Reader, write func(string, ...any) error, params json.RawMessage) (stubMessage, error) {
	var q struct{ Method, Params string }
	json.Unmarshal(params, &q)
	if err := write(`{"jsonrpc":"2.0","id":"q","method":%q,"params":%s}`, q.Method, q.Params); err != nil {
		return stubMessage{}, err
	}
	body, err := readFrame(in)
	if err != nil {
		return stubMessage{}, err
	}
	var r stubMessage
	if err := json.Unmarshal(body, &r); err != nil || string(r.ID) != `"q"` {
		return r, fmt.Errorf("not the reply to the question: %s", body)
	}
	return r, nil
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

func connect(t *testing.T) *Editor {
	t.Helper()
	e := Connect(context.Background(), stub)
	t.Cleanup(func() { e.Close() })
	return e
}

func call(t *testing.T, e *Editor, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	return e.Call(ctx, method, params, result)
}

func TestCall(t *testing.T) {
	e := connect(t)
	var got protocol.Position
	if err := call(t, e, "echo", &protocol.Position{Line: 4, Character: 2}, &got); err != nil {
		t.Fatal(err)
	}
	if got != (protocol.Position{Line: 4, Character: 2}) {
		t.Errorf("echo returned %+v", got)
	}
	err := call(t, e, "fail", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32001 || !strings.Contains(err.Error(), "fail") {
		t.Errorf("fail returned %v, want code -32001 naming the method", err)
	}
	if log := e.Log(); len(log) != 0 {
		t.Errorf("replies to calls were logged:\n%s", Describe(log))
	}
}

// ask has the stub ask the editor method with params and returns the
// editor's reply as the stub saw it.
func ask(t *testing.T, e *Editor, method, params string) string {
	t.Helper()
	var reply json.RawMessage
	if err := call(t, e, "ask", map[string]string{"method": method, "params": params}, &reply); err != nil {
		t.Fatal(err)
	}
	return string(reply)
}

func TestAnswers(t *testing.T) {
	e := connect(t)
	question := `{"type":3,"message":"Trust?","actions":[{"title":"Trust"},{"title":"Not now"}]}`
	for _, tc := range []struct {
		name, method, params, want string
		set                        func()
	}{
		{"configuration, nothing set", "workspace/configuration", `{"items":[{"section":"a"},{"section":"b"}]}`, `{"result":[null,null],"error":null}`, nil},
		{"configuration set", "workspace/configuration", `{"items":[{"section":"a"}]}`, `{"result":[{"top":2}],"error":null}`,
			func() { e.SetSettings(json.RawMessage(`{"top":2}`)) }},
		{"question", "window/showMessageRequest", question, `{"result":{"title":"Trust"},"error":null}`, nil},
		{"question dismissed", "window/showMessageRequest", question, `{"result":null,"error":null}`,
			func() { e.SetHandler("window/showMessageRequest", Dismiss) }},
		{"question answered", "window/showMessageRequest", question, `{"result":{"title":"Not now"},"error":null}`,
			func() {
				e.SetHandler("window/showMessageRequest", Answer(func(p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
					return &p.Actions[1], nil
				}))
			}},
		{"progress", "window/workDoneProgress/create", `{"token":"t"}`, `{"result":null,"error":null}`, nil},
		{"unknown", "workspace/applyEdit", `{"edit":{}}`, `{"result":null,"error":{"message":"the editor does not handle workspace/applyEdit","code":-32601}}`, nil},
		{"handler error", "workspace/applyEdit", `{"edit":{}}`, `{"result":null,"error":{"message":"refused","code":-32603}}`,
			func() {
				e.SetHandler("workspace/applyEdit", func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("refused") })
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set != nil {
				tc.set()
			}
			if got := ask(t, e, tc.method, tc.params); got != tc.want {
				t.Errorf("the editor answered %s, want %s", got, tc.want)
			}
		})
	}
	if n := Count(e.Log(), "window/showMessageRequest"); n != 3 {
		t.Errorf("%d questions logged, want 3", n)
	}
}

func TestAwait(t *testing.T) {
	e := connect(t)
	for i, text := range []string{"one", "two"} {
		params := fmt.Sprintf(`{"type":%d,"message":%q}`, i+1, text)
		if err := call(t, e, "tell", map[string]string{"method": "window/logMessage", "params": params}, nil); err != nil {
			t.Fatal(err)
		}
	}
	diags := `{"uri":"file:///a.go","diagnostics":[{"range":{"start":{"line":3,"character":0},"end":{"line":3,"character":1}},"message":"here"}]}`
	go call(t, e, "tell", map[string]string{"method": "textDocument/publishDiagnostics", "params": diags}, nil)
	err := e.AwaitFor(limit, func(log []Message) bool {
		_, ok := Diagnostics(log, "file:///a.go")
		return ok
	})
	if err != nil {
		t.Fatal(err)
	}
	log := e.Log()
	if d, _ := Diagnostics(log, "file:///a.go"); len(d) != 1 || d[0].Range.Start.Line != 3 {
		t.Errorf("diagnostics %+v", d)
	}
	if _, ok := Diagnostics(log, "file:///b.go"); ok {
		t.Errorf("diagnostics of a document never published")
	}
	if got := Messages(log, "window/logMessage", protocol.MessageTypeWarning); len(got) != 1 || got[0] != "two" {
		t.Errorf("warnings %q, want [two]", got)
	}
	var order []string
	for _, m := range log {
		order = append(order, m.Method)
	}
	if want := "window/logMessage window/logMessage textDocument/publishDiagnostics"; strings.Join(order, " ") != want {
		t.Errorf("logged in the order %v, want %s", order, want)
	}
	// Once the connection ends, a condition that can no longer come true
	// fails at once rather than at the limit.
	e.Notify("exit", nil)
	err = e.AwaitFor(limit, func([]Message) bool { return false })
	if err == nil || !strings.Contains(err.Error(), "connection ended") || !strings.Contains(err.Error(), "window/logMessage") {
		t.Errorf("awaiting after the end: %v, want the end and the log", err)
	}
	if err := e.ServerErr(); err == nil || err.Error() != "told to exit" {
		t.Errorf("ServerErr %v, want the stub's", err)
	}
}

func TestDocuments(t *testing.T) {
	e := connect(t)
	const u = "file:///a.go"
	lastOf := func(method string) string {
		t.Helper()
		var params json.RawMessage
		if err := call(t, e, "last", method, &params); err != nil {
			t.Fatal(err)
		}
		return string(params)
	}
	if err := e.ChangeFile(u, "x"); err == nil {
		t.Errorf("a document not open was changed")
	}
	steps := []struct {
		do     func() error
		method string
		want   string
	}{
		{func() error { return e.OpenFile(u, "package a\n") }, "textDocument/didOpen",
			`{"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":"package a\n"}}`},
		{func() error { return e.ChangeFile(u, "package b\n") }, "textDocument/didChange",
			`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"package b\n"}]}`},
		{func() error { return e.SaveFile(u) }, "textDocument/didSave", `{"textDocument":{"uri":"file:///a.go"}}`},
		{func() error { return e.CloseFile(u) }, "textDocument/didClose", `{"textDocument":{"uri":"file:///a.go"}}`},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		if got := lastOf(s.method); got != s.want {
			t.Errorf("%s sent %s, want %s", s.method, got, s.want)
		}
	}
	if err := e.OpenFile(u, ""); err != nil {
		t.Errorf("reopening a closed document: %v", err)
	}
	if err := e.OpenFile(u, ""); err == nil {
		t.Errorf("a document open twice")
	}
}

func TestRawFrames(t *testing.T) {
	e := connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for _, body := range []string{`{"jsonrpc":`, `{"jsonrpc":"2.0","id":9,"method":"batch"}`} {
		if err := e.SendRaw(ctx, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	err := e.Await(ctx, func(log []Message) bool { return len(log) == 2 })
	if err != nil {
		t.Fatal(err)
	}
	log := e.Log()
	if log[0].Kind != Reply || string(log[0].ID) != "null" || log[0].Error == nil || log[0].Error.Code != jsonrpc2.ParseError {
		t.Errorf("the reply to garbage was logged as %+v", log[0])
	}
	if log[1].Kind != Batch || !strings.HasPrefix(string(log[1].Body), "[") {
		t.Errorf("the batch reply was logged as %+v", log[1])
	}
}

func TestStart(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), stubEnv+"=1")
	cmd.Stderr = os.Stderr
	e, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var got string
	if err := call(t, e, "echo", "hello", &got); err != nil || got != "hello" {
		t.Fatalf("echo over the process's pipes: %q, %v", got, err)
	}
	e.Close() // the end of its input ends the stub
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var exit *exec.ExitError
	if err := e.AwaitStop(ctx); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("the process ended with %v, want exit status 3", err)
	}
}

func TestReadFrame(t *testing.T) {
	for _, tc := range []struct{ input, want string }{
		{"Content-Length: 2\r\n\r\n{}", "{}"},
		{"Content-Type: x\r\nContent-Length: 1\r\n\r\n7", "7"},
		{"Content-Length: x\r\n\r\n{}", "bad Content-Length"},
		{"Content-Length: -1\r\n\r\n", "bad Content-Length"},
		{"\r\n{}", "without Content-Length"},
		{"Content-Length: 5\r\n\r\n{}", "EOF"},
	} {
		body, err := readFrame(bufio.NewReader(strings.NewReader(tc.input)))
		got := string(body)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("reading %q: %q, want %q", tc.input, got, tc.want)
		}
	}
}
