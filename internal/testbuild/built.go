package testbuild

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// BuildHelperEnv names the environment variable that holds the path of an
// executable answering BuildHelperArg (faultline itself sets it): with it,
// BuildTestsEach hands over each test binary as soon as it is linked.
const BuildHelperEnv = "FAULTLINE_BUILD_HELPER"

// BuildHelperArg is the first argument of an executable run as the build
// helper (go test -exec): the executable calls BuildHelper with the rest.
const BuildHelperArg = "__faultline-built"

// Where the helper delivers: the socket BuildTestsEach listens on and the
// directory the binaries are linked into.
const (
	builtSocketEnv = "FAULTLINE_BUILT_SOCKET"
	builtDirEnv    = "FAULTLINE_BUILT_DIR"
)

// BuildTestsEach builds the test binaries of pkgs through the overlay into
// dir, as BuildTests does, and calls built with each binary as soon as it is
// linked, from one goroutine, while the others are still building: go test
// runs the build helper (BuildHelperEnv) in place of each test binary, and
// the helper hands the binary over. Without a helper, or for one package,
// the binaries are built together and handed over at the end. It returns
// the compiler's message for each package that did not build.
func (m *Module) BuildTestsEach(ctx context.Context, o *Overlay, pkgs []*Package, flags []string, dir string, built func(*Binary)) (map[string]string, error) {
	helper := m.Getenv(BuildHelperEnv)
	if helper == "" || len(pkgs) < 2 || strings.ContainsAny(helper, `'"`) {
		bins, failed, err := m.BuildTests(ctx, o, pkgs, flags, dir)
		if err != nil {
			return nil, err
		}
		for _, p := range pkgs {
			if b := bins[p.ImportPath]; b != nil {
				built(b)
			}
		}
		return failed, nil
	}
	overlay, err := o.file()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the build directory: %w", err)
	}
	socket := filepath.Join(dir, "built.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("listening for built test binaries: %w", err)
	}
	byDir := map[string]*Package{}
	for _, p := range pkgs {
		byDir[p.Dir] = p
	}
	var mu sync.Mutex
	got := map[string]bool{}
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // the listener is closed
			}
			pkgDir, path, err := readBuilt(conn)
			p := byDir[pkgDir]
			if err == nil && p == nil {
				p = sameDir(pkgs, pkgDir)
			}
			if err == nil && p == nil {
				err = fmt.Errorf("no package in %s", pkgDir)
			}
			mu.Lock()
			if err == nil && got[p.ImportPath] {
				err = fmt.Errorf("%s handed over twice", p.ImportPath)
			}
			if err == nil {
				got[p.ImportPath] = true
			}
			mu.Unlock()
			if err != nil {
				fmt.Fprintf(conn, "error %s\n", err)
				conn.Close()
				continue
			}
			built(&Binary{Package: p, Path: path})
			io.WriteString(conn, "ok\n")
			conn.Close()
		}
	}()
	// -count=1: a cached result would not run the helper. -timeout=0: the
	// helper waits while faultline's test processes are all busy.
	args := append([]string{"test", "-count=1", "-timeout=0", "-vet=off", "-exec", "'" + helper + "' " + BuildHelperArg, "-overlay", overlay}, linkFlags(flags)...)
	for _, p := range pkgs {
		args = append(args, p.ImportPath)
	}
	cmd := m.command(ctx, "", args...)
	cmd.Env = append(cmd.Env, builtSocketEnv+"="+socket, builtDirEnv+"="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	ln.Close()
	<-accepted
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return nil, fmt.Errorf("running go test: %w", runErr)
	}
	failed := map[string]string{}
	if runErr == nil && len(got) < len(pkgs) {
		return nil, fmt.Errorf("go test ended with %d of %d test binaries handed over:\n%s", len(got), len(pkgs), stdout.String())
	}
	if runErr != nil {
		msgs := splitBuildErrors(stderr.String())
		for _, p := range pkgs {
			if got[p.ImportPath] {
				continue
			}
			switch {
			case msgs[p.ImportPath] != "":
				failed[p.ImportPath] = msgs[p.ImportPath]
			case strings.TrimSpace(stderr.String()) != "":
				failed[p.ImportPath] = strings.TrimSpace(stderr.String())
			default:
				// Not a build failure: the helper's own complaint.
				return nil, fmt.Errorf("handing over the test binary of %s: %s", p.ImportPath, strings.TrimSpace(stdout.String()))
			}
		}
	}
	return failed, nil
}

// sameDir returns the package whose directory is dir under another name
// (a symbolic link), or nil.
func sameDir(pkgs []*Package, dir string) *Package {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	for _, p := range pkgs {
		if pi, err := os.Stat(p.Dir); err == nil && os.SameFile(fi, pi) {
			return p
		}
	}
	return nil
}

// readBuilt reads the helper's one line: the package directory and the
// binary's path, quoted.
func readBuilt(conn net.Conn) (string, string, error) {
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "", "", fmt.Errorf("reading the build helper: %w", err)
	}
	pkgDir, rest, err := unquotePrefix(strings.TrimSuffix(line, "\n"))
	if err != nil {
		return "", "", err
	}
	path, err := strconv.Unquote(strings.TrimPrefix(rest, " "))
	if err != nil {
		return "", "", fmt.Errorf("build helper line %q: %w", line, err)
	}
	return pkgDir, path, nil
}

func unquotePrefix(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", fmt.Errorf("build helper line %q: %w", s, err)
	}
	v, err := strconv.Unquote(q)
	return v, s[len(q):], err
}

// BuildHelper is the build helper's work, run by go test in place of a
// test binary (args: the binary and its flags) in the package's directory:
// it links the binary into the directory BuildTestsEach gave, hands it
// over and returns the exit code, 0 once BuildTestsEach has it.
func BuildHelper(args []string) int {
	if err := handOver(args); err != nil {
		fmt.Fprintln(os.Stderr, "faultline build helper:", err)
		return 1
	}
	return 0
}

func handOver(args []string) error {
	socket, dir := os.Getenv(builtSocketEnv), os.Getenv(builtDirEnv)
	if len(args) == 0 || socket == "" || dir == "" {
		return fmt.Errorf("run by go test -exec from faultline only")
	}
	pkgDir, err := os.Getwd()
	if err != nil {
		return err
	}
	// The go command removes its work directory when it ends: the binary
	// is linked out of it (copied across file systems).
	dst := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+filepath.Base(args[0]))
	if err := os.Link(args[0], dst); err != nil {
		if err := copyExecutable(args[0], dst); err != nil {
			return err
		}
	}
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return fmt.Errorf("handing over %s: %w", dst, err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "%s %s\n", strconv.Quote(pkgDir), strconv.Quote(dst)); err != nil {
		return fmt.Errorf("handing over %s: %w", dst, err)
	}
	reply, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("handing over %s: %w", dst, err)
	}
	if reply != "ok\n" {
		return fmt.Errorf("handing over %s: %s", dst, strings.TrimSpace(reply))
	}
	return nil
}

func copyExecutable(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return nil
}
