package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// The second source of regressions: commits whose message names the
// commit that broke what they fix ("regression introduced in <sha>",
// "Fixes: <sha>", "broken by #123", a revert of a commit). The named
// commit stands where SZZ's blamed candidates stand; the filters and the
// truth are the same.

// Sources of a regression.
const (
	sourceSZZ   = "szz"
	sourceNamed = "message"
)

// namedFix is a commit whose message names earlier commits as the cause
// of what it fixes.
type namedFix struct {
	Fix, Parent string
	Subject     string
	// Named are the named commits (full ids, message order), Refs the
	// references as the message wrote them.
	Named, Refs []string
}

// regressionWords are the words of a message that say a change broke
// something; a message without them names commits for other reasons.
var regressionWords = regexp.MustCompile(`(?i)\b(regress\w*|introduced|caused by|broke|broken|breaks|breakage|revert\w*|fixes:)`)

// References to a commit: an abbreviated or full id, or a pull request
// number (resolved to the squashed commit whose subject ends "(#N)").
var (
	shaRef    = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	pullRef   = regexp.MustCompile(`(?:#|/pull/)(\d+)\b`)
	squashed  = regexp.MustCompile(`\(#(\d+)\)\s*$`)
	hasLetter = regexp.MustCompile(`[a-f]`)
	hasDigit  = regexp.MustCompile(`[0-9]`)
)

// namedFixes lists the history's non-merge commits whose message holds a
// regression word and names an earlier, non-merge commit of the history.
func namedFixes(ctx context.Context, g realfault.Repo) ([]namedFix, error) {
	out, err := g.Run(ctx, "log", "--no-merges", "--format=%x1e%H %P%x1f%s%x1f%b", "HEAD")
	if err != nil {
		return nil, err
	}
	type rec struct{ id, parent, subject, body string }
	var recs []rec
	bySquash := map[string]string{} // pull request number → its squashed commit
	for _, r := range bytes.Split(out, []byte{0x1e}) {
		fields := strings.SplitN(string(r), "\x1f", 3)
		if len(fields) < 3 {
			continue
		}
		ids := strings.Fields(fields[0])
		if len(ids) != 2 {
			continue
		}
		recs = append(recs, rec{ids[0], ids[1], fields[1], fields[2]})
		if m := squashed.FindStringSubmatch(fields[1]); m != nil {
			if _, ok := bySquash[m[1]]; !ok {
				bySquash[m[1]] = ids[0]
			}
		}
	}
	var fixes []namedFix
	for _, r := range recs {
		msg := r.subject + "\n" + r.body
		if !regressionWords.MatchString(msg) {
			continue
		}
		// The fix's own pull request number ends its subject: not a cause.
		own := ""
		if m := squashed.FindStringSubmatch(r.subject); m != nil {
			own = m[1]
		}
		f := namedFix{Fix: r.id, Parent: r.parent, Subject: r.subject}
		add := func(ref, id string) {
			if id == "" || id == r.id || slices.Contains(f.Named, id) {
				return
			}
			f.Named, f.Refs = append(f.Named, id), append(f.Refs, ref)
		}
		for _, s := range shaRef.FindAllString(msg, -1) {
			if !hasLetter.MatchString(s) || !hasDigit.MatchString(s) {
				continue // a number or a word, not an id
			}
			id, err := g.Run(ctx, "rev-parse", "--verify", "-q", s+"^{commit}")
			if err == nil {
				add(s, strings.TrimSpace(string(id)))
			}
		}
		for _, m := range pullRef.FindAllStringSubmatch(msg, -1) {
			if m[1] != own {
				add("#"+m[1], bySquash[m[1]])
			}
		}
		if len(f.Named) > 0 {
			fixes = append(fixes, f)
		}
	}
	return fixes, nil
}

// mirrorRepos lists the owner/name of every history under the mirrors
// directory (owner+name entries).
func mirrorRepos(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("mirrors: %w", err)
	}
	var repos []string
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".git")
		if owner, repo, ok := strings.Cut(name, "+"); ok && e.IsDir() {
			repos = append(repos, owner+"/"+repo)
		}
	}
	sort.Strings(repos)
	return repos, nil
}

// namedVerdictID names the verdict of a fix of the second source.
func namedVerdictID(p realfault.Project, fix string) string {
	return "named/" + p.Name() + "-" + fix[:7]
}

