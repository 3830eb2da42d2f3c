package regress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// blameWorkers is how many git blame processes LineTimes runs at once.
const blameWorkers = 2

// ErrNoHistory says there is no history to blame: git is missing, or dir
// is in no repository or one without the commit.
var ErrNoHistory = errors.New("no git history")

// LineTimes gives, for each of files (slash paths relative to dir), the
// commit time of each line's last change (Unix seconds; index 0 is line
// 1), as git blame gives it, whitespace changes ignored. With rev empty it
// blames the working tree dir lies in: lines not committed yet and files
// git does not track get the time now, so a change in progress is the
// newest of all. With rev set it blames the files as rev holds them, dir
// being any directory of the repository (a bare one too) that the paths
// are relative to. A file blame cannot read is left out; the error is for
// a dir outside any repository, a repository without a commit, or ctx
// ending (ErrNoHistory for the first two).
func LineTimes(ctx context.Context, dir, rev string, files []string) (map[string][]int64, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("%w: git is not on the PATH", ErrNoHistory)
	}
	r := newRepo(dir, os.Environ())
	head := rev
	if head == "" {
		head = "HEAD"
	}
	if _, err := r.resolve(ctx, head); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: no commit %s in a repository holding %s", ErrNoHistory, head, dir)
	}
	untracked := map[string]bool{}
	if rev == "" && len(files) > 0 {
		out, err := r.git(ctx, append([]string{"ls-files", "-z", "--others", "--"}, files...)...)
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				untracked[f] = true
			}
		}
	}
	now := time.Now().Unix()
	var mu sync.Mutex
	times := map[string][]int64{}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(blameWorkers)
	for _, f := range files {
		g.Go(func() error {
			var t []int64
			if untracked[f] {
				t = linesAt(r, f, now)
			} else {
				args := []string{"blame", "--porcelain", "-w"}
				if rev != "" {
					args = append(args, rev)
				}
				out, err := r.git(gctx, append(args, "--", f)...)
				if err != nil {
					if gctx.Err() != nil {
						return gctx.Err()
					}
					return nil // a file blame cannot read has no times
				}
				t = parseBlame(out, now)
			}
			if t != nil {
				mu.Lock()
				times[f] = t
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return times, nil
}

// linesAt gives every line of an untracked work-tree file the time t.
func linesAt(r *repo, path string, t int64) []int64 {
	data, ok, err := r.readWork(path)
	if err != nil || !ok {
		return nil
	}
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// parseBlame reads git blame --porcelain: a header per line ("<commit>
// <original line> <final line> [<group size>]"), the commit's fields the
// first time it appears, then the line's text after a tab. The commit of
// all zeros is the working tree's, dated now.
func parseBlame(out []byte, now int64) []int64 {
	commitTime := map[string]int64{}
	var times []int64
	var commit string
	final := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t"):
			if final < 1 {
				continue
			}
			for len(times) < final {
				times = append(times, 0)
			}
			t, ok := commitTime[commit]
			if !ok || strings.Trim(commit, "0") == "" {
				t = now
			}
			times[final-1] = t
		case strings.HasPrefix(line, "committer-time "):
			if t, err := strconv.ParseInt(strings.TrimPrefix(line, "committer-time "), 10, 64); err == nil {
				commitTime[commit] = t
			}
		default:
			f := strings.Fields(line)
			if len(f) >= 3 && len(f[0]) >= 40 && isHex(f[0]) {
				if n, err := strconv.Atoi(f[2]); err == nil {
					commit, final = f[0], n
				}
			}
		}
	}
	return times
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
