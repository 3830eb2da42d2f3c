package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline-go/faultline/internal/fakeeditor"
)

// client is the fake editor on a `faultline serve` process. From what the
// server sends it keeps when diagnostics are published and when work-done
// progress ends, which is how an editor learns that results arrived.
type client struct {
	*fakeeditor.Editor
	cmd *exec.Cmd

	mu       sync.Mutex
	seen     int // messages of the log already turned into events
	progress fakeeditor.Progress
	diags    map[string]int // uri -> number of diagnostics last published
	events   []event        // in arrival order
	peakKids int            // highest resident memory seen of a child process, KiB
}

// trustingClient are the capabilities of a client that trusts every
// workspace itself, as VS Code does once its user trusts it.
var trustingClient = map[string]any{"experimental": map[string]any{"faultline": map[string]any{"trustedWorkspace": true}}}

// event is a notification that matters to the timings.
type event struct {
	at      time.Time
	kind    string // "diagnostics" or "progress-end"
	uri     string // diagnostics: the document
	count   int    // diagnostics: how many
	title   string // progress-end: the title of its begin
	message string // progress-end: its message
}

func startServer(bin, dir string) (*client, error) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "FAULTLINE_CACHE="+filepath.Join(dir, "cache", "faultline"))
	if gocache, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		cmd.Env = append(cmd.Env, "GOCACHE="+strings.TrimSpace(string(gocache)))
	}
	cmd.Stderr = os.Stderr
	editor, err := fakeeditor.Start(cmd)
	if err != nil {
		return nil, err
	}
	// The workspaces are trusted by the client's capabilities
	// (trustingClient); a question is left unanswered.
	editor.SetHandler("window/showMessageRequest", fakeeditor.Dismiss)
	c := &client{Editor: editor, cmd: cmd, diags: map[string]int{}}
	go c.watchChildren()
	return c, nil
}

func (c *client) stop() {
	c.Close()
	select {
	case <-c.Stopped():
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
	}
}

// watchChildren samples the resident memory of the server's child
// processes (the analysis workers) every 50 ms, keeping the highest peak.
func (c *client) watchChildren() {
	for {
		select {
		case <-c.Stopped():
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

// notify sends a notification; a lost connection shows in the next call.
func (c *client) notify(method string, params any) {
	c.Notify(method, params)
}

func (c *client) call(method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var result json.RawMessage
	err := c.Call(ctx, method, params, &result)
	return result, err
}

// update turns the messages of the log not seen yet into events.
func (c *client) update(log []fakeeditor.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(log) <= c.seen {
		return // a waiter with an older copy of the log
	}
	for _, m := range log[c.seen:] {
		if end, ok := c.progress.Add(m); ok {
			c.events = append(c.events, event{at: end.At, kind: "progress-end", title: end.Title, message: end.Message})
		}
		if !m.Is("textDocument/publishDiagnostics") {
			continue
		}
		var p struct {
			URI         string
			Diagnostics []json.RawMessage
		}
		if json.Unmarshal(m.Params, &p) == nil {
			c.diags[p.URI] = len(p.Diagnostics)
			c.events = append(c.events, event{at: m.At, kind: "diagnostics", uri: p.URI, count: len(p.Diagnostics)})
		}
	}
	c.seen = len(log)
}

// waitDiagnostics waits until the count of diagnostics on uri satisfies ok.
func (c *client) waitDiagnostics(uri string, ok func(int) bool, limit time.Duration) (int, error) {
	var n int
	err := c.AwaitFor(limit, func(log []fakeeditor.Message) bool {
		c.update(log)
		c.mu.Lock()
		defer c.mu.Unlock()
		count, seen := c.diags[uri]
		n = count
		return seen && ok(count)
	})
	if err != nil {
		return n, errors.New("timed out waiting for diagnostics")
	}
	return n, nil
}

// waitEvent waits for the first event after since that ok accepts.
func (c *client) waitEvent(since time.Time, ok func(event) bool, limit time.Duration) (event, error) {
	var found event
	err := c.AwaitFor(limit, func(log []fakeeditor.Message) bool {
		c.update(log)
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, e := range c.events {
			if !e.at.Before(since) && ok(e) {
				found = e
				return true
			}
		}
		return false
	})
	if err != nil {
		return event{}, errors.New("timed out")
	}
	return found, nil
}
