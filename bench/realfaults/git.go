package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
)

// gitRepo is a repository's history on this machine: a git directory,
// bare or not.
type gitRepo struct{ dir string }

// findGitDir looks for a repository's history under root: root/owner+name/repo
// (as the library's fetch leaves it), root/owner+name.git or root/owner+name.
func findGitDir(root, repo string) (gitRepo, error) {
	flat := strings.ReplaceAll(repo, "/", "+")
	for _, c := range []string{filepath.Join(flat, "repo"), flat + ".git", flat, filepath.Join(flat, ".git")} {
		dir := filepath.Join(root, c)
		if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
			return gitRepo{dir}, nil
		}
	}
	return gitRepo{}, fmt.Errorf("no git history of %s under %s", repo, root)
}

func (g gitRepo) run(ctx context.Context, args ...string) ([]byte, error) {
	res, err := gocmd.Run(ctx, "", nil, 5*time.Minute, "git", append([]string{"--git-dir", g.dir}, args...)...)
	if err != nil {
		// The output so far goes back too: a caller may use what a
		// history cut short still gives.
		return res.Stdout, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, gocmd.Tail(res.Stderr, 500))
	}
	return res.Stdout, nil
}

// show returns a file's content at a commit; ok is false when the file
// does not exist there.
func (g gitRepo) show(ctx context.Context, commit, path string) ([]byte, bool, error) {
	res, err := gocmd.Run(ctx, "", nil, time.Minute, "git", "--git-dir", g.dir, "cat-file", "-e", commit+":"+path)
	if err != nil {
		if res.TimedOut {
			return nil, false, err
		}
		return nil, false, nil
	}
	out, err := g.run(ctx, "show", commit+":"+path)
	return out, err == nil, err
}

// files lists every file of a commit's tree.
func (g gitRepo) files(ctx context.Context, commit string) ([]string, error) {
	out, err := g.run(ctx, "ls-tree", "-r", "--name-only", "-z", commit)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range bytes.Split(out, []byte{0}) {
		if len(n) > 0 {
			names = append(names, string(n))
		}
	}
	return names, nil
}

// export writes a commit's tree into dir, which must not exist yet.
func (g gitRepo) export(ctx context.Context, commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	res, err := gocmd.Run(ctx, "", nil, 5*time.Minute, "sh", "-c",
		`git --git-dir "$1" archive --format=tar "$2" | tar -x -C "$3"`, "export", g.dir, commit, dir)
	if err != nil {
		return fmt.Errorf("exporting %s: %w: %s", commit, err, gocmd.Tail(res.Stderr, 500))
	}
	return nil
}
