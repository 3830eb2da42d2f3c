package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/fakeeditor"
	"github.com/faultline-go/faultline/internal/localize"
)

// markerModule writes testdata/marker.txtar into a new directory and
// returns it: a module whose tests leave a file named ran-tests when they
// run. TestDoubleTwo fails on line 6.
func markerModule(t *testing.T) string {
	t.Helper()
	archive, err := os.ReadFile(filepath.Join("testdata", "marker.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeArchive(t, dir, string(archive))
	return dir
}

// setAnswer makes the client answer the server's questions with answer.
func (c *testClient) setAnswer(answer func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error)) {
	c.SetHandler(protocol.MethodWindowShowMessageRequest, fakeeditor.Answer(answer))
}

// reply answers every question with the action titled title.
func reply(title string) func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		return &protocol.MessageActionItem{Title: title}, nil
	}
}

// questions counts the window/showMessageRequest requests received.
func (c *testClient) questions() int {
	return fakeeditor.Count(c.Log(), protocol.MethodWindowShowMessageRequest)
}

// settle gives the server time to do what it must not: a test of absence
// can only wait. The read loop is synced before and after.
func (c *testClient) settle() {
	c.t.Helper()
	c.sync()
	time.Sleep(500 * time.Millisecond)
	c.sync()
}

// waitShown waits for a window/showMessage containing text.
func (c *testClient) waitShown(text string) {
	c.t.Helper()
	c.waitFor("a message saying "+text, func(notes []note) bool {
		for _, n := range notes {
			if n.method == protocol.MethodWindowShowMessage && strings.Contains(string(n.params), text) {
				return true
			}
		}
		return false
	})
}

// flags reports whether the diagnostics mark the 0-based line first.
func flags(line uint32) func([]protocol.Diagnostic) bool {
	return func(ds []protocol.Diagnostic) bool { return len(ds) > 0 && ds[0].Range.Start.Line == line }
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// goOnPath puts a go command first on PATH that logs each invocation to the
// returned file before running the real one.
func goOnPath(t *testing.T) string {
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "invocations")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> '%s'\nexec '%s' \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// TestNothingRunsBeforeConsent opens a module with the real engine as a
// plain client does (initialize, initialized, a save) and holds the answer
// to the server's question: no go command runs (so no build, no test, no
// toolchain download) until the user says "Run this time", and the server
// keeps answering meanwhile.
func TestNothingRunsBeforeConsent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	dir, cache := markerModule(t), t.TempDir()
	goLog := goOnPath(t)
	marker := filepath.Join(dir, "ran-tests")
	src := uri.File(filepath.Join(dir, "double.go"))

	c := startServer(t, Options{Open: func(d string) (Workspace, error) {
		return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache})
	}, Debounce: 50 * time.Millisecond})
	asked := make(chan protocol.ShowMessageRequestParams, 4)
	decide := make(chan string)
	c.setAnswer(func(p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		asked <- p
		select {
		case title := <-decide:
			return &protocol.MessageActionItem{Title: title}, nil
		case <-t.Context().Done():
			return nil, nil
		}
	})
	c.initialize(dir, "", protocol.ClientCapabilities{})
	var q protocol.ShowMessageRequestParams
	select {
	case q = <-asked:
	case <-time.After(waitLimit):
		t.Fatal("the server never asked")
	}
	var titles []string
	for _, a := range q.Actions {
		titles = append(titles, a.Title)
	}
	if !strings.Contains(q.Message, dir) || strings.Join(titles, "|") != "Run this time|Always for this module|Not now" {
		t.Errorf("question %q with actions %q", q.Message, titles)
	}

	c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	c.settle()
	if fileExists(marker) {
		t.Fatal("the module's tests ran before the user answered")
	}
	if log, _ := os.ReadFile(goLog); len(log) > 0 {
		t.Fatalf("go commands ran before the user answered:\n%s", log)
	}

	decide <- answerOnce
	c.waitDiagnostics("the fault flagged after consent", src, flags(5))
	if !fileExists(marker) {
		t.Error("diagnostics came but the marker is missing: the test cannot tell runs apart")
	}
	if log, _ := os.ReadFile(goLog); len(log) == 0 {
		t.Error("no go command logged after consent: the wrapper on PATH was not used")
	}
	if n := c.questions(); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
	c.shutdown()
}

