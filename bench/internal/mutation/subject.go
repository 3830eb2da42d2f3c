// Package mutation seeds single-token faults into real Go modules for the
// benchmarks: it prepares a writable, tested copy of a module from the
// module proxy or a local directory and lists the operator and constant
// mutations of its sources.
package mutation

import (
	"github.com/faultline-go/faultline/bench/internal/gocmd"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// SubjectSpec names a module to evaluate: a module version from the proxy,
// or a local module directory.
type SubjectSpec struct {
	Module  string   // module path, for a proxy subject
	Version string   // module version, for a proxy subject
	Dir     string   // local module directory, instead of Module@Version
	Pkgs    []string // package patterns to test; default ./...
}

func (s SubjectSpec) String() string {
	if s.Dir != "" {
		return s.Dir
	}
	return s.Module + "@" + s.Version
}

// ParseSubjectSpec reads "module@version" or "module@version=./a,./b/...".
func ParseSubjectSpec(text string) (SubjectSpec, error) {
	text = strings.TrimSpace(text)
	spec, pkgs, hasPkgs := strings.Cut(text, "=")
	mod, version, ok := strings.Cut(spec, "@")
	if !ok || mod == "" || version == "" || strings.ContainsAny(mod, " \t") {
		return SubjectSpec{}, fmt.Errorf("subject %q: want module@version, optionally =pkg,pkg", text)
	}
	s := SubjectSpec{Module: mod, Version: version}
	if hasPkgs {
		for _, p := range strings.Split(pkgs, ",") {
			if p = strings.TrimSpace(p); p != "" {
				s.Pkgs = append(s.Pkgs, p)
			}
		}
		if len(s.Pkgs) == 0 {
			return SubjectSpec{}, fmt.Errorf("subject %q: empty package list after =", text)
		}
	}
	return s, nil
}

// Subject is a prepared module: a writable working copy whose tests pass.
type Subject struct {
	Spec     SubjectSpec
	Module   string   // module path from go.mod
	Root     string   // working copy, the module root the harness mutates
	Packages []string // import paths that build and pass at baseline
	Files    []string // module-relative non-test Go files of those packages
	Tests    int      // leaf tests passing at baseline
	Lines    int      // source lines in Files
}

// ModuleSource locates the module's source: the module cache directory of a
// proxy subject (downloading it), or the local directory.
func ModuleSource(ctx context.Context, spec SubjectSpec, scratch string) (string, error) {
	if spec.Dir != "" {
		abs, err := filepath.Abs(spec.Dir)
		if err != nil {
			return "", fmt.Errorf("subject directory %s: %w", spec.Dir, err)
		}
		return abs, nil
	}
	res, err := gocmd.Run(ctx, scratch, gocmd.GoEnv(), 5*time.Minute,
		"go", "mod", "download", "-json", spec.Module+"@"+spec.Version)
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(res.Stdout, &info); jerr != nil && err == nil {
		return "", fmt.Errorf("go mod download %s: unreadable answer %q: %w", spec, gocmd.Tail(res.Stdout, 300), jerr)
	}
	if info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", spec, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w: %s", spec, err, gocmd.Tail(res.Stderr, 1000))
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory in the answer", spec)
	}
	return info.Dir, nil
}

// CopyTree copies a module tree into dst with writable permissions (the
// module cache is read-only), leaving out version-control directories.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if d.Name() == ".git" || d.Name() == ".hg" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil // symlinks and devices play no part in a Go build here
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// listedPackage is the subset of go list -json the harness reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Error      *struct{ Err string }
}

