// Command server measures the faultline language server as an editor meets
// it: it generates a module of 10 packages, 10,000 lines and 200 tests,
// starts `faultline serve` as a subprocess, and reports the time from a save
// to the published diagnostics after a one-line edit, the latency of inlay
// hints, hover and code actions, and the server's resident memory.
//
//	go build -o /tmp/faultline . && go run ./bench/server -bin /tmp/faultline
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"faultline/bench/internal/genmod"
)

// size is the generated module: 10 packages × 20 functions × 50 lines =
// 10,000 lines.
var size = genmod.Size{Packages: 10, FuncsPerPackage: 20, LinesPerFunc: 50}

func main() {
	bin := flag.String("bin", "", "faultline binary (required)")
	saves := flag.Int("saves", 6, "edit-save-diagnose cycles to time")
	requests := flag.Int("requests", 2000, "requests of each kind to time")
	keep := flag.Bool("keep", false, "keep the generated module")
	angelic := flag.Bool("angelic", false, "turn the angelic analysis on (setting \"angelic\")")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: server -bin path/to/faultline [-saves n] [-requests n]")
		os.Exit(2)
	}
	if err := run(*bin, *saves, *requests, *keep, *angelic); err != nil {
		fmt.Fprintln(os.Stderr, "bench/server:", err)
		os.Exit(1)
	}
}

func run(bin string, saves, requests int, keep, angelic bool) error {
	dir, err := os.MkdirTemp("", "faultline-bench-*")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	mod := filepath.Join(dir, "mod")
	buggy, lines, tests, err := genmod.Generate(mod, size)
	if err != nil {
		return fmt.Errorf("generating the module: %w", err)
	}
	fmt.Printf("module: %d packages, %d lines of code, %d tests (%s)\n", size.Packages, lines, tests, mod)

	c, err := startServer(bin, dir)
	if err != nil {
		return err
	}
	defer c.stop()
	rootURI := "file://" + mod
	if _, err := c.call("initialize", map[string]any{
		"rootUri": rootURI, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"top": 10, "angelic": angelic},
	}); err != nil {
		return err
	}
	c.notify("initialized", map[string]any{})

	fileURI := "file://" + buggy.Path
	start := time.Now()
	if _, err := c.waitDiagnostics(fileURI, func(n int) bool { return n > 0 }, 10*time.Minute); err != nil {
		return fmt.Errorf("first collection: %w", err)
	}
	fmt.Printf("first collection (cold store): %s\n", time.Since(start).Round(time.Millisecond))

	// Save cycles: each edits one line, fixing or reintroducing the fault,
	// so every save changes what is shown.
	var saveTimes []time.Duration
	for i := 0; i < saves; i++ {
		fixed := i%2 == 0
		if err := buggy.Set(fixed, i+1); err != nil {
			return err
		}
		t0 := time.Now()
		c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": fileURI}})
		want := func(n int) bool { return (n == 0) == fixed }
		if _, err := c.waitDiagnostics(fileURI, want, 5*time.Minute); err != nil {
			return fmt.Errorf("save %d: %w", i, err)
		}
		saveTimes = append(saveTimes, time.Since(t0))
	}
	fmt.Printf("save → diagnostics, one-line edit, %d saves (includes the 300ms debounce): %s\n", saves, summarize(saveTimes))
	var each []string
	for _, d := range saveTimes {
		each = append(each, d.Round(time.Millisecond).String())
	}
	fmt.Printf("  each save: %s\n", strings.Join(each, " "))

	// Request latency on the open file of the fault, in the 10,000-line module.
	text, err := os.ReadFile(buggy.Path)
	if err != nil {
		return err
	}
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": fileURI, "languageId": "go", "version": 1, "text": string(text)}})
	nLines := strings.Count(string(text), "\n")
	r := rand.New(rand.NewPCG(1, 1))
	kinds := []struct {
		name   string
		params func() any
		method string
	}{
		{"inlay hints (whole file)", func() any {
			return map[string]any{"textDocument": map[string]any{"uri": fileURI},
				"range": map[string]any{"start": pos(0, 0), "end": pos(nLines, 0)}}
		}, "textDocument/inlayHint"},
		{"hover (random line)", func() any {
			return map[string]any{"textDocument": map[string]any{"uri": fileURI}, "position": pos(r.IntN(nLines), 4)}
		}, "textDocument/hover"},
		{"code actions (random line)", func() any {
			l := r.IntN(nLines)
			return map[string]any{"textDocument": map[string]any{"uri": fileURI},
				"range": map[string]any{"start": pos(l, 0), "end": pos(l, 0)}, "context": map[string]any{"diagnostics": []any{}}}
		}, "textDocument/codeAction"},
	}
	for _, k := range kinds {
		var lat []time.Duration
		for i := 0; i < requests; i++ {
			t0 := time.Now()
			if _, err := c.call(k.method, k.params()); err != nil {
				return fmt.Errorf("%s: %w", k.method, err)
			}
			lat = append(lat, time.Since(t0))
		}
		fmt.Printf("%s, %d requests: %s\n", k.name, requests, summarize(lat))
	}
	rss, hwm, err := memory(c.cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("server resident memory: %d MB now, %d MB peak\n", rss>>10, hwm>>10)
	if _, err := c.call("shutdown", nil); err != nil {
		return err
	}
	c.notify("exit", nil)
	return nil
}