// TestStoreShownWithoutRunning: results a terminal run left in the store
// show at once in a module nobody trusted yet, without running anything;
// results whose source changed since show nothing.
func TestStoreShownWithoutRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	dir, cache := markerModule(t), t.TempDir()
	open := func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }
	ws, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Collect(context.Background(), localize.CollectOptions{Packages: []string{"./..."}}); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran-tests")
	if err := os.Remove(marker); err != nil {
		t.Fatalf("the terminal run left no marker: %v", err)
	}
	src := uri.File(filepath.Join(dir, "double.go"))
	never := func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		<-t.Context().Done()
		return nil, nil
	}

	c := startServer(t, Options{Open: open})
	c.setAnswer(never)
	c.initialize(dir, "", protocol.ClientCapabilities{})
	c.waitDiagnostics("the stored fault", src, flags(5))
	c.waitRequest(protocol.MethodWindowShowMessageRequest, 1)
	c.shutdown()

	// Edit the faulty line on disk: the stored results no longer match it.
	writeFile(t, src, strings.Replace(readFile(t, src), "x + x + 1", "x + x + 2", 1))
	c = startServer(t, Options{Open: open})
	c.setAnswer(never)
	c.initialize(dir, "", withExtensions(protocol.ClientCapabilities{}))
	c.waitRequest(protocol.MethodWindowShowMessageRequest, 1)
	c.waitFor("the store loaded", func(notes []note) bool {
		for _, n := range notes {
			if n.method == methodStatus && strings.Contains(string(n.params), "no test results yet") {
				return true
			}
		}
		return false
	})
	c.settle()
	d, _ := c.latestDiagnostics(src)
	if len(d) > 0 {
		t.Errorf("stale results shown: %+v", d)
	}
	c.shutdown()
	if fileExists(marker) {
		t.Error("the tests ran in a module nobody trusted")
	}
}

// TestAlwaysSurvivesRestart: "Always" is remembered in the trust list, so a
// new server runs at once without asking; revoking it brings the question
// back.
func TestAlwaysSurvivesRestart(t *testing.T) {
	dir, fake := newFakeModule(t)
	list := testTrustList(t)
	first := startServer(t, Options{Open: fake.open, Trust: list})
	first.setAnswer(reply(answerAlways))
	first.initialize(dir, "", protocol.ClientCapabilities{})
	fake.waitCollecting()
	first.shutdown()
	if ok, err := list.Trusted(dir); !ok || err != nil {
		t.Fatalf("after Always: trusted %v, %v", ok, err)
	}

	second := startServer(t, Options{Open: fake.open, Trust: list})
	second.setAnswer(reply(answerNotNow))
	second.initialize(dir, "", protocol.ClientCapabilities{})
	fake.waitCollecting()
	second.sync()
	if n := second.questions(); n != 0 {
		t.Errorf("a trusted module was asked about %d times", n)
	}
	second.shutdown()

	if _, err := list.Remove(dir); err != nil {
		t.Fatal(err)
	}
	third := startServer(t, Options{Open: fake.open, Trust: list})
	third.setAnswer(reply(answerNotNow))
	third.initialize(dir, "", protocol.ClientCapabilities{})
	third.waitRequest(protocol.MethodWindowShowMessageRequest, 1)
	third.shutdown()
}

