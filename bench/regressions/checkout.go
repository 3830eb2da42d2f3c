package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// checkout is a working clone of a project's history (sharing the
// history's objects), moved from commit to commit.
type checkout struct {
	git realfault.Repo // the history it shares
	dir string
}

// openCheckout returns the project's clone under work, making it on first
// use.
func openCheckout(ctx context.Context, g realfault.Repo, work, repo string) (*checkout, error) {
	dir := filepath.Join(work, "clones", strings.ReplaceAll(repo, "/", "+"))
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return nil, err
		}
		os.RemoveAll(dir)
		res, err := gocmd.Run(ctx, "", nil, 10*time.Minute, "git", "clone", "-q", "--shared", "--no-checkout", g.Dir, dir)
		if err != nil {
			return nil, fmt.Errorf("cloning %s: %w: %s", repo, err, gocmd.Tail(res.Stderr, 500))
		}
	}
	return &checkout{git: g, dir: dir}, nil
}

func (c *checkout) gitCmd(ctx context.Context, args ...string) error {
	res, err := gocmd.Run(ctx, c.dir, nil, 5*time.Minute, "git", args...)
	if err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, gocmd.Tail(res.Stderr, 500))
	}
	return nil
}

// at puts the clone at commit (detached, untracked files removed) and
// writes the test files as they are at testsFrom over it (removing those
// testsFrom lacks): the working tree a regression's test runs in. A
// commit from before the project had a go.mod (or a go.sum) gets
// testsFrom's, untracked and ignored, so that the go command builds it
// as a module and faultline explain sees no change in them (those of
// t.GoModFrom, when the fix has none); modFrom says which files came so.
func (c *checkout) at(ctx context.Context, commit string, t testSetup) (modFrom []string, err error) {
	testsFrom := t.Fix
	modsFrom := t.Fix
	if t.GoModFrom != "" {
		modsFrom = t.GoModFrom
	}
	if err := c.gitCmd(ctx, "checkout", "-q", "-f", "--detach", commit); err != nil {
		return nil, err
	}
	if err := c.gitCmd(ctx, "clean", "-q", "-ffdx"); err != nil {
		return nil, err
	}
	exclude := filepath.Join(c.dir, ".git", "info", "exclude")
	if err := os.MkdirAll(filepath.Dir(exclude), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(exclude, []byte("/go.mod\n/go.sum\n"), 0o644); err != nil {
		return nil, err
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		dst := filepath.Join(c.dir, f)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		data, ok, err := c.git.Show(ctx, modsFrom, f)
		if err != nil {
			return nil, err
		}
		if ok {
			if f == "go.mod" {
				data, err = c.ownModule(ctx, commit, data)
				if err != nil {
					return nil, err
				}
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return nil, err
			}
			modFrom = append(modFrom, f)
		}
	}
	if !t.Migrate {
		if err := c.overlay(ctx, testsFrom, t.Files); err != nil {
			return nil, err
		}
	} else {
		var inputs []string
		for _, f := range t.Files {
			if !strings.HasSuffix(f, ".go") {
				inputs = append(inputs, f)
			}
		}
		if err := c.overlay(ctx, testsFrom, inputs); err != nil {
			return nil, err
		}
		if err := c.migrate(ctx, t); err != nil {
			return nil, err
		}
	}
	return modFrom, c.tidy(ctx, modFrom)
}

// tidy resolves the imports of a working tree whose go.mod came from the
// fix (modFrom names it): the fix's requirements need not cover the older
// code's imports, nor its tests'. The files it changes are ones git
// ignores here.
func (c *checkout) tidy(ctx context.Context, modFrom []string) error {
	if !slices.Contains(modFrom, "go.mod") {
		return nil
	}
	res, err := gocmd.Run(ctx, c.dir, gocmd.GoEnv(), 3*time.Minute, "go", "mod", "tidy", "-e")
	if err != nil && res.TimedOut {
		return fmt.Errorf("go mod tidy: %w", err)
	}
	return nil
}

// testSetup says how a regression's test gets into a working tree: the
// fix's test files (Files, written whole) or, when Migrate, only the
// failing test's function with what it needs (migrateTest) and the fix's
// test inputs.
type testSetup struct {
	Fix     string
	Files   []string
	Dir     string // the test's package directory
	Test    string // the leaf test
	Migrate bool
	// GoModFrom is the commit whose go.mod and go.sum a commit without
	// them gets, when not the fix (a fix from before the project had a
	// go.mod: the commit that added it).
	GoModFrom string
}

// migrate writes the test's function from the fix's test file that
// declares it into that file of the working tree.
func (c *checkout) migrate(ctx context.Context, t testSetup) error {
	top, _, _ := strings.Cut(t.Test, "/")
	var file string
	var fixSrcs [][]byte // the test's file first
	names, err := c.git.Files(ctx, t.Fix)
	if err != nil {
		return err
	}
	for _, f := range names {
		if !strings.HasSuffix(f, "_test.go") || path.Dir(f) != t.Dir {
			continue
		}
		data, ok, err := c.git.Show(ctx, t.Fix, f)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if file == "" && bytes.Contains(data, []byte("func "+top+"(")) {
			file = f
			fixSrcs = append([][]byte{data}, fixSrcs...)
		} else {
			fixSrcs = append(fixSrcs, data)
		}
	}
	if file == "" {
		return fmt.Errorf("no test file of the fix declares %s", top)
	}
	pkgDir := filepath.Join(c.dir, filepath.FromSlash(t.Dir))
	declared, err := testDecls(pkgDir, path.Base(file))
	if err != nil {
		return err
	}
	dst := filepath.Join(c.dir, filepath.FromSlash(file))
	old, err := os.ReadFile(dst)
	if errors.Is(err, fs.ErrNotExist) {
		old, err = nil, nil
	}
	if err != nil {
		return err
	}
	fixMod, err := c.modulePath(ctx, t.Fix)
	if err != nil {
		return err
	}
	oldGoMod, err := os.ReadFile(filepath.Join(c.dir, "go.mod"))
	if err != nil {
		return err
	}
	src, err := migrateTest(fixSrcs, old, top, declared, fixMod, modfile.ModulePath(oldGoMod))
	if err != nil {
		return err
	}
	return os.WriteFile(dst, src, 0o644)
}

// ownModule returns gomod (the fix's go.mod, for a commit from before the
// project had one) with the module path the commit's code imports its own
// packages by, which before modules was often not the fix's (no major
// version suffix, a gopkg.in path): the path P for which the most imports
// read P/dir with dir a directory of the tree.
func (c *checkout) ownModule(ctx context.Context, commit string, gomod []byte) ([]byte, error) {
	files, err := c.git.Files(ctx, commit)
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".go") {
			dirs[path.Dir(f)] = true
		}
	}
	votes := map[string]int{}
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || strings.HasPrefix(f, "vendor/") || strings.Contains(f, "/vendor/") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(c.dir, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		pf, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, im := range pf.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for d := range dirs {
				if d != "." && strings.HasSuffix(p, "/"+d) {
					votes[strings.TrimSuffix(p, "/"+d)]++
				}
			}
		}
	}
	best := ""
	for p, n := range votes {
		if n > votes[best] || n == votes[best] && p < best {
			best = p
		}
	}
	return withModulePath(gomod, best)
}

