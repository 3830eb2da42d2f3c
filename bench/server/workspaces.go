package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/uri"
)

// seededFault is one line of faults.txt: a mutation of a module version.
type seededFault struct {
	module string // module@version
	file   string // slash-separated, relative to the module root
	offset int
	old    string
	new    string
}

// readFaults parses faults.txt: "module@version file offset old new" per
// line, # comments.
func readFaults(path string) ([]seededFault, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []seededFault
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: want module@version file offset old new", path, n)
		}
		off, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: offset: %w", path, n, err)
		}
		out = append(out, seededFault{module: f[0], file: f[1], offset: off, old: f[3], new: f[4]})
	}
	return out, sc.Err()
}

// workspaceTimes is what one opened workspace or one seeded fault cost.
type workspaceTimes struct {
	name        string
	what        string        // "open" or the fault
	diagnostics time.Duration // to the first non-empty diagnostics
	angelic     time.Duration // to the end of the angelic analysis
	summary     string        // the analysis's closing message
	serverHWM   int           // the server's peak resident memory so far, KiB
}

// runWorkspaces opens the examples and then, module by module, the seeded
// faults in one server session with default settings, and prints the
// timings, request latencies and memory as Markdown.
func runWorkspaces(bin, examplesDir, faultsPath string, requests int, keep bool) error {
	dir, err := os.MkdirTemp("", "faultline-bench-ws-*")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	faults, err := readFaults(faultsPath)
	if err != nil {
		return fmt.Errorf("faults: %w", err)
	}
	examples, err := filepath.Glob(filepath.Join(examplesDir, "*", "go.mod"))
	if err != nil || len(examples) == 0 {
		return fmt.Errorf("no example modules under %s", examplesDir)
	}
	var modules []string // module@version, in file order
	for _, f := range faults {
		if len(modules) == 0 || modules[len(modules)-1] != f.module {
			modules = append(modules, f.module)
		}
	}

	// Materialize everything before the server starts, so that downloads
	// do not count.
	var exampleDirs []string
	for _, gomod := range examples {
		src := filepath.Dir(gomod)
		dst := filepath.Join(dir, "examples", filepath.Base(src))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
			return fmt.Errorf("copying %s: %v: %s", src, err, out)
		}
		exampleDirs = append(exampleDirs, dst)
	}
	moduleDirs := map[string]string{}
	for _, m := range modules {
		d, err := materialize(m, filepath.Join(dir, "modules"))
		if err != nil {
			return err
		}
		moduleDirs[m] = d
	}

	c, err := startServer(bin, dir)
	if err != nil {
		return err
	}
	defer c.stop()
	yes := true
	if _, err := c.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": nil,
		"workspaceFolders": []any{},
		"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": yes},
			"experimental": trustingClient["experimental"]},
	}); err != nil {
		return err
	}
	c.notify("initialized", map[string]any{})

	var rows []workspaceTimes
	var hints, hovers []time.Duration
	r := rand.New(rand.NewPCG(1, 1))
	measureRequests := func(uri string) error {
		h, v, err := requestLatencies(c, uri, requests, r)
		hints, hovers = append(hints, h...), append(hovers, v...)
		return err
	}

	for _, ex := range exampleDirs {
		name := "examples/" + filepath.Base(ex)
		t0 := time.Now()
		addFolder(c, ex)
		row, uri, err := waitFindings(c, t0, ex)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		row.name, row.what = name, "open"
		_, row.serverHWM, _ = memory(c.cmd.Process.Pid)
		rows = append(rows, row)
		fmt.Fprintf(os.Stderr, "bench/server: %s: diagnostics %s, angelic %s (%s)\n", name, row.diagnostics.Round(time.Millisecond), row.angelic.Round(time.Millisecond), row.summary)
		if err := measureRequests(uri); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}

	for _, m := range modules {
		root := moduleDirs[m]
		t0 := time.Now()
		addFolder(c, root)
		if _, err := c.waitEvent(t0, testsRan(root), 15*time.Minute); err != nil {
			return fmt.Errorf("%s: first collection: %w", m, err)
		}
		fmt.Fprintf(os.Stderr, "bench/server: %s: first collection (all passing) %s\n", m, time.Since(t0).Round(time.Millisecond))
		for _, f := range faults {
			if f.module != m {
				continue
			}
			path := filepath.Join(root, filepath.FromSlash(f.file))
			orig, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if f.offset+len(f.old) > len(orig) || string(orig[f.offset:f.offset+len(f.old)]) != f.old {
				return fmt.Errorf("%s %s@%d: %q is not there", m, f.file, f.offset, f.old)
			}
			mutated := append(append(append([]byte{}, orig[:f.offset]...), f.new...), orig[f.offset+len(f.old):]...)
			what := fmt.Sprintf("%s:%d %s→%s", f.file, bytes.Count(orig[:f.offset], []byte("\n"))+1, f.old, f.new)

			t0 := time.Now()
			if err := save(c, path, mutated); err != nil {
				return err
			}
			row, uri, err := waitFindings(c, t0, root)
			if err != nil {
				return fmt.Errorf("%s %s: %w", m, what, err)
			}
			row.name, row.what = m, what
			_, row.serverHWM, _ = memory(c.cmd.Process.Pid)
			rows = append(rows, row)
			fmt.Fprintf(os.Stderr, "bench/server: %s %s: diagnostics %s, angelic %s (%s)\n", m, what, row.diagnostics.Round(time.Millisecond), row.angelic.Round(time.Millisecond), row.summary)
			if err := measureRequests(uri); err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}

			// Back to passing, for the next fault to start from.
			t1 := time.Now()
			if err := save(c, path, orig); err != nil {
				return err
			}
			if _, err := c.waitEvent(t1, testsRan(root), 10*time.Minute); err != nil {
				return fmt.Errorf("%s: after undoing %s: %w", m, what, err)
			}
		}
	}

	rss, hwm, err := memory(c.cmd.Process.Pid)
	if err != nil {
		return err
	}
	printWorkspaceReport(rows, hints, hovers, rss, hwm, c.childPeak())
	if _, err := c.call("shutdown", nil); err != nil {
		return err
	}
	c.notify("exit", nil)
	return nil
}

