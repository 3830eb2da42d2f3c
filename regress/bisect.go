package regress

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/filecache"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// history reads the test's verdict at commits of the first-parent
// history: the module as it was at the commit, with the test's package's
// test files and test data as they are in the working tree (the test is
// the input), built and run through an overlay over the working tree.
type history struct {
	repo    *repo
	run     *runner
	mod     *testbuild.Module
	modRel  string // the module root relative to the top level
	testDir string // the test package's directory relative to the module root
	cache   *verdictCache
	salt    string // what else the verdict depends on: the test files
	tried   int    // commits built and run (not from the cache)
	cached  int
	log     func(string)
	// known are the verdicts this explanation got, by commit: asked for
	// again (the base's, fetched beside the working tree's run) they
	// count once.
	known map[string]commitVerdict
}

// commitVerdict is the test's outcome at one commit.
type commitVerdict struct {
	Verdict verdict `json:"verdict"`
	Message string  `json:"message,omitempty"` // first lines of the compiler's message
}

func newHistory(r *repo, run *runner, mod *testbuild.Module, modRel string, pkg *testbuild.Package) (*history, error) {
	rel, err := filepath.Rel(mod.Root, pkg.Dir)
	if err != nil {
		return nil, err
	}
	h := &history{repo: r, run: run, mod: mod, modRel: modRel, testDir: filepath.ToSlash(rel),
		cache: &verdictCache{files: mod.FileCache()}, known: map[string]commitVerdict{}}
	// The verdict at a commit depends on the test files it runs with (and
	// on the other files being read as at the commit, which verdicts
	// cached before they were have not).
	d := sha256.New()
	fmt.Fprintf(d, "%s\n%s\nfiles read at run time as at the commit\n", pkg.ImportPath, run.test)
	for _, name := range append(slices.Clone(pkg.TestGoFiles), pkg.XTestGoFiles...) {
		data, _ := os.ReadFile(filepath.Join(pkg.Dir, name))
		fmt.Fprintf(d, "%s %s\n", name, testbuild.Bytes(data))
	}
	h.salt = hex.EncodeToString(d.Sum(nil))
	return h, nil
}

