// Command server measures the faultline language server as an editor meets
// it, with `faultline serve` as a subprocess.
//
// By default it generates a module of 10 packages, 10,000 lines and 200
// tests and reports the time from a save to the published diagnostics after
// a one-line edit, the latency of inlay hints, hover, code actions and the
// ranking request, the time from a change of the order setting to the
// diagnostics published again, and the server's resident memory:
//
//	go build -o /tmp/faultline ./cmd/faultline && go run ./bench/server -bin /tmp/faultline
//
// With -workspaces it opens, one after another in one server session with
// default settings (the angelic analysis on), every example under examples/
// and modules of bench/effectiveness with seeded faults (faults.txt), and
// reports save → first diagnostics, save → last angelic finding, hint and
// hover latency, and the peak resident memory of the server and of its
// analysis workers:
//
//	go run ./bench/server -bin /tmp/faultline -workspaces
//
// With -open it opens modules with a seeded fault each (large.txt, in the
// format of faults.txt), a new session per module, binary and round, and
// reports open → first diagnostics, → the end of the test run and → the
// end of the analysis, against plain go test -count=1 -cover ./... timed
// in the same run; -compare adds a second binary, for a before and after:
//
//	go run ./bench/server -bin /tmp/faultline -open bench/server/large.txt [-compare /tmp/faultline-before]
//
// With FAULTLINE_DEBUG=1 in its environment the server prints its phase
// trace (tests done per package, store reads, ranking, publishing, the
// analysis) to standard error, which the benchmark passes through.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/bench/internal/genmod"
)

// size is the generated module: 10 packages × 20 functions × 50 lines =
// 10,000 lines.
var size = genmod.Size{Packages: 10, FuncsPerPackage: 20, LinesPerFunc: 50}

func main() {
	bin := flag.String("bin", "", "faultline binary (required)")
	saves := flag.Int("saves", 6, "edit-save-diagnose cycles to time")
	requests := flag.Int("requests", 2000, "requests of each kind to time")
	keep := flag.Bool("keep", false, "keep the generated module")
	angelic := flag.Bool("angelic", true, "the angelic analysis in the generated module, on as in the server's default settings (setting \"angelic\")")
	workspaces := flag.Bool("workspaces", false, "measure the examples and seeded faults of real modules instead of the generated module")
	examples := flag.String("examples", "examples", "with -workspaces: directory of the example modules")
	faults := flag.String("faults", "bench/server/faults.txt", "with -workspaces: seeded faults of real modules")
	open := flag.String("open", "", "seeded faults of real modules (as in faults.txt) to open one by one, each in a new session, instead of the generated module")
	compare := flag.String("compare", "", "with -open: a second faultline binary, measured in the same rounds")
	rounds := flag.Int("rounds", 1, "with -open: rounds per fault")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: server -bin path/to/faultline [-saves n] [-requests n] [-workspaces]")
		os.Exit(2)
	}
	if *open != "" {
		bins := []string{*bin}
		if *compare != "" {
			bins = append(bins, *compare)
		}
		if err := runOpen(bins, *open, *rounds, *keep); err != nil {
			fmt.Fprintln(os.Stderr, "bench/server:", err)
			os.Exit(1)
		}
		return
	}
	if *workspaces {
		if err := runWorkspaces(*bin, *examples, *faults, min(*requests, 500), *keep); err != nil {
			fmt.Fprintln(os.Stderr, "bench/server:", err)
			os.Exit(1)
		}
		return
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
		"rootUri": rootURI, "capabilities": trustingClient,
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
		if err := c.SaveFile(uri.URI(fileURI)); err != nil {
			return err
		}
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
	if err := c.OpenFile(uri.URI(fileURI), string(text)); err != nil {
		return err
	}
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
	// The ranking request, every executed line with the sentence on why it
	// stands there, as an editor's ranking view asks for it.
	var lat []time.Duration
	for i := 0; i < min(requests, 200); i++ {
		t0 := time.Now()
		if _, err := c.call("faultline/ranking", map[string]any{}); err != nil {
			return fmt.Errorf("faultline/ranking: %w", err)
		}
		lat = append(lat, time.Since(t0))
	}
	fmt.Printf("faultline/ranking (every executed line, with why), %d requests: %s\n", len(lat), summarize(lat))
	if angelic {
		if err := timeOrders(c, fileURI); err != nil {
			return err
		}
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

// timeOrders changes the order setting and times each change to the
// diagnostics of the fault's file published again: the server reorders
// what it holds, running nothing. The first learned order gathers the
// evidence, the second finds it cached.
func timeOrders(c *client, fileURI string) error {
	// Until the analysis has found a fix the combined order is the
	// formula's, and a change between them shows nothing new.
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		raw, err := c.call("faultline/ranking", map[string]any{})
		if err != nil {
			return fmt.Errorf("faultline/ranking: %w", err)
		}
		var r struct{ Order string }
		if json.Unmarshal(raw, &r) == nil && r.Order == "combined" {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("the ranking never reached the combined order: no analysis found a fix")
		}
	}
	var each []string
	var times []time.Duration
	for _, order := range []string{"learned", "formula", "combined", "learned", "formula", "combined"} {
		t0 := time.Now()
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"faultline": map[string]any{"order": order}}})
		if _, err := c.waitEvent(t0, func(e event) bool { return e.kind == "diagnostics" && e.uri == fileURI }, time.Minute); err != nil {
			return fmt.Errorf("order %s: no diagnostics: %w", order, err)
		}
		d := time.Since(t0)
		times = append(times, d)
		each = append(each, fmt.Sprintf("%s %s", order, d.Round(time.Millisecond)))
	}
	fmt.Printf("order change → diagnostics, %d changes: %s\n  each: %s\n", len(times), summarize(times), strings.Join(each, ", "))
	return nil
}

func pos(line, char int) map[string]int { return map[string]int{"line": line, "character": char} }

func summarize(d []time.Duration) string {
	q := func(p float64) time.Duration { return percentile(d, p) }
	return fmt.Sprintf("p50 %s, p99 %s, max %s", q(0.5).Round(time.Microsecond), q(0.99).Round(time.Microsecond), q(1).Round(time.Microsecond))
}

// percentile returns the p-quantile (0 ≤ p ≤ 1) of d by rank; 0 for none.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
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