// materialize copies a module version from the module cache into a
// writable directory with its test dependencies downloaded.
func materialize(modVersion, under string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", modVersion).Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Error != "" || err != nil {
		return "", fmt.Errorf("go mod download %s: %v %s", modVersion, err, info.Error)
	}
	dst := filepath.Join(under, strings.NewReplacer("/", "_", "@", "_").Replace(modVersion))
	if err := os.MkdirAll(under, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("cp", "-r", info.Dir, dst).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying %s: %v: %s", info.Dir, err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dst).CombinedOutput(); err != nil {
		return "", fmt.Errorf("chmod %s: %v: %s", dst, err, out)
	}
	for _, args := range [][]string{{"mod", "download"}, {"mod", "tidy"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dst
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go %s in %s: %v: %s", strings.Join(args, " "), dst, err, out)
		}
	}
	return dst, nil
}

func addFolder(c *client, dir string) {
	c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added":   []any{map[string]any{"uri": "file://" + dir, "name": filepath.Base(dir)}},
		"removed": []any{},
	}})
}

// save writes a file as an editor does and tells the server.
func save(c *client, path string, content []byte) error {
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return err
	}
	return c.SaveFile(uri.URI("file://" + path))
}

// testsRan accepts the end of a test run in the module at root.
func testsRan(root string) func(event) bool {
	title := "faultline: running tests in " + filepath.Base(root)
	return func(e event) bool { return e.kind == "progress-end" && e.title == title }
}

// waitFindings waits for the first non-empty diagnostics in root and the
// end of an angelic analysis that was not cancelled, both after t0.
func waitFindings(c *client, t0 time.Time, root string) (workspaceTimes, string, error) {
	prefix := "file://" + root + "/"
	d, err := c.waitEvent(t0, func(e event) bool {
		return e.kind == "diagnostics" && e.count > 0 && strings.HasPrefix(e.uri, prefix)
	}, 15*time.Minute)
	if err != nil {
		return workspaceTimes{}, "", fmt.Errorf("diagnostics: %w", err)
	}
	a, err := c.waitEvent(t0, func(e event) bool {
		return e.kind == "progress-end" && e.title == "faultline: angelic analysis" && !strings.HasPrefix(e.message, "cancelled")
	}, 15*time.Minute)
	if err != nil {
		return workspaceTimes{}, "", fmt.Errorf("angelic analysis: %w", err)
	}
	return workspaceTimes{diagnostics: d.at.Sub(t0), angelic: a.at.Sub(t0), summary: a.message}, d.uri, nil
}

// requestLatencies times inlay hints on the whole document and hovers on
// random lines of it, n of each.
func requestLatencies(c *client, uri string, n int, r *rand.Rand) (hints, hovers []time.Duration, err error) {
	text, err := os.ReadFile(strings.TrimPrefix(uri, "file://"))
	if err != nil {
		return nil, nil, err
	}
	lines := bytes.Count(text, []byte("\n")) + 1
	doc := map[string]any{"uri": uri}
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if _, err := c.call("textDocument/inlayHint", map[string]any{"textDocument": doc,
			"range": map[string]any{"start": pos(0, 0), "end": pos(lines, 0)}}); err != nil {
			return nil, nil, err
		}
		hints = append(hints, time.Since(t0))
		t0 = time.Now()
		if _, err := c.call("textDocument/hover", map[string]any{"textDocument": doc, "position": pos(r.IntN(lines), 2)}); err != nil {
			return nil, nil, err
		}
		hovers = append(hovers, time.Since(t0))
	}
	return hints, hovers, nil
}

func printWorkspaceReport(rows []workspaceTimes, hints, hovers []time.Duration, rss, hwm, workers int) {
	fmt.Printf("One `faultline serve` session, default settings (angelic on), %d CPUs, load %s at the end.\n\n", runtime.NumCPU(), loadAverage())
	fmt.Println("| workspace | event | save/open → first diagnostics | → last angelic finding | analysis | server peak RSS so far |")
	fmt.Println("|---|---|---|---|---|---|")
	var diag, ang []time.Duration
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s | %d MB |\n", r.name, strings.ReplaceAll(r.what, "|", "\\|"), r.diagnostics.Round(10*time.Millisecond), r.angelic.Round(10*time.Millisecond), r.summary, r.serverHWM>>10)
		diag, ang = append(diag, r.diagnostics), append(ang, r.angelic)
	}
	if len(rows) == 0 {
		return
	}
	fmt.Printf("\nfirst diagnostics: %s; last angelic finding: %s\n", summarizeSeconds(diag), summarizeSeconds(ang))
	fmt.Printf("inlay hints (whole file), %d requests: %s\n", len(hints), summarize(hints))
	fmt.Printf("hover (random line), %d requests: %s\n", len(hovers), summarize(hovers))
	fmt.Printf("server resident memory: %d MB at the end, %d MB peak; analysis workers: %d MB peak (sampled every 50 ms)\n", rss>>10, hwm>>10, workers>>10)
}

func summarizeSeconds(d []time.Duration) string {
	if len(d) == 0 {
		return "none"
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return fmt.Sprintf("median %s, max %s", s[len(s)/2].Round(10*time.Millisecond), s[len(s)-1].Round(10*time.Millisecond))
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