// TestNotNow: after "Not now" nothing runs and nothing is asked again in
// the session, saves included, until the user asks for a run; that run is
// consent for the rest of the session, and none of it is remembered.
func TestNotNow(t *testing.T) {
	dir, fake := newFakeModule(t)
	list := testTrustList(t)
	c := startServer(t, Options{Open: fake.open, Trust: list, Debounce: 10 * time.Millisecond})
	c.setAnswer(reply(answerNotNow))
	c.initialize(dir, "", withExtensions(protocol.ClientCapabilities{}))
	c.waitFor("the refusal", func(notes []note) bool {
		for _, n := range notes {
			if n.method == methodStatus && strings.Contains(string(n.params), "not trusted") {
				return true
			}
		}
		return false
	})
	save := &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(dir, "a.go"))}}
	c.notify(protocol.MethodTextDocumentDidSave, save)
	c.settle()
	if n, q := fake.collections(), c.questions(); n != 0 || q != 1 {
		t.Fatalf("after Not now and a save: %d runs, %d questions; want 0 and 1", n, q)
	}

	var res runResult
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, &res)
	if len(res.Modules) != 1 || res.Modules[0].Failed != 1 || res.Modules[0].Error != "" {
		t.Fatalf("explicit run: %+v", res)
	}
	fake.waitCollecting()
	c.notify(protocol.MethodTextDocumentDidSave, save)
	fake.waitCollecting()
	if q := c.questions(); q != 1 {
		t.Errorf("%d questions, want 1", q)
	}
	c.shutdown()
	if mods, err := list.List(); len(mods) != 0 || err != nil {
		t.Errorf("session consent was written to the trust list: %+v, %v", mods, err)
	}
}

// vouching is caps with the client's own verdict on the workspace in its
// experimental capabilities.
func vouching(caps protocol.ClientCapabilities, trusted bool) protocol.ClientCapabilities {
	caps.Experimental = []byte(fmt.Sprintf(`{"faultline":{"trustedWorkspace":%v}}`, trusted))
	return caps
}

// TestClientStatesTrust: a client that knows the workspace's trust says so
// in its capabilities, and the server follows it without asking; an
// explicit run still runs.
func TestClientStatesTrust(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		t.Run(fmt.Sprint(trusted), func(t *testing.T) {
			dir, fake := newFakeModule(t)
			c := startServer(t, Options{Open: fake.open})
			c.setAnswer(reply(answerOnce))
			c.initialize(dir, "", vouching(protocol.ClientCapabilities{}, trusted))
			if trusted {
				fake.waitCollecting()
			} else {
				fake.waitLoaded()
				c.settle()
				if n := fake.collections(); n != 0 {
					t.Fatalf("%d runs in a workspace the client does not trust", n)
				}
				c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, nil)
			}
			if q := c.questions(); q != 0 {
				t.Errorf("asked %d times though the client said", q)
			}
			c.shutdown()
		})
	}
}