// kept reports whether a module-relative path stays as it is in the
// working tree at every commit: the test package's tests and test data.
func (h *history) kept(rel string) bool {
	dir := path.Dir(rel)
	if dir == h.testDir && strings.HasSuffix(rel, "_test.go") {
		return true
	}
	prefix := "testdata"
	if h.testDir != "." {
		prefix = h.testDir + "/testdata"
	}
	return rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

// filesAt returns the replacements that make the module read as at c.
func (h *history) filesAt(ctx context.Context, c string) (map[string]replacement, error) {
	statuses, err := h.repo.changed(ctx, c, h.modRel)
	if err != nil {
		return nil, err
	}
	nested := nestedModules{root: h.mod.Root, known: map[string]bool{}}
	out := map[string]replacement{}
	for _, st := range statuses {
		rel := st.Path
		if h.modRel != "" {
			rel = strings.TrimPrefix(st.Path, h.modRel+"/")
		}
		if h.kept(rel) || nested.inside(rel) {
			continue
		}
		abs := filepath.Join(h.mod.Root, filepath.FromSlash(rel))
		data, ok, err := h.repo.blob(ctx, c, st.Path)
		if err != nil {
			return nil, err
		}
		out[abs] = replacement{data: string(data), present: ok}
	}
	return out, nil
}

// verdictAt builds and runs the test as of commit c, or recalls the
// verdict from the cache.
func (h *history) verdictAt(ctx context.Context, c string) (commitVerdict, error) {
	if v, ok := h.known[c]; ok {
		return v, nil
	}
	v, err := h.verdictFor(ctx, c)
	if err == nil {
		h.known[c] = v
	}
	return v, err
}

// verdictFor is verdictAt's work: the cache, else a build and a run.
func (h *history) verdictFor(ctx context.Context, c string) (commitVerdict, error) {
	k := c + " " + h.salt
	if v, ok := h.cache.get(k); ok {
		h.cached++
		return v, nil
	}
	files, err := h.filesAt(ctx, c)
	if err != nil {
		return commitVerdict{}, err
	}
	h.tried++
	o, err := h.run.run(ctx, files)
	if err != nil {
		return commitVerdict{}, err
	}
	if o.Verdict == noTest && readAtRunTime(files) {
		// With the commit's own run-time files the test does not exist:
		// they define it (a table of cases outside testdata that the
		// working tree extends), so they stay as in the working tree.
		o, err = h.run.run(ctx, withoutRunTimeFiles(files))
		if err != nil {
			return commitVerdict{}, err
		}
	}
	v := commitVerdict{Verdict: o.Verdict}
	if o.Verdict == noBuild {
		v.Message = firstLines(o.Message, 3)
	}
	if h.log != nil {
		h.log(fmt.Sprintf("%s: %s", short(c), v.Verdict))
	}
	if o.Verdict == memoryStopped {
		v.Message = o.Message
		return v, nil // the machine's bound, not the commit's verdict
	}
	h.cache.put(k, v)
	return v, nil
}

// bisection is how the base was found.
type bisection struct {
	base     int // index in commits of the base
	firstBad int // index of the first commit that fails, -1 for the working tree
	commits  []commit
}

// bisect finds the most recent commit of the first-parent history from
// HEAD at which the test passes: it steps back 1, 2, 4, ... commits until
// one passes, then halves the range between it and the last failing one.
// A step that lands where the test does not build or run looks at the
// commits it stepped over, newest first.
// dirty says the working tree differs from HEAD outside the test's files,
// so that HEAD itself is a candidate. A commit where the test does not
// build counts as one where it does not pass.
func (h *history) bisect(ctx context.Context, head string, dirty bool, maxCommits int) (*bisection, error) {
	commits, err := h.repo.firstParents(ctx, head, maxCommits)
	if err != nil {
		return nil, err
	}
	bad := 0 // the newest index known not to pass; -1 is the working tree
	if dirty {
		bad = -1
	}
	good := -1
	var firstBuildFailure, firstMissing *commitVerdict
	var failureAt, missingAt int
	var firstStopped *commitVerdict // the newest commit tried that the test memory bound stopped
	var stoppedAt int
	for step := 1; ; step *= 2 {
		i := min(bad+step, len(commits)-1)
		if i <= bad {
			break
		}
		v, err := h.verdictAt(ctx, commits[i].Hash)
		if err != nil {
			return nil, err
		}
		if v.Verdict == pass {
			good = i
			break
		}
		if v.Verdict == memoryStopped && firstStopped == nil {
			firstStopped, stoppedAt = &v, i
		}
		if v.Verdict == noBuild || v.Verdict == noTest {
			// Older commits know the test's code even less, but the
			// commits the step skipped may pass: the newest that does
			// is the base; the newest that does not build or run is
			// what the message names.
			for j := bad + 1; j < i && good < 0; j++ {
				w, err := h.verdictAt(ctx, commits[j].Hash)
				if err != nil {
					return nil, err
				}
				if w.Verdict == pass {
					good = j
				} else if w.Verdict == noBuild || w.Verdict == noTest {
					v, i = w, j
					break
				} else {
					bad = j
				}
			}
			if good >= 0 {
				break
			}
			if v.Verdict == noBuild {
				firstBuildFailure, failureAt = &v, i
			} else {
				firstMissing, missingAt = &v, i
			}
			break
		}
		bad = i
	}
	if good < 0 {
		last := commits[len(commits)-1]
		switch {
		case firstStopped != nil:
			return nil, &EdgeError{fmt.Sprintf("the test %s at %s (%s), and passes at no commit tried: -test-memory raises the bound, or give -base with a commit where it passes",
				firstStopped.Message, short(commits[stoppedAt].Hash), commits[stoppedAt].Subject)}
		case firstBuildFailure != nil:
			return nil, &EdgeError{fmt.Sprintf("the test does not build at %s (%s) with the working tree's test files, and passes at no newer commit: %s; give -base with a commit where it builds and passes",
				short(commits[failureAt].Hash), commits[failureAt].Subject, firstBuildFailure.Message)}
		case firstMissing != nil:
			return nil, &EdgeError{fmt.Sprintf("the test does not run at %s (%s): %s; give -base with a commit where it passes",
				short(commits[missingAt].Hash), commits[missingAt].Subject, firstLines(firstMissing.Message, 2))}
		case h.repo.shallow(ctx) && len(commits) < maxCommits:
			return nil, &EdgeError{fmt.Sprintf("the clone is shallow: its history ends at %s and the test fails there too; fetch more history (git fetch --unshallow) or give -base", short(last.Hash))}
		case len(commits) >= maxCommits:
			return nil, &EdgeError{fmt.Sprintf("the test fails at every commit tried back to %s (%d commits): give -base with a commit where it passes", short(last.Hash), len(commits))}
		default:
			return nil, &EdgeError{fmt.Sprintf("the test fails at every commit of the history back to the first one (%s): no change in this history is responsible; the failure may be flaky or come from the environment", short(last.Hash))}
		}
	}
	for good-bad > 1 {
		mid := bad + (good-bad)/2
		v, err := h.verdictAt(ctx, commits[mid].Hash)
		if err != nil {
			return nil, err
		}
		if v.Verdict == pass {
			good = mid
		} else {
			bad = mid
		}
	}
	return &bisection{base: good, firstBad: bad, commits: commits}, nil
}

// EdgeError is a condition that leaves nothing to explain, with what to
// do about it (no passing ancestor, a shallow clone...).
type EdgeError struct{ Msg string }

func (e *EdgeError) Error() string { return e.Msg }

// verdictCache keeps the test's verdict per commit across runs, one entry
// of the module's file cache per commit and test.
type verdictCache struct{ files *filecache.Cache }

// verdictKind is the file cache's kind of verdicts.
const verdictKind = "verdict"

func (c *verdictCache) get(k string) (commitVerdict, bool) {
	var v commitVerdict
	data, ok := c.files.Get(verdictKind, k)
	return v, ok && json.Unmarshal(data, &v) == nil
}

// put records a verdict; failing to costs only a later run's time.
func (c *verdictCache) put(k string, v commitVerdict) {
	if data, err := json.Marshal(v); err == nil {
		c.files.Set(verdictKind, k, data)
	}
}

// short is a commit's abbreviated hash.
func short(c string) string {
	if len(c) > 10 {
		return c[:10]
	}
	return c
}

// firstLines returns the first n non-blank lines of s, joined by "; ".
func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "=== RUN") {
			out = append(out, l)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, "; ")
}

