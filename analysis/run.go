package analysis

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// maxTraceEvents bounds a trace (the runtime stops recording there): a
// forced value can make a loop run away, and such a run is not replayed.
const maxTraceEvents = 200000

// event is one recorded dynamic instance of a site.
type event struct {
	site  int32
	inst  instance
	value int64
}

// forcedValue is a value the runtime substitutes at one dynamic instance.
type forcedValue struct {
	Site  int32 `json:"Site"`
	Act   int32 `json:"Act"`
	Local int32 `json:"Local"`
	Value int64 `json:"Value"`
}

// runResult is one run of the leaf test.
type runResult struct {
	passed    bool
	elapsed   time.Duration
	truncated bool // the trace hit the runtime's event bound
	trace     []event
	output    string
}

// testBinary is an instrumented test binary and the leaf test it runs.
type testBinary struct {
	path    string
	dir     string // package directory: tests run there, like go test
	workDir string
	timeout time.Duration
	runs    int
}

// buildTestBinary compiles the package's test binary with the overlay.
func buildTestBinary(ctx context.Context, prog *program, pkgDir, pkgPath, workDir string) (*testBinary, error) {
	overlay := filepath.Join(workDir, "overlay.json")
	if err := prog.writeOverlay(overlay); err != nil {
		return nil, err
	}
	bin := filepath.Join(workDir, "pkg.test")
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-vet=off", "-overlay", overlay, "-o", bin, pkgPath)
	cmd.Dir = prog.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("building the instrumented test binary of %s: %v: %s", pkgPath, err, strings.TrimSpace(stderr.String()))
	}
	return &testBinary{path: bin, dir: pkgDir, workDir: workDir, timeout: 20 * time.Second}, nil
}

// testPattern selects exactly one leaf test: every level anchored and quoted.
func testPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// run runs one leaf test with the given values forced and reads its trace.
func (b *testBinary) run(ctx context.Context, test string, force []forcedValue) (*runResult, error) {
	b.runs++
	tracePath := filepath.Join(b.workDir, "trace.txt")
	forcePath := filepath.Join(b.workDir, "force.json")
	os.Remove(tracePath)
	env := append(os.Environ(), traceEnv+"="+tracePath)
	if len(force) > 0 {
		data, err := json.Marshal(force)
		if err != nil {
			return nil, fmt.Errorf("encoding forced values: %w", err)
		}
		if err := os.WriteFile(forcePath, data, 0o644); err != nil {
			return nil, fmt.Errorf("writing forced values: %w", err)
		}
		env = append(env, forceEnv+"="+forcePath)
	}
	rctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, b.path, "-test.run", testPattern(test), "-test.v", "-test.count=1", "-test.timeout", b.timeout.String())
	cmd.Dir = b.dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	began := time.Now()
	err := cmd.Run()
	elapsed := time.Since(began)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("running %s: %w", test, err)
	}
	res := &runResult{output: out.String(), elapsed: elapsed}
	res.passed = err == nil && strings.Contains(res.output, "--- PASS: "+test+" ") && !strings.Contains(res.output, "--- FAIL")
	res.trace, err = readTrace(tracePath)
	if err != nil {
		return nil, err
	}
	res.truncated = len(res.trace) >= maxTraceEvents
	return res, nil
}

func readTrace(path string) ([]event, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	defer f.Close()
	var out []event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 {
			continue // a line cut by a crash
		}
		s, err1 := strconv.ParseInt(fields[0], 10, 32)
		act, err2 := strconv.ParseInt(fields[1], 10, 32)
		local, err3 := strconv.ParseInt(fields[2], 10, 32)
		v, err4 := strconv.ParseInt(fields[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		out = append(out, event{int32(s), instance{int32(act), int32(local)}, v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	return out, nil
}