func pos(line, char int) map[string]int { return map[string]int{"line": line, "character": char} }

func summarize(d []time.Duration) string {
	s := slices.Clone(d)
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return fmt.Sprintf("p50 %s, p99 %s, max %s", q(0.5).Round(time.Microsecond), q(0.99).Round(time.Microsecond), s[len(s)-1].Round(time.Microsecond))
}

// memory reads the resident set size and its peak, in KiB.
func memory(pid int) (rss, hwm int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("reading memory figures: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss, _ = strconv.Atoi(f[1])
		case "VmHWM:":
			hwm, _ = strconv.Atoi(f[1])
		}
	}
	return rss, hwm, nil
}

// client is a minimal LSP client over the server's stdin and stdout.
type client struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan response
	diags   map[string]int // uri -> number of diagnostics last published
	changed chan struct{}
}

type response struct {
	Result json.RawMessage
	Error  *struct {
		Code    int
		Message string
	}
}

func startServer(bin, dir string) (*client, error) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	if gocache, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		cmd.Env = append(cmd.Env, "GOCACHE="+strings.TrimSpace(string(gocache)))
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	c := &client{cmd: cmd, in: in, waiting: map[int]chan response{}, diags: map[string]int{}, changed: make(chan struct{}, 1)}
	go c.read(bufio.NewReader(out))
	return c, nil
}

func (c *client) stop() {
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
	}
}

func (c *client) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

func (c *client) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *client) call(method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("%s: no answer in a minute", method)
	}
}

// waitDiagnostics waits until the count of diagnostics on uri satisfies ok.
func (c *client) waitDiagnostics(uri string, ok func(int) bool, limit time.Duration) (int, error) {
	deadline := time.After(limit)
	for {
		c.mu.Lock()
		n, seen := c.diags[uri]
		c.mu.Unlock()
		if seen && ok(n) {
			return n, nil
		}
		select {
		case <-c.changed:
		case <-deadline:
			return n, errors.New("timed out waiting for diagnostics")
		}
	}
}

func (c *client) read(r *bufio.Reader) {
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var msg struct {
			ID     *json.RawMessage
			Method string
			Params json.RawMessage
			response
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		switch {
		case msg.Method != "" && msg.ID != nil: // a request from the server
			var result any
			if msg.Method == "workspace/configuration" {
				result = []any{nil}
			}
			c.send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		case msg.Method == "textDocument/publishDiagnostics":
			var p struct {
				URI         string
				Diagnostics []json.RawMessage
			}
			if json.Unmarshal(msg.Params, &p) == nil {
				c.mu.Lock()
				c.diags[p.URI] = len(p.Diagnostics)
				c.mu.Unlock()
				select {
				case c.changed <- struct{}{}:
				default:
				}
			}
		case msg.Method == "" && msg.ID != nil:
			id, _ := strconv.Atoi(string(*msg.ID))
			c.mu.Lock()
			ch := c.waiting[id]
			delete(c.waiting, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg.response
			}
		}
	}
}