// waitAskedOrRan waits until the server asks or runs the fake module's
// tests, whichever comes first.
func (c *testClient) waitAskedOrRan(fake *fakeWorkspace) {
	c.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for c.questions() == 0 && fake.collections() == 0 {
		if time.Now().After(deadline) {
			c.t.Fatal("the server neither asked nor ran the tests")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSettingsCannotGrantTrust: no setting trusts a module, whichever way
// it arrives, since clients fill every one of them from files a repository
// can carry (eglot's workspace configuration from .dir-locals.el, Helix's
// initializationOptions from .helix/languages.toml). The server asks
// instead, runs nothing while the question is open, and says once that
// "always" was ignored.
func TestSettingsCannotGrantTrust(t *testing.T) {
	yes := true
	withConfiguration := protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{Configuration: &yes}}
	for _, tc := range []struct {
		name    string
		options string // initializationOptions
		pulled  string // the answer to workspace/configuration
		pushed  string // workspace/didChangeConfiguration's settings, once asked
		warned  bool   // "always" was given, and the user is told it is ignored
	}{
		{name: "initializationOptions", options: `{"trust":"always"}`, warned: true},
		{name: "workspace/configuration", pulled: `{"trust":"always"}`, warned: true},
		{name: "didChangeConfiguration", pushed: `{"faultline":{"trust":"always"}}`, warned: true},
		{name: "trustedWorkspace in initializationOptions", options: `{"trustedWorkspace":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, fake := newFakeModule(t)
			c := startServer(t, Options{Open: fake.open})
			c.setAnswer(func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
				<-t.Context().Done()
				return nil, nil
			})
			if tc.pulled != "" {
				c.SetSettings(json.RawMessage(tc.pulled))
			}
			c.initialize(dir, tc.options, withConfiguration)
			c.waitAskedOrRan(fake)
			if tc.pushed != "" {
				c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(tc.pushed)})
			}
			c.settle()
			if n := fake.collections(); n != 0 {
				t.Fatalf("%d runs granted by settings", n)
			}
			if tc.warned {
				c.waitShown("is ignored")
			}
			if q := c.questions(); q != 1 {
				t.Errorf("asked %d times, want once", q)
			}
			c.shutdown()
		})
	}
}

// TestTrustSettingNever: "never" lowers trust below the client's verdict
// and the trust list: nothing runs and nothing is asked, but an explicit
// run still runs.
func TestTrustSettingNever(t *testing.T) {
	dir, fake := newFakeModule(t)
	list := testTrustList(t)
	if _, err := list.Add(dir); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{Open: fake.open, Trust: list})
	c.initialize(dir, `{"trust":"never"}`, vouching(protocol.ClientCapabilities{}, true))
	fake.waitLoaded()
	c.settle()
	if n, q := fake.collections(), c.questions(); n != 0 || q != 0 {
		t.Fatalf("with trust never: %d runs, %d questions; want none", n, q)
	}
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, nil)
	fake.waitCollecting()
	c.shutdown()
}

// TestCorruptTrustList: a list that is not one trusts nothing and says so;
// "Always" then runs for the session and says it could not be remembered,
// leaving the file as it was.
func TestCorruptTrustList(t *testing.T) {
	dir, fake := newFakeModule(t)
	list := testTrustList(t)
	garbage := fmt.Sprintf("{\"version\": 1, \"modules\": [{\"root\": %q", dir)
	if err := os.WriteFile(list.Path(), []byte(garbage), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{Open: fake.open, Trust: list})
	c.setAnswer(reply(answerAlways))
	c.initialize(dir, "", protocol.ClientCapabilities{})
	c.waitShown("not a valid trust list")
	fake.waitCollecting()
	c.waitShown("could not remember")
	if q := c.questions(); q != 1 {
		t.Errorf("asked %d times, want once", q)
	}
	c.shutdown()
	if got, _ := os.ReadFile(list.Path()); string(got) != garbage {
		t.Errorf("the corrupt list was rewritten: %q", got)
	}
}

// TestServersAnswerAlwaysAtOnce: two servers sharing the user's trust list
// get "Always" at the same moment; both modules end up in it.
func TestServersAnswerAlwaysAtOnce(t *testing.T) {
	list := testTrustList(t)
	const servers = 4
	var arrived sync.WaitGroup
	arrived.Add(servers)
	var dirs []string
	var clients []*testClient
	var fakes []*fakeWorkspace
	for range servers {
		dir, fake := newFakeModule(t)
		c := startServer(t, Options{Open: fake.open, Trust: list})
		c.setAnswer(func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
			arrived.Done()
			arrived.Wait() // every server has asked: answer together
			return &protocol.MessageActionItem{Title: answerAlways}, nil
		})
		dirs, clients, fakes = append(dirs, dir), append(clients, c), append(fakes, fake)
	}
	for i, c := range clients {
		c.initialize(dirs[i], "", protocol.ClientCapabilities{})
	}
	for i, c := range clients {
		fakes[i].waitCollecting()
		c.shutdown()
	}
	for _, dir := range dirs {
		if ok, err := list.Trusted(dir); !ok || err != nil {
			t.Errorf("%s: trusted %v, %v", dir, ok, err)
		}
	}
}

// TestQuestionFails: a client that cannot show the question is told how to
// trust the module, and nothing runs.
func TestQuestionFails(t *testing.T) {
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open})
	c.setAnswer(func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		return nil, jsonrpc2.ErrMethodNotFound
	})
	c.initialize(dir, "", protocol.ClientCapabilities{})
	c.waitShown("faultline trust " + dir)
	c.settle()
	if n := fake.collections(); n != 0 {
		t.Errorf("%d runs though nobody agreed", n)
	}
	c.shutdown()
}
