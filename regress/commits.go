package regress

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Where is where a change lies in the working tree: file:line or
// file:line-endLine, and for a deletion the line it was before.
func (c Change) Where() string {
	switch {
	case c.EndLine < c.Line:
		return fmt.Sprintf("%s:%d (deleted before this line)", c.File, c.Line)
	case c.EndLine == c.Line:
		return fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	return fmt.Sprintf("%s:%d-%d", c.File, c.Line, c.EndLine)
}

// ChangeCommit names the commit a change came with, for a person: its
// hash, its author date (YYYY-MM-DD) and its subject.
type ChangeCommit struct {
	Hash    string `json:"hash"`
	Date    string `json:"date"`
	Subject string `json:"subject"`
}

// attributeChanges sets the commit of each change of ex: git blame of its
// lines in the working tree, the newest commit among them; a change that
// only deletes gets the first failing commit. A change git cannot
// attribute (uncommitted, or git fails) keeps none.
func attributeChanges(ctx context.Context, r *repo, modRel string, ex *Explanation) {
	known := map[string]*ChangeCommit{}
	for i := range ex.Changes {
		c := &ex.Changes[i]
		hash := ex.FirstBad
		if c.EndLine >= c.Line {
			hash = r.newestBlame(ctx, path.Join(modRel, c.File), c.Line, c.EndLine)
		}
		if hash == "" {
			continue
		}
		if _, ok := known[hash]; !ok {
			known[hash] = r.commitInfo(ctx, hash)
		}
		c.Commit = known[hash]
	}
}

// notCommitted is the hash git blame gives lines not committed yet.
const notCommitted = "0000000000000000000000000000000000000000"

// newestBlame returns the newest commit (by author time) that last
// touched lines first..last of a work-tree file (path relative to the top
// level); "" when none is committed or git fails.
func (r *repo) newestBlame(ctx context.Context, file string, first, last int) string {
	out, err := r.git(ctx, "blame", "--porcelain", "-L", strconv.Itoa(first)+","+strconv.Itoa(last), "--", file)
	if err != nil {
		return ""
	}
	var newest, cur string
	var newestTime int64 = -1
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && len(f[0]) == 40 && !strings.HasPrefix(line, "\t"):
			cur = f[0]
		case len(f) == 2 && f[0] == "author-time" && cur != notCommitted:
			if t, err := strconv.ParseInt(f[1], 10, 64); err == nil && t > newestTime {
				newest, newestTime = cur, t
			}
		}
	}
	return newest
}

// commitInfo reads a commit's author date and subject; nil when git
// fails.
func (r *repo) commitInfo(ctx context.Context, hash string) *ChangeCommit {
	out, err := r.git(ctx, "log", "-1", "--no-show-signature", "--format=%H%x1f%as%x1f%s", hash, "--")
	if err != nil {
		return nil
	}
	f := strings.SplitN(strings.TrimRight(string(out), "\n"), "\x1f", 3)
	if len(f) != 3 {
		return nil
	}
	return &ChangeCommit{Hash: f[0], Date: f[1], Subject: f[2]}
}
