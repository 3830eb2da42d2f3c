package testbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Binary is a built test binary.
type Binary struct {
	Package *Package
	Path    string
}

// BuildTests builds the test binaries of pkgs through the overlay into
// dir, one per package. It returns the binaries built and the compiler's
// message for each package that did not build; an error means the build
// could not be attempted at all.
func (m *Module) BuildTests(ctx context.Context, o *Overlay, pkgs []*Package, flags []string, dir string) (map[string]*Binary, map[string]string, error) {
	overlay, err := o.file()
	if err != nil {
		return nil, nil, err
	}
	built := map[string]*Binary{}
	failed := map[string]string{}
	batches := 0
	// go test -c -o dir/ names binaries by the last path element, so
	// packages sharing one go in separate batches.
	for len(pkgs) > 0 {
		seen := map[string]bool{}
		var batch, rest []*Package
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
			return nil, nil, fmt.Errorf("creating the build directory: %w", err)
		}
		// No vet: it is the user's to run, it costs time on every build, and
		// it knows nothing of the overlay-only runtime packages.
		args := append([]string{"test", "-c", "-vet=off", "-o", batchDir + string(filepath.Separator), "-overlay", overlay}, linkFlags(flags)...)
		for _, p := range batch {
			args = append(args, p.ImportPath)
		}
		cmd := m.command(ctx, "", args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Stdout = io.Discard
		runErr := cmd.Run()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		for _, p := range batch {
			bin := filepath.Join(batchDir, execName(p.ImportPath)+".test")
			if _, err := os.Stat(bin); err == nil {
				dst := filepath.Join(dir, strings.ReplaceAll(p.ImportPath, "/", "_")+".test")
				if err := os.Rename(bin, dst); err != nil {
					return nil, nil, fmt.Errorf("moving the test binary: %w", err)
				}
				built[p.ImportPath] = &Binary{Package: p, Path: dst}
			}
		}
		if runErr != nil {
			var exit *exec.ExitError
			if !errors.As(runErr, &exit) {
				return nil, nil, fmt.Errorf("running go test -c: %w", runErr)
			}
			// A package can fail in its own files or in a dependency's: the
			// latter's message heads the section of the dependency.
			msgs := splitBuildErrors(stderr.String())
			for _, p := range batch {
				if built[p.ImportPath] != nil {
					continue
				}
				if msg := msgs[p.ImportPath]; msg != "" {
					failed[p.ImportPath] = msg
				} else {
					failed[p.ImportPath] = strings.TrimSpace(stderr.String())
				}
			}
		}
		pkgs = rest
	}
	return built, failed, nil
}

// linkFlags adds to the build flags the linker's -s -w unless the user set
// linker flags: without the symbol table and DWARF a test binary links in
// about half the time, and tracebacks keep their functions, files and
// lines, which come from the runtime's own tables.
func linkFlags(flags []string) []string {
	for _, f := range flags {
		if strings.HasPrefix(f, "-ldflags") || strings.HasPrefix(f, "--ldflags") {
			return flags
		}
	}
	return append(append([]string{}, flags...), "-ldflags=-s -w")
}

// binaryKind is the file cache's kind of test binaries.
const binaryKind = "testbin"

// BuildTest builds p's test binary through the overlay, or reuses the one
// built earlier from the same inputs: key must hash everything the binary
// is built from outside the overlay (Keys.TestBinary does), the overlay's
// content and flags are added here. The binary is an entry of the file
// cache.
func (m *Module) BuildTest(ctx context.Context, o *Overlay, p *Package, flags []string, key string) (*Binary, error) {
	overlayKey, err := o.Key()
	if err != nil {
		return nil, err
	}
	entry := key + "\x00" + overlayKey + "\x00" + strings.Join(flags, "\x00") + "\x00" + p.ImportPath
	name := execName(p.ImportPath) + ".test" // as go test -c names it
	if path, ok := m.files.File(binaryKind, entry, name); ok {
		return &Binary{Package: p, Path: path}, nil
	}
	work, err := m.files.TempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	built, failed, err := m.BuildTests(ctx, o, []*Package{p}, flags, work)
	if err != nil {
		return nil, err
	}
	b := built[p.ImportPath]
	if b == nil {
		return nil, &CompileError{Package: p.ImportPath, Message: failed[p.ImportPath]}
	}
	path, err := m.files.MoveFile(binaryKind, entry, name, b.Path)
	if err != nil {
		return nil, fmt.Errorf("keeping the test binary: %w", err)
	}
	return &Binary{Package: p, Path: path}, nil
}

// CompileError is a test binary that did not compile.
type CompileError struct {
	Package string
	Message string // the compiler's messages
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("building the test binary of %s: %s", e.Package, e.Message)
}

// PlainBuildError explains why p's test binary did not build with
// instrumentation: the compiler's message from a plain build (whose
// positions are the user's), or, when a plain build works, a message that
// puts the blame on the instrumentation.
func (m *Module) PlainBuildError(ctx context.Context, p *Package, flags []string, instrumented string) string {
	args := append(append([]string{"test", "-c", "-vet=off", "-o", os.DevNull}, flags...), p.ImportPath)
	out, err := m.command(ctx, "", args...).CombinedOutput()
	if err != nil {
		var msg []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if !strings.HasPrefix(line, "# ") {
				msg = append(msg, line)
			}
		}
		return strings.Join(msg, "\n")
	}
	return "faultline could not instrument this package (a plain build works): " + instrumented
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
