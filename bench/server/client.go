package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/faultline-go/faultline/internal/lspframe"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// client is a minimal LSP client over the server's stdin and stdout. It
// records when diagnostics are published and when work-done progress ends,
// which is how an editor learns that results arrived.
type client struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	wmu sync.Mutex

	mu       sync.Mutex
	nextID   int
	waiting  map[int]chan response
	diags    map[string]int // uri -> number of diagnostics last published
	events   []event        // in arrival order
	titles   map[string]string
	changed  chan struct{}
	exited   chan struct{} // closed when the server process has ended
	peakKids int           // highest resident memory seen of a child process, KiB
}

// event is a notification that matters to the timings.
type event struct {
	at      time.Time
	kind    string // "diagnostics" or "progress-end"
	uri     string // diagnostics: the document
	count   int    // diagnostics: how many
	title   string // progress-end: the title of its begin
	message string // progress-end: its message
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
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "FAULTLINE_CACHE="+filepath.Join(dir, "cache", "faultline"))
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
	c := &client{cmd: cmd, in: in, waiting: map[int]chan response{}, diags: map[string]int{},
		titles: map[string]string{}, changed: make(chan struct{}, 1), exited: make(chan struct{})}
	go c.read(bufio.NewReader(out))
	go func() { cmd.Wait(); close(c.exited) }()
	go c.watchChildren()
	return c, nil
}

func (c *client) stop() {
	c.in.Close()
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
	}
}

// watchChildren samples the resident memory of the server's child
// processes (the analysis workers) every 50 ms, keeping the highest peak.
func (c *client) watchChildren() {
	for {
		select {
		case <-c.exited:
			return
		case <-time.After(50 * time.Millisecond):
		}
		for _, pid := range descendants(c.cmd.Process.Pid) {
			if _, hwm, err := memory(pid); err == nil {
				c.mu.Lock()
				c.peakKids = max(c.peakKids, hwm)
				c.mu.Unlock()
			}
		}
	}
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			parent[p], _ = strconv.Atoi(fields[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func (c *client) childPeak() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peakKids
}

func (c *client) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return lspframe.Write(c.in, body)
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

// waitEvent waits for the first event after since that ok accepts.
func (c *client) waitEvent(since time.Time, ok func(event) bool, limit time.Duration) (event, error) {
	deadline := time.After(limit)
	for {
		c.mu.Lock()
		for _, e := range c.events {
			if !e.at.Before(since) && ok(e) {
				c.mu.Unlock()
				return e, nil
			}
		}
		c.mu.Unlock()
		select {
		case <-c.changed:
		case <-deadline:
			return event{}, errors.New("timed out")
		}
	}
}

func (c *client) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *client) read(r *bufio.Reader) {
	for {
		body, err := lspframe.Read(r)
		if err != nil {
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
		now := time.Now()
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
				c.events = append(c.events, event{at: now, kind: "diagnostics", uri: p.URI, count: len(p.Diagnostics)})
				c.mu.Unlock()
				c.signal()
			}
		case msg.Method == "$/progress":
			var p struct {
				Token json.RawMessage
				Value struct {
					Kind    string
					Title   string
					Message string
				}
			}
			if json.Unmarshal(msg.Params, &p) == nil {
				token := string(p.Token)
				c.mu.Lock()
				switch p.Value.Kind {
				case "begin":
					c.titles[token] = p.Value.Title
				case "end":
					c.events = append(c.events, event{at: now, kind: "progress-end", title: c.titles[token], message: p.Value.Message})
				}
				c.mu.Unlock()
				c.signal()
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