// mineNamed mines the second source in every history under the mirrors
// (those of repos only, when given), skipping the fixes among the real
// faults (SZZ's): a verdict per fix, kept in the work directory.
func (m *miner) mineNamed(ctx context.Context, b *realfault.Benchmark, repos []string, deadline func() bool) error {
	faultFix := map[string]bool{}
	for _, f := range b.Faults {
		faultFix[f.Fix] = true
	}
	for _, repo := range repos {
		if ctx.Err() != nil || deadline() {
			return nil
		}
		g, err := realfault.FindGitDir(m.mirrors, repo)
		if err != nil {
			continue // not a history
		}
		fixes, err := namedFixes(ctx, g)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", repo, realfault.FirstLine(err.Error()))
			continue
		}
		p, ok := b.Project(repo)
		if !ok {
			p = realfault.Project{Repo: repo}
		}
		for _, nf := range fixes {
			if ctx.Err() != nil || deadline() {
				return nil
			}
			id := namedVerdictID(p, nf.Fix)
			if _, err := m.loadVerdict(id); err == nil || faultFix[nf.Fix] {
				continue
			}
			v, err := m.mineNamedFix(ctx, g, p, nf)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				v = &faultVerdict{Dropped: []string{"miner error: " + realfault.FirstLine(err.Error())}}
			}
			v.Fault = id
			if err := m.saveVerdict(v); err != nil {
				return err
			}
			status := strings.Join(v.Dropped, "; ")
			if v.Regression != nil {
				status = "kept " + v.Regression.ID
			}
			fmt.Fprintf(os.Stderr, "%s (%s) %d named: %s\n", id, strings.Join(nf.Refs, " "), len(nf.Named), status)
		}
	}
	return nil
}

// namedFault makes of a fix the fault the SZZ path reads: its module, the
// code lines it deletes or changes (faulty), its test files and, found by
// running them, the tests it changed that fail at its parent and pass at
// it. reason is why the fix is dropped, when it is.
func (m *miner) namedFault(ctx context.Context, g realfault.Repo, co *checkout, p realfault.Project, nf namedFix) (f realfault.Fault, tests []string, goModFrom, reason string, err error) {
	f = realfault.Fault{ID: p.Name() + "-" + nf.Fix[:7], Repo: p.Repo, Domain: p.Domain, Fix: nf.Fix, Parent: nf.Parent, Subject: nf.Subject}
	// A fix from before the project had a go.mod builds with the first
	// one the history added after it.
	if _, ok, err := g.Show(ctx, nf.Fix, "go.mod"); err != nil {
		return f, nil, goModFrom, "", err
	} else if !ok {
		added, err := g.Run(ctx, "log", "--diff-filter=A", "--format=%H", "HEAD", "--", "go.mod")
		if err != nil {
			return f, nil, goModFrom, "", err
		}
		ids := strings.Fields(string(added))
		if len(ids) == 0 {
			return f, nil, goModFrom, "the fix has no go.mod, nor any later commit", nil
		}
		goModFrom = ids[len(ids)-1]
		if _, err := g.Run(ctx, "merge-base", "--is-ancestor", nf.Fix, goModFrom); err != nil {
			return f, nil, goModFrom, "the fix has no go.mod, nor any later commit", nil
		}
	}
	mod, err := co.modulePath(ctx, cmp.Or(goModFrom, nf.Fix))
	if err != nil || mod == "" {
		return f, nil, goModFrom, "the fix has no go.mod", nil
	}
	f.Module = mod
	diff, err := g.Run(ctx, "diff", "-U0", "--no-renames", "--no-color", nf.Parent, nf.Fix)
	if err != nil {
		return f, nil, goModFrom, "", err
	}
	hunks, err := realfault.ParseHunks(diff)
	if err != nil {
		return f, nil, goModFrom, "", err
	}
	byFile := map[string][]realfault.Hunk{}
	var files []string
	for _, h := range hunks {
		if _, ok := byFile[h.File]; !ok {
			files = append(files, h.File)
		}
		byFile[h.File] = append(byFile[h.File], h)
	}
	touched := map[string]map[string][]int{} // package dir → test file → lines
	for _, file := range files {
		switch {
		case strings.HasSuffix(file, "_test.go"):
			tests = append(tests, file)
			dir := path.Dir(file)
			if touched[dir] == nil {
				touched[dir] = map[string][]int{}
			}
			for _, h := range byFile[file] {
				for l := h.NewStart; l < h.NewStart+h.NewCount; l++ {
					touched[dir][path.Base(file)] = append(touched[dir][path.Base(file)], l)
				}
			}
		case p.IsTest(file):
			tests = append(tests, file)
		case strings.HasSuffix(file, ".go"):
			old, ok, err := g.Show(ctx, nf.Parent, file)
			if err != nil {
				return f, nil, goModFrom, "", err
			}
			if !ok {
				continue
			}
			changed, _, _ := realfault.FaultyLines(byFile[file], realfault.CodeLines(old), bytes.Count(old, []byte("\n"))+1)
			if len(changed) > 0 {
				f.Faulty = append(f.Faulty, realfault.FaultyFile{File: file, Lines: changed})
			}
		}
	}
	if len(touched) == 0 {
		return f, nil, goModFrom, "the fix changes no test file", nil
	}
	if len(f.Faulty) == 0 {
		return f, nil, goModFrom, "the fix only adds code (no line to blame)", nil
	}
	// The tests the fix changed, at the fix and at its parent.
	var changed []gocmd.TestID
	dirs := make([]string, 0, len(touched))
	for d := range touched {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	if _, err := co.at(ctx, nf.Fix, testSetup{Fix: nf.Fix, Files: tests, GoModFrom: goModFrom}); err != nil {
		return f, nil, goModFrom, "", err
	}
	for _, d := range dirs {
		names, err := realfault.ChangedTests(filepath.Join(co.dir, filepath.FromSlash(d)), touched[d])
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return f, nil, goModFrom, "", err
		}
		var sorted []string
		for n := range names {
			if strings.HasPrefix(n, "Test") {
				sorted = append(sorted, n)
			}
		}
		sort.Strings(sorted)
		pkg := f.Module
		if d != "." {
			pkg += "/" + d
		}
		for _, n := range sorted {
			changed = append(changed, gocmd.TestID{Package: pkg, Test: n})
		}
	}
	if len(changed) == 0 {
		return f, nil, goModFrom, "the fix changes no test function", nil
	}
	const maxChanged = 4 // tests run per fix: a larger change is rarely one fault's
	changed = changed[:min(len(changed), maxChanged)]
	dirOf := func(t gocmd.TestID) string {
		if t.Package == f.Module {
			return "."
		}
		return strings.TrimPrefix(t.Package, f.Module+"/")
	}
	var passing []gocmd.TestID
	for _, t := range changed {
		if v, _ := co.testVerdict(ctx, dirOf(t), t.Test, m.timeout); v == verdictPass {
			passing = append(passing, t)
		}
	}
	if len(passing) == 0 {
		return f, nil, goModFrom, "no changed test passes at the fix", nil
	}
	if _, err := co.at(ctx, nf.Parent, testSetup{Fix: nf.Fix, Files: tests, GoModFrom: goModFrom}); err != nil {
		return f, nil, goModFrom, "", err
	}
	for _, t := range passing {
		if v, _ := co.testVerdict(ctx, dirOf(t), t.Test, m.timeout); v == verdictFail {
			f.Failing = append(f.Failing, t)
		}
	}
	if len(f.Failing) == 0 {
		return f, nil, goModFrom, "no changed test fails at the fix's parent", nil
	}
	return f, tests, goModFrom, "", nil
}