func listPackages(ctx context.Context, root string, pkgs []string) ([]listedPackage, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,GoFiles,Error"}, pkgs...)
	res, err := gocmd.Run(ctx, root, gocmd.GoEnv(), 5*time.Minute, "go", args...)
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w: %s", root, err, gocmd.Tail(res.Stderr, 1000))
	}
	var out []listedPackage
	dec := json.NewDecoder(bytes.NewReader(res.Stdout))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("parse go list output: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Prepare makes a working copy of the subject under work, fetches its
// dependencies, and keeps the packages whose tests pass unmodified. With
// keepFailing (a subject that carries a known fault) failing packages are
// kept too.
func Prepare(ctx context.Context, spec SubjectSpec, work string, testTimeout time.Duration, keepFailing bool) (*Subject, error) {
	src, err := ModuleSource(ctx, spec, work)
	if err != nil {
		return nil, err
	}
	name := strings.NewReplacer("/", "_", "@", "_", "\\", "_", ":", "_").Replace(strings.TrimPrefix(spec.String(), "/"))
	root := filepath.Join(work, name)
	if err := os.RemoveAll(root); err != nil {
		return nil, fmt.Errorf("clear working copy: %w", err)
	}
	if err := CopyTree(src, root); err != nil {
		return nil, fmt.Errorf("copy %s to %s: %w", src, root, err)
	}
	s := &Subject{Spec: spec, Root: root}
	if err := FetchDependencies(ctx, root, spec.Module); err != nil {
		return nil, err
	}
	modRes, err := gocmd.Run(ctx, root, gocmd.GoEnv(), time.Minute, "go", "list", "-m")
	if err != nil {
		return nil, fmt.Errorf("go list -m in %s: %w: %s", root, err, gocmd.Tail(modRes.Stderr, 500))
	}
	s.Module = strings.TrimSpace(string(modRes.Stdout))
	patterns := spec.Pkgs
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	listed, err := listPackages(ctx, root, patterns)
	if err != nil {
		return nil, err
	}
	var candidates []string
	for _, p := range listed {
		if p.Error == nil && len(p.GoFiles) > 0 {
			candidates = append(candidates, p.ImportPath)
		}
	}
	if len(candidates) == 0 {
		return nil, fmt.Errorf("subject %s: no buildable package matches %v", spec, patterns)
	}
	// Drop packages that fail unmodified, then confirm the rest pass together.
	for attempt := 0; attempt < 2; attempt++ {
		o, err := gocmd.RunGoTest(ctx, root, candidates, testTimeout, nil)
		if err != nil {
			return nil, fmt.Errorf("baseline tests of %s: %w", spec, err)
		}
		if o.TimedOut {
			return nil, fmt.Errorf("baseline tests of %s exceed %v", spec, testTimeout)
		}
		if keepFailing || (len(o.FailedPackages) == 0 && !o.BuildFailed) {
			s.Tests = o.Passed
			break
		}
		if attempt == 1 {
			return nil, fmt.Errorf("baseline tests of %s still fail after dropping failing packages: %v", spec, o.FailedPackages)
		}
		candidates = slices.DeleteFunc(candidates, func(p string) bool { return slices.Contains(o.FailedPackages, p) })
		if len(candidates) == 0 {
			return nil, fmt.Errorf("subject %s: every package fails its own tests unmodified", spec)
		}
	}
	s.Packages = candidates
	for _, p := range listed {
		if !slices.Contains(candidates, p.ImportPath) {
			continue
		}
		for _, f := range p.GoFiles {
			rel, err := filepath.Rel(root, filepath.Join(p.Dir, f))
			if err != nil || strings.HasPrefix(rel, "..") {
				continue // a package outside the copy (cannot happen for ./... patterns)
			}
			data, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", rel, err)
			}
			s.Files = append(s.Files, filepath.ToSlash(rel))
			s.Lines += bytes.Count(data, []byte("\n"))
		}
	}
	return s, nil
}

// goDirective matches the go line of a go.mod file.
var goDirective = regexp.MustCompile(`(?m)^go\s+\S+`)

// FetchDependencies makes the copy's go.mod and go.sum complete for a test
// build. A module without go.mod (published before modules) gets one. go
// mod tidy, which adds the go.sum lines of test-only dependencies, also
// writes a go directive where none was; a missing directive means language
// version 1.16, so it is pinned to that, or newer vet checks would break the
// build of old code.
func FetchDependencies(ctx context.Context, root, module string) error {
	gomod := filepath.Join(root, "go.mod")
	if _, err := os.Stat(gomod); errors.Is(err, fs.ErrNotExist) && module != "" {
		if res, err := gocmd.Run(ctx, root, gocmd.GoEnv(), time.Minute, "go", "mod", "init", module); err != nil {
			return fmt.Errorf("go mod init %s: %w: %s", module, err, gocmd.Tail(res.Stderr, 500))
		}
		if err := os.WriteFile(gomod, []byte("module "+module+"\n"), 0o644); err != nil {
			return fmt.Errorf("write go.mod: %w", err)
		}
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return fmt.Errorf("read go.mod: %w", err)
	}
	steps := [][]string{{"mod", "download"}, {"mod", "tidy"}}
	if !goDirective.Match(data) {
		steps = append(steps, []string{"mod", "edit", "-go=1.16"})
	}
	for _, args := range steps {
		if res, err := gocmd.Run(ctx, root, gocmd.GoEnv(), 5*time.Minute, "go", args...); err != nil {
			return fmt.Errorf("go %s in %s: %w: %s", strings.Join(args, " "), root, err, gocmd.Tail(res.Stderr, 1000))
		}
	}
	return nil
}
