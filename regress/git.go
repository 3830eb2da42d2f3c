package regress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// ErrNoRepository says the module is not inside a git work tree.
var ErrNoRepository = errors.New("not inside a git repository: explain compares the working tree with its git history")

// repo runs read-only git commands in one work tree. Nothing here writes
// to the repository: no index refresh (GIT_OPTIONAL_LOCKS=0), no checkout,
// no worktree, no ref.
type repo struct {
	root string // the work tree's top level
	env  []string
}

// commit is one commit of the first-parent history.
type commit struct {
	Hash    string
	Parents []string
	Subject string
}

// CheckRepository reports whether the module can be explained from a
// history: git is on the PATH and the module lies in a git work tree
// (ErrNoRepository otherwise). Explain checks it too; callers check it
// before work that would be wasted without one.
func CheckRepository(ctx context.Context, mod *testbuild.Module) error {
	_, err := openRepo(ctx, mod.Root, mod.Env())
	return err
}

// openRepo finds the work tree holding dir.
func openRepo(ctx context.Context, dir string, env []string) (*repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errors.New("explain needs git on the PATH")
	}
	r := newRepo(dir, env)
	out, err := r.git(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrNoRepository
	}
	top := strings.TrimSpace(string(out))
	if resolved, err := filepath.EvalSymlinks(top); err == nil {
		top = resolved
	}
	r.root = top
	return r, nil
}

// newRepo is a repo at dir whose git commands run in env, read-only and
// never prompting.
func newRepo(dir string, env []string) *repo {
	return &repo{root: dir, env: append(append([]string{}, env...), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_PAGER=cat")}
}

// git runs a git command at the top level and returns its standard output;
// a failure carries git's message.
func (r *repo) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotePath=false", "-c", "diff.noprefix=false"}, args...)...)
	cmd.Dir = r.root
	cmd.Env = r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}

// resolve names the commit a revision means.
func (r *repo) resolve(ctx context.Context, rev string) (string, error) {
	out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q is not a commit of this repository", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// head is the commit checked out; an error when there is none yet.
func (r *repo) head(ctx context.Context) (string, error) {
	out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", errors.New("the repository has no commit yet: there is no history to compare with")
	}
	return strings.TrimSpace(string(out)), nil
}

// shallow reports whether the repository is a shallow clone.
func (r *repo) shallow(ctx context.Context) bool {
	out, err := r.git(ctx, "rev-parse", "--is-shallow-repository")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// firstParents returns up to max commits of the first-parent history from
// rev, rev first.
func (r *repo) firstParents(ctx context.Context, rev string, max int) ([]commit, error) {
	out, err := r.git(ctx, "log", "--first-parent", "--no-show-signature", "--format=%H %P%x1f%s", "-n", strconv.Itoa(max), rev, "--")
	if err != nil {
		return nil, err
	}
	var cs []commit
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		ids, subject, _ := strings.Cut(line, "\x1f")
		f := strings.Fields(ids)
		if len(f) == 0 {
			continue
		}
		cs = append(cs, commit{Hash: f[0], Parents: f[1:], Subject: subject})
	}
	return cs, nil
}

// isAncestor reports whether a is an ancestor of b (or b itself).
func (r *repo) isAncestor(ctx context.Context, a, b string) bool {
	_, err := r.git(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// merges lists the merge commits reachable from head and not from base.
func (r *repo) merges(ctx context.Context, base, head string) ([]commit, error) {
	out, err := r.git(ctx, "log", "--merges", "--no-show-signature", "--format=%H %P%x1f%s", base+".."+head, "--")
	if err != nil {
		return nil, err
	}
	var cs []commit
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		ids, subject, ok := strings.Cut(line, "\x1f")
		if !ok {
			continue
		}
		f := strings.Fields(ids)
		cs = append(cs, commit{Hash: f[0], Parents: f[1:], Subject: subject})
	}
	return cs, nil
}

// blob returns a file's content at a commit; false when the file does not
// exist there. path is relative to the top level, slash-separated.
func (r *repo) blob(ctx context.Context, rev, path string) ([]byte, bool, error) {
	if _, err := r.git(ctx, "cat-file", "-e", rev+":"+path); err != nil {
		return nil, false, nil
	}
	data, err := r.git(ctx, "cat-file", "blob", rev+":"+path)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// fileStatus is one path that differs between a commit and the work tree.
type fileStatus struct {
	Path   string // relative to the top level, slash-separated
	Status byte   // 'A' added since the commit, 'D' deleted, 'M' modified
}

// changed lists the paths under dir (relative to the top level, "" for
// all) whose content differs between rev and the work tree, untracked files
// (not ignored) included as added.
func (r *repo) changed(ctx context.Context, rev, dir string) ([]fileStatus, error) {
	spec := "."
	if dir != "" {
		spec = dir
	}
	out, err := r.git(ctx, "diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--name-status", "-z", rev, "--", spec)
	if err != nil {
		return nil, err
	}
	var files []fileStatus
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		st := fields[i]
		if st == "" {
			break
		}
		files = append(files, fileStatus{Path: fields[i+1], Status: st[0]})
	}
	out, err = r.git(ctx, "ls-files", "--others", "--exclude-standard", "-z", "--", spec)
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			files = append(files, fileStatus{Path: p, Status: 'A'})
		}
	}
	return files, nil
}