// withModulePath returns gomod declaring the module path modPath (gomod
// itself when it already does, when modPath is empty or when gomod does
// not parse). The retractions go: they name versions of the fix's module
// path, and a version of another major version than the path's is an error
// to the go command ("errors parsing go.mod"), so a v2 module's go.mod
// moved under its pre-modules path would build nothing.
func withModulePath(gomod []byte, modPath string) ([]byte, error) {
	mf, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil || modPath == "" || mf.Module == nil || mf.Module.Mod.Path == modPath {
		return gomod, nil
	}
	if err := mf.AddModuleStmt(modPath); err != nil {
		return nil, fmt.Errorf("setting the module path %s: %w", modPath, err)
	}
	for _, r := range slices.Clone(mf.Retract) {
		if err := mf.DropRetract(r.VersionInterval); err != nil {
			return nil, fmt.Errorf("dropping a retraction: %w", err)
		}
	}
	mf.Cleanup()
	return mf.Format()
}

// modulePath is the module path in a commit's go.mod.
func (c *checkout) modulePath(ctx context.Context, commit string) (string, error) {
	data, ok, err := c.git.Show(ctx, commit, "go.mod")
	if err != nil || !ok {
		return "", fmt.Errorf("no go.mod at %s: %v", commit, err)
	}
	return modfile.ModulePath(data), nil
}