// findBase resolves the given base, or bisects for one, and checks that
// the test passes there.
func findBase(ctx context.Context, r *repo, hist *history, head, modRel string, opts Options, ex *Explanation, say func(string, ...any)) (string, error) {
	if opts.Base != "" {
		base, err := r.resolve(ctx, opts.Base)
		if err != nil {
			return "", &EdgeError{err.Error()}
		}
		ex.BaseFound = "given"
		if cs, err := r.firstParents(ctx, base, 1); err == nil && len(cs) == 1 {
			ex.BaseSubject = cs[0].Subject
		}
		if !r.isAncestor(ctx, base, head) {
			ex.Notes = append(ex.Notes, fmt.Sprintf("the base %s is not an ancestor of HEAD: the changes are the diff between the two", short(base)))
		}
		say("running the test at %s", short(base))
		v, err := hist.verdictAt(ctx, base)
		if err != nil {
			return "", err
		}
		ex.Bisected, ex.BisectedCached = hist.tried, hist.cached
		switch v.Verdict {
		case noBuild:
			return "", &EdgeError{fmt.Sprintf("the test does not build at the base %s with the working tree's test files: %s", short(base), v.Message)}
		case noTest:
			return "", &EdgeError{fmt.Sprintf("the test does not run at the base %s", short(base))}
		case fail, timedOut:
			return "", &EdgeError{fmt.Sprintf("the test fails at the base %s too: it is not a regression since then", short(base))}
		case memoryStopped:
			return "", &EdgeError{fmt.Sprintf("the test %s at the base %s, so it cannot be compared with the working tree (-test-memory raises the bound)", v.Message, short(base))}
		}
		if ms, err := r.merges(ctx, base, head); err == nil && len(ms) > 0 {
			ex.Notes = append(ex.Notes, fmt.Sprintf("%d merge commits lie between the base and HEAD (the first: %s %s): their changes are explained as part of the whole diff", len(ms), short(ms[0].Hash), ms[0].Subject))
		}
		return base, nil
	}
	dirty, err := workTreeDiffers(ctx, r, hist, head)
	if err != nil {
		return "", err
	}
	say("bisecting the first-parent history for a commit where the test passes")
	b, err := hist.bisect(ctx, head, dirty, opts.MaxCommits)
	ex.Bisected, ex.BisectedCached = hist.tried, hist.cached
	if err != nil {
		return "", err
	}
	base := b.commits[b.base]
	ex.BaseFound, ex.BaseSubject = "bisected", base.Subject
	if b.firstBad >= 0 {
		fb := b.commits[b.firstBad]
		ex.FirstBad = fb.Hash
		if len(fb.Parents) > 1 {
			ex.Notes = append(ex.Notes, fmt.Sprintf("the first commit where the test fails, %s (%s), is a merge: the responsible change came with the merged branch, and the changes are those of the merge against its first parent", short(fb.Hash), fb.Subject))
		}
	}
	return base.Hash, nil
}

// workTreeDiffers reports whether the module's files in the working tree
// differ from HEAD outside what stays as in the working tree at every
// commit (the test's files).
func workTreeDiffers(ctx context.Context, r *repo, hist *history, head string) (bool, error) {
	files, err := hist.filesAt(ctx, head)
	if err != nil {
		return false, err
	}
	return len(files) > 0, nil
}