// hunkRange is one hunk header of a zero-context diff: lines
// oldStart..oldStart+oldCount-1 at the commit replaced by lines
// newStart..newStart+newCount-1 in the work tree. A count of 0 means an
// insertion (or deletion) after the start line.
type hunkRange struct {
	oldStart, oldCount, newStart, newCount int
}

// diffRanges returns the zero-context hunks of each tracked path that
// differs between rev and the work tree, by path relative to the top
// level.
func (r *repo) diffRanges(ctx context.Context, rev string, paths []string) (map[string][]hunkRange, error) {
	out := map[string][]hunkRange{}
	if len(paths) == 0 {
		return out, nil
	}
	args := []string{"diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--no-color", "-U0", "--diff-algorithm=myers",
		"--src-prefix=a/", "--dst-prefix=b/", rev, "--"}
	data, err := r.git(ctx, append(args, paths...)...)
	if err != nil {
		return nil, err
	}
	var cur, minus string
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur, minus = "", ""
		case strings.HasPrefix(line, "--- "):
			minus = diffPath(strings.TrimPrefix(line, "--- "), "a/")
		case strings.HasPrefix(line, "+++ "):
			cur = diffPath(strings.TrimPrefix(line, "+++ "), "b/")
			if cur == "" {
				cur = minus // deleted in the work tree
			}
		case strings.HasPrefix(line, "@@ ") && cur != "":
			h, ok := parseHunkHeader(line)
			if ok {
				out[cur] = append(out[cur], h)
			}
		}
	}
	return out, nil
}

// diffPath reads a path of a ---/+++ line: "" for /dev/null.
func diffPath(s, prefix string) string {
	s = strings.TrimSuffix(s, "\t")
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	return strings.TrimPrefix(s, prefix)
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@".
func parseHunkHeader(line string) (hunkRange, bool) {
	f := strings.Fields(line)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return hunkRange{}, false
	}
	num := func(s string) (int, int, bool) {
		a, b, has := strings.Cut(s[1:], ",")
		start, err := strconv.Atoi(a)
		if err != nil {
			return 0, 0, false
		}
		count := 1
		if has {
			if count, err = strconv.Atoi(b); err != nil {
				return 0, 0, false
			}
		}
		return start, count, true
	}
	os, oc, ok1 := num(f[1])
	ns, nc, ok2 := num(f[2])
	return hunkRange{os, oc, ns, nc}, ok1 && ok2
}

// relToTop returns dir relative to the repository's top level,
// slash-separated ("" for the top level itself).
func (r *repo) relToTop(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	rel, err := filepath.Rel(r.root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is outside the work tree %s", dir, r.root)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// readWork reads a work-tree file (path relative to the top level); false
// when it does not exist.
func (r *repo) readWork(path string) ([]byte, bool, error) {
	data, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(path)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}