// mineNamedFix tries the commits a fix names as its introducing commit:
// the fix's failing test must fail at the named commit and pass at its
// parent, and the truth is the named commit's hunks holding lines the
// fix deletes or changes (blamed to it at the fix's parent).
func (m *miner) mineNamedFix(ctx context.Context, g realfault.Repo, p realfault.Project, nf namedFix) (*faultVerdict, error) {
	v := &faultVerdict{}
	co, err := m.checkout(ctx, g, p.Repo)
	if err != nil {
		return nil, err
	}
	f, tests, goModFrom, reason, err := m.namedFault(ctx, g, co, p, nf)
	if err != nil || reason != "" {
		v.Dropped = append(v.Dropped, reason)
		return v, err
	}
	blamed, _, err := blameFaulty(ctx, g, f, nil)
	if err != nil {
		return nil, err
	}
	tried := f.Failing[:min(len(f.Failing), m.maxTests)]
	for i, c := range nf.Named {
		v.Candidates++
		if v.Regression != nil {
			v.Dropped = append(v.Dropped, "not tested (an earlier candidate was kept)")
			continue
		}
		if _, err := g.Run(ctx, "merge-base", "--is-ancestor", c, nf.Parent); err != nil {
			v.Dropped = append(v.Dropped, "the named commit is not an ancestor of the fix")
			continue
		}
		parents, err := g.Run(ctx, "rev-list", "--parents", "-n", "1", c)
		if err != nil {
			return nil, err
		}
		ps := strings.Fields(string(parents))
		if len(ps) != 2 {
			v.Dropped = append(v.Dropped, "the candidate is a root commit or a merge")
			continue
		}
		if len(blamed[c]) == 0 {
			v.Dropped = append(v.Dropped, "the fix changes no line the named commit wrote")
			continue
		}
		base := ps[1]
		var setup testSetup
		var modFrom []string
		confirmed, why := false, ""
		for j, test := range tried {
			var w string
			setup, modFrom, w, err = m.confirm(ctx, co, f, c, base, testSetup{Files: tests, GoModFrom: goModFrom}, test)
			if err != nil {
				return nil, err
			}
			if w == "" {
				confirmed = true
				break
			}
			if j == 0 {
				why = w
			}
		}
		if !confirmed {
			v.Dropped = append(v.Dropped, why)
			continue
		}
		r, err := describe(ctx, g, p, f, c, base, blamed[c])
		if err != nil {
			return nil, err
		}
		r.Fault = ""
		r.Source, r.NamedAs = sourceNamed, nf.Refs[i]
		r.Test, r.Dir, r.TestFiles, r.Migrated, r.ModFromFix, r.GoModFrom = setup.Test, setup.Dir, tests, setup.Migrate, modFrom, goModFrom
		if len(r.Truth) == 0 {
			v.Dropped = append(v.Dropped, "no hunk of the candidate holds a blamed line")
			continue
		}
		v.Regression = r
	}
	return v, nil
}
