package spectra

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// listedPackage is the part of go list's output the collector uses.
type listedPackage struct {
	ImportPath      string
	Name            string
	Dir             string
	GoFiles         []string
	CgoFiles        []string
	EmbedFiles      []string
	TestGoFiles     []string
	XTestGoFiles    []string
	TestEmbedFiles  []string
	XTestEmbedFiles []string
	Imports         []string
	TestImports     []string
	XTestImports    []string
	Module          *struct{ Path, Dir string }
	Error           *struct{ Err string }
}

// goTool runs the go command for one module.
type goTool struct {
	root string // module root, the working directory of every go command
	env  []string
}

func (g *goTool) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = g.root
	cmd.Env = g.env
	return cmd
}

// output runs a go command and returns its standard output; a failure
// carries the command's standard error.
func (g *goTool) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out, fmt.Errorf("go %s: %s", args[0], strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("running go %s: %w", args[0], err)
	}
	return out, nil
}

// list runs go list on the patterns and returns the packages of the main
// module, keeping packages with errors (they are reported, not fatal).
func (g *goTool) list(ctx context.Context, moduleRoot string, patterns ...string) ([]*listedPackage, error) {
	args := append([]string{"list", "-e", "-json"}, patterns...)
	out, err := g.output(ctx, args...)
	if err != nil && len(out) == 0 {
		return nil, err
	}
	var pkgs []*listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(listedPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		if p.Module == nil || filepath.Clean(p.Module.Dir) != moduleRoot {
			continue // outside the main module
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// goEnv returns the values of go env variables that change what a test
// binary is built from.
func (g *goTool) goEnv(ctx context.Context) (string, error) {
	out, err := g.output(ctx, "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64")
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// toolPath returns the path of a go tool binary such as test2json,
// building it into the build cache the first time.
func (g *goTool) toolPath(ctx context.Context, name string) (string, error) {
	out, err := g.output(ctx, "tool", "-n", name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// buildTests builds the test binaries of pkgs into dir with the overlay,
// one binary per package named <import path with / replaced>.test. It
// returns the compiler's message for each package that did not build.
func (g *goTool) buildTests(ctx context.Context, overlay, dir string, pkgs []*listedPackage, buildFlags []string) (map[string]string, error) {
	failed := map[string]string{}
	batches := 0
	// go test -c -o dir/ names binaries by the last path element, so
	// packages sharing one go in separate batches.
	for len(pkgs) > 0 {
		seen := map[string]bool{}
		var batch, rest []*listedPackage
		for _, p := range pkgs {
			base := execName(p.ImportPath)
			if seen[base] {
				rest = append(rest, p)
				continue
			}
			seen[base] = true
			batch = append(batch, p)
		}
		batches++
		batchDir := filepath.Join(dir, fmt.Sprintf("batch%d", batches))
		if err := os.MkdirAll(batchDir, 0o755); err != nil {
			return nil, fmt.Errorf("creating build directory: %w", err)
		}
		// No vet: it is the user's to run, it costs time on every build,
		// and it knows nothing of the overlay-only runtime package.
		args := append([]string{"test", "-c", "-vet=off", "-o", batchDir + string(filepath.Separator), "-overlay", overlay}, buildFlags...)
		for _, p := range batch {
			args = append(args, p.ImportPath)
		}
		cmd := g.command(ctx, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Stdout = io.Discard
		runErr := cmd.Run()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, p := range batch {
			built := filepath.Join(batchDir, execName(p.ImportPath)+".test")
			if _, err := os.Stat(built); err == nil {
				if err := os.Rename(built, binaryPath(dir, p.ImportPath)); err != nil {
					return nil, fmt.Errorf("moving test binary: %w", err)
				}
			}
		}
		if runErr != nil {
			for pkg, msg := range splitBuildErrors(stderr.String()) {
				failed[pkg] = msg
			}
			var exit *exec.ExitError
			if !errors.As(runErr, &exit) {
				return nil, fmt.Errorf("running go test -c: %w", runErr)
			}
		}
		pkgs = rest
	}
	return failed, nil
}

// execName is the name the go command gives a package's executable: the
// last element of its import path, or the one before a major-version
// suffix such as /v4.
func execName(importPath string) string {
	elems := strings.Split(importPath, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		return elems[len(elems)-2]
	}
	return last
}

func binaryPath(dir, importPath string) string {
	return filepath.Join(dir, strings.ReplaceAll(importPath, "/", "_")+".test")
}

// splitBuildErrors splits go build's standard error into the message of
// each package: sections headed "# import/path [import/path.test]".
func splitBuildErrors(stderr string) map[string]string {
	msgs := map[string]string{}
	var pkg string
	var cur strings.Builder
	flush := func() {
		if pkg != "" {
			msgs[pkg] += cur.String()
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(line, "# ") {
			flush()
			fields := strings.Fields(strings.TrimPrefix(line, "# "))
			if len(fields) > 0 {
				pkg = fields[0]
			}
			continue
		}
		if strings.HasPrefix(line, "FAIL\t") || strings.HasPrefix(line, "ok ") {
			continue
		}
		cur.WriteString(line)
	}
	flush()
	if len(msgs) == 0 && strings.TrimSpace(stderr) != "" {
		msgs[""] = stderr
	}
	for k, v := range msgs {
		msgs[k] = strings.TrimSpace(v)
	}
	return msgs
}