// testDecls are the names the test files of a package directory declare
// at top level, but for one file.
func testDecls(dir, except string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || e.Name() == except || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			continue // a file that does not parse fails the build anyway
		}
		for _, d := range f.Decls {
			for _, n := range declNames(d) {
				out[n] = true
			}
		}
	}
	return out, nil
}

// overlay writes files as they are at from over the working tree,
// removing those from lacks.
func (c *checkout) overlay(ctx context.Context, from string, files []string) error {
	return realfault.WriteFilesAt(ctx, c.git.Show, c.dir, from, files)
}

// Verdicts of one leaf test in a working tree.
const (
	verdictPass    = "pass"
	verdictFail    = "fail"
	verdictNoBuild = "no build"
	verdictNoTest  = "no test"
	verdictTimeout = "timeout"
)

// runPattern is the go test -run pattern that selects exactly one leaf
// test: each element of its name anchored and quoted.
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// testVerdict runs one leaf test of the package in module-relative dir of
// the clone's working tree.
// detail is, for a test that did not build, the first line of go's error.
func (c *checkout) testVerdict(ctx context.Context, dir, test string, timeout time.Duration) (verdict, detail string) {
	pkg := "."
	if dir != "." {
		pkg = "./" + dir
	}
	args := []string{"test", "-json", "-count=1", "-vet=off", "-p=1", "-timeout", timeout.String(), "-run", runPattern(test), pkg}
	res, _ := gocmd.Run(ctx, c.dir, gocmd.GoEnv(), timeout+time.Minute, "go", args...)
	if res.TimedOut {
		return verdictTimeout, ""
	}
	out, err := gocmd.ParseTestEvents(res.Stdout)
	if err != nil {
		return verdictNoBuild, realfault.FirstLine(err.Error())
	}
	if out.TimedOut {
		return verdictTimeout, ""
	}
	for id, v := range out.Leaves {
		if id.Test == test {
			return v, ""
		}
	}
	if out.BuildFailed || len(out.Leaves) == 0 && len(res.Stderr) > 0 {
		return verdictNoBuild, buildError(res.Stdout, res.Stderr)
	}
	return verdictNoTest, ""
}

// buildError is the first line of go's complaint about a build: in the
// build output events, or on standard error.
func buildError(stdout, stderr []byte) string {
	var lines []string
	for _, l := range strings.Split(string(stdout), "\n") {
		var ev struct{ Action, Output string }
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Action == "build-output" {
			lines = append(lines, ev.Output)
		}
	}
	lines = append(lines, strings.Split(string(stderr), "\n")...)
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "go: downloading") && !strings.HasPrefix(l, "FAIL") {
			return realfault.FirstLine(l)
		}
	}
	return ""
}

// testFiles reads what faultline explain keeps as in the working tree at
// every commit: the test files of the package in dir and everything under
// its testdata directory, by slash path relative to the clone.
func (c *checkout) testFiles(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	root := filepath.Join(c.dir, filepath.FromSlash(dir))
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), "_test.go") {
			data, err := os.ReadFile(filepath.Join(root, e.Name()))
			if err != nil {
				return nil, err
			}
			out[path.Join(dir, e.Name())] = data
		}
	}
	err = filepath.WalkDir(filepath.Join(root, "testdata"), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(c.dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	return out, err
}

// atWithTests puts the clone at commit with the package's test files
// replaced by tests (as testFiles read them from another working tree):
// the base as faultline explain builds it.
func (c *checkout) atWithTests(ctx context.Context, commit string, t testSetup, tests map[string][]byte) error {
	dir := t.Dir
	modFrom, err := c.at(ctx, commit, testSetup{Fix: t.Fix, GoModFrom: t.GoModFrom})
	if err != nil {
		return err
	}
	have, err := c.testFiles(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for f := range have {
		if err := os.Remove(filepath.Join(c.dir, filepath.FromSlash(f))); err != nil {
			return err
		}
	}
	for f, data := range tests {
		dst := filepath.Join(c.dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return c.tidy(ctx, modFrom)
}
