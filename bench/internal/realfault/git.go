package realfault

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

// Repo is a repository's history on this machine: a git directory, bare
// or not.
type Repo struct{ Dir string }

// FindGitDir looks for a repository's history under root: root/owner+name/repo
// (as the library's fetch leaves it), root/owner+name.git or root/owner+name.
func FindGitDir(root, repo string) (Repo, error) {
	flat := strings.ReplaceAll(repo, "/", "+")
	for _, c := range []string{filepath.Join(flat, "repo"), flat + ".git", flat, filepath.Join(flat, ".git")} {
		dir := filepath.Join(root, c)
		if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
			return Repo{dir}, nil
		}
	}
	return Repo{}, fmt.Errorf("no git history of %s under %s", repo, root)
}

// Run runs a git command on the history and returns its standard output.
func (g Repo) Run(ctx context.Context, args ...string) ([]byte, error) {
	res, err := gocmd.Run(ctx, "", nil, 5*time.Minute, "git", append([]string{"--git-dir", g.Dir}, args...)...)
	if err != nil {
		// The output so far goes back too: a caller may use what a
		// history cut short still gives.
		return res.Stdout, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, gocmd.Tail(res.Stderr, 500))
	}
	return res.Stdout, nil
}

// Show returns a file's content at a commit; ok is false when the file
// does not exist there.
func (g Repo) Show(ctx context.Context, commit, path string) ([]byte, bool, error) {
	res, err := gocmd.Run(ctx, "", nil, time.Minute, "git", "--git-dir", g.Dir, "cat-file", "-e", commit+":"+path)
	if err != nil {
		if res.TimedOut {
			return nil, false, err
		}
		return nil, false, nil
	}
	out, err := g.Run(ctx, "show", commit+":"+path)
	return out, err == nil, err
}

// Files lists every file of a commit's tree.
func (g Repo) Files(ctx context.Context, commit string) ([]string, error) {
	out, err := g.Run(ctx, "ls-tree", "-r", "--name-only", "-z", commit)
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

// Export writes a commit's tree into dir, which must not exist yet.
func (g Repo) Export(ctx context.Context, commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	res, err := gocmd.Run(ctx, "", nil, 5*time.Minute, "sh", "-c",
		`git --git-dir "$1" archive --format=tar "$2" | tar -x -C "$3"`, "export", g.Dir, commit, dir)
	if err != nil {
		return fmt.Errorf("exporting %s: %w: %s", commit, err, gocmd.Tail(res.Stderr, 500))
	}
	return nil
}
