package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/mutation"
)

// subject is a module both binaries rank: a copy, so that neither run
// writes into the repository.
type subject struct {
	name string
	dir  string
}

// seededFault is a real module with one single-token mutant applied: a
// fault its tests catch, in a module small enough to rank in well under a
// minute.
type seededFault struct {
	module string // module@version, from the module proxy
	site   mutation.Site
}

// seededFaults are three small pure-Go modules of bench/analysiscrash's
// list, each with a mutant from bench/internal/mutation (seed 1) that makes
// one to three of its tests fail.
var seededFaults = []seededFault{
	{"github.com/agnivade/levenshtein@v1.2.2", mutation.Site{File: "levenshtein.go", Offset: 2994, Line: 114, Old: "==", New: "!="}},
	{"github.com/iancoleman/strcase@v0.3.0", mutation.Site{File: "snake.go", Offset: 2545, Line: 71, Old: ">=", New: ">"}},
	{"github.com/google/shlex@v0.0.0-20191202100458-e7afc7fbc510", mutation.Site{File: "shlex.go", Offset: 9819, Line: 408, Old: "!=", New: "=="}},
}

// prepareSubjects copies every example module of the repository under dir
// and, with withBench, writes the seeded faults beside them.
func prepareSubjects(ctx context.Context, root, dir string, withBench bool) ([]subject, error) {
	examples, err := filepath.Glob(filepath.Join(root, "examples", "*", "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("listing examples: %w", err)
	}
	if len(examples) == 0 {
		return nil, fmt.Errorf("no example module under %s", filepath.Join(root, "examples"))
	}
	var out []subject
	for _, gomod := range examples {
		src := filepath.Dir(gomod)
		s := subject{name: "examples/" + filepath.Base(src), dir: filepath.Join(dir, "examples", filepath.Base(src))}
		if err := mutation.CopyTree(src, s.dir); err != nil {
			return nil, fmt.Errorf("copying %s: %w", s.name, err)
		}
		out = append(out, s)
	}
	if !withBench {
		return out, nil
	}
	for _, f := range seededFaults {
		s, err := f.prepare(ctx, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// prepare fetches the module, copies it under dir with its dependencies
// downloaded, and applies the mutant.
func (f seededFault) prepare(ctx context.Context, dir string) (subject, error) {
	spec, err := mutation.ParseSubjectSpec(f.module)
	if err != nil {
		return subject{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return subject{}, fmt.Errorf("scratch directory: %w", err)
	}
	src, err := mutation.ModuleSource(ctx, spec, dir)
	if err != nil {
		return subject{}, err
	}
	s := subject{name: spec.Module + " " + f.site.ID(), dir: filepath.Join(dir, strings.NewReplacer("/", "_", "@", "_").Replace(f.module))}
	if err := mutation.CopyTree(src, s.dir); err != nil {
		return subject{}, fmt.Errorf("copying %s: %w", f.module, err)
	}
	if err := mutation.FetchDependencies(ctx, s.dir, spec.Module); err != nil {
		return subject{}, err
	}
	path := filepath.Join(s.dir, filepath.FromSlash(f.site.File))
	data, err := os.ReadFile(path)
	if err != nil {
		return subject{}, fmt.Errorf("seeding %s: %w", s.name, err)
	}
	mutated, err := f.site.Apply(data)
	if err != nil {
		return subject{}, fmt.Errorf("seeding %s: %w", f.module, err)
	}
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return subject{}, fmt.Errorf("seeding %s: %w", s.name, err)
	}
	return s, nil
}

// resolveBase names the base revision as a commit: rev, or by default the
// merge-base of HEAD and main, or HEAD~1 when that is HEAD itself (on main).
func resolveBase(ctx context.Context, root, rev string) (string, error) {
	if rev == "" {
		head, err := gitOutput(ctx, root, "rev-parse", "HEAD")
		if err != nil {
			return "", err
		}
		rev = "HEAD~1"
		if mb, err := gitOutput(ctx, root, "merge-base", "HEAD", "main"); err == nil && mb != head {
			rev = mb
		}
	}
	commit, err := gitOutput(ctx, root, "rev-parse", "--verify", "--short", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("base revision %q: %w", rev, err)
	}
	return commit, nil
}

// buildAt checks rev out into dir with git worktree add, builds faultline
// there into bin, and removes the worktree again.
func buildAt(ctx context.Context, root, rev, dir, bin string) error {
	if _, err := gitOutput(ctx, root, "worktree", "add", "--detach", dir, rev); err != nil {
		return err
	}
	defer gitOutput(context.WithoutCancel(ctx), root, "worktree", "remove", "--force", dir)
	return build(ctx, dir, bin)
}

// build builds the faultline command of the source tree at dir into bin:
// cmd/faultline, or the repository root for revisions from before the
// command moved there.
func build(ctx context.Context, dir, bin string) error {
	pkg := "./cmd/faultline"
	if _, err := os.Stat(filepath.Join(dir, "cmd", "faultline")); err != nil {
		pkg = "."
	}
	res, err := gocmd.Run(ctx, dir, []string{"GOWORK=off"}, 10*time.Minute, "go", "build", "-o", bin, pkg)
	if err != nil {
		return fmt.Errorf("go build %s: %w: %s", pkg, err, gocmd.Tail(res.Stderr, 2000))
	}
	return nil
}

// gitOutput runs git in dir and returns its trimmed standard output.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	res, err := gocmd.Run(ctx, dir, nil, 2*time.Minute, "git", args...)
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, gocmd.Tail(res.Stderr, 1000))
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}
