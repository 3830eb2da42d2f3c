package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/faultline-go/faultline/bench/internal/gocmd"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// candidate is a commit that may fix a fault: it changes non-test Go code
// and a test, nothing in go.mod or go.sum, and its message speaks of a fix.
type candidate struct {
	Fix, Parent string
	Date        string
	Subject     string
	NonTest     []string // non-test files changed (any kind)
	TestInputs  []string // test files other than _test.go changed (testdata, a project's TestFiles)
	GoChanged   int      // lines added and deleted in non-test Go files
}

// fixWords are the words of a commit's subject that speak of a fault;
// fixesIssue is a body that says it fixes an issue.
var (
	fixWords   = regexp.MustCompile(`(?i)\b(fix(e[sd])?|bugs?|panics?|crash(es)?|incorrect(ly)?|wrong(ly)?|regression|broken|mistake)\b`)
	fixesIssue = regexp.MustCompile(`(?i)\bfix(e[sd])?:?\s+(#|https://github\.com/\S+/issues/)\d+`)
)

// Mining bounds: fixes larger than this are more often features or
// refactorings than fault fixes.
const (
	maxGoChanged = 60
	maxNonTestGo = 4
	maxGoVersion = 26 // go 1.26: the newest language this toolchain builds
)

// candidates lists the history's candidate fixes, newest first.
func candidates(ctx context.Context, g realfault.Repo, p realfault.Project) ([]candidate, error) {
	records, err := logRecords(ctx, g)
	if err != nil {
		return nil, err
	}
	var cs []candidate
	seen := map[string]bool{}
	for _, rec := range records {
		fields := strings.Split(string(rec), "\x1f")
		if len(fields) < 5 {
			continue
		}
		ids := strings.Fields(fields[0])
		if len(ids) != 2 || seen[ids[0]] {
			continue // a root commit, or one met again after a resumed log
		}
		seen[ids[0]] = true
		c := candidate{Fix: ids[0], Parent: ids[1], Date: fields[1], Subject: fields[2]}
		if !fixWords.MatchString(fields[2]) && !fixesIssue.MatchString(fields[3]) {
			continue
		}
		tests, goFiles, modFiles := 0, 0, 0
		for _, line := range strings.Split(fields[4], "\n") {
			parts := strings.SplitN(line, "\t", 3)
			if len(parts) != 3 {
				continue
			}
			file := parts[2]
			switch {
			case strings.HasSuffix(file, "_test.go"):
				tests++
			case p.IsTest(file):
				if !strings.HasSuffix(file, ".go") {
					c.TestInputs = append(c.TestInputs, file)
					tests++
				}
			case path.Base(file) == "go.mod" || path.Base(file) == "go.sum":
				modFiles++
			default:
				c.NonTest = append(c.NonTest, file)
				if strings.HasSuffix(file, ".go") {
					goFiles++
					a, _ := strconv.Atoi(parts[0])
					d, _ := strconv.Atoi(parts[1])
					c.GoChanged += a + d
				}
			}
		}
		if tests == 0 || goFiles == 0 || modFiles > 0 || goFiles > maxNonTestGo || c.GoChanged > maxGoChanged {
			continue
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// logRecords gives git log's records of the history, newest first: per
// commit its ids, date, subject, body and file statistics.
//
// A fetched history may lack objects: its oldest commits, or a blob too
// large to fetch. git log stops where one is missing, in the middle of the
// last commit it printed; the commits before it are whole. The log then
// resumes at that commit's parents, skipping it, and ends where it cannot
// go on (the history cut short there).
func logRecords(ctx context.Context, g realfault.Repo) ([][]byte, error) {
	var records [][]byte
	revs := []string{"HEAD"}
	for {
		args := append([]string{"log", "--no-merges", "--no-renames", "--numstat", "--date=short",
			"--format=%x1e%H %P%x1f%ad%x1f%s%x1f%b%x1f"}, revs...)
		out, err := g.Run(ctx, args...)
		recs := bytes.Split(out, []byte{0x1e})
		if err == nil {
			return append(records, recs...), nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if len(recs) < 2 {
			if len(records) == 0 {
				return nil, err
			}
			return records, nil
		}
		last := recs[len(recs)-1]
		records = append(records, recs[:len(recs)-1]...)
		head, _, _ := bytes.Cut(last, []byte{0x1f})
		ids := strings.Fields(string(head))
		if len(ids) < 2 {
			return records, nil // the cut commit is a root
		}
		revs = ids[1:]
	}
}

// verdict is the outcome of validating one candidate, kept in the miner's
// state so that a run resumes where the last stopped.
type verdict struct {
	Fix     string           `json:"fix"`
	Kept    bool             `json:"kept"`
	Reason  string           `json:"reason,omitempty"` // why it was rejected
	Seconds float64          `json:"seconds"`
	Fault   *realfault.Fault `json:"fault,omitempty"`
}

// miner validates candidates of one project.
type miner struct {
	project realfault.Project
	git     realfault.Repo
	work    string // scratch directory of this project
	state   string // directory of the verdicts
	timeout time.Duration
	log     func(format string, args ...any)
}

func (m *miner) verdictPath(fix string) string { return filepath.Join(m.state, fix+".json") }

// loadVerdicts reads the verdicts of earlier runs.
func loadVerdicts(dir string) (map[string]verdict, error) {
	out := map[string]verdict{}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var v verdict
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("verdict %s: %w", e.Name(), err)
		}
		out[v.Fix] = v
	}
	return out, nil
}

func (m *miner) save(v verdict) error {
	if err := os.MkdirAll(m.state, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return realfault.WriteFileAtomic(m.verdictPath(v.Fix), data)
}

// reject is a candidate's rejection, not a failure of the miner.
type reject string

func (r reject) Error() string { return string(r) }

// validate builds and tests a candidate at its faulty and fixed versions
// and makes a fault of it if it passes every criterion.
func (m *miner) validate(ctx context.Context, c candidate) (*realfault.Fault, error) {
	gomod, ok, err := m.git.Show(ctx, c.Fix, "go.mod")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, reject("no go.mod at the repository root")
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil || mf.Module == nil {
		return nil, reject("go.mod does not parse")
	}
	if mf.Go != nil {
		parts := strings.Split(mf.Go.Version, ".")
		if len(parts) >= 2 {
			if minor, _ := strconv.Atoi(parts[1]); minor > maxGoVersion {
				return nil, reject("needs go " + mf.Go.Version)
			}
		}
	}
	files, err := m.git.Files(ctx, c.Fix)
	if err != nil {
		return nil, err
	}
	nested := map[string]bool{}
	for _, f := range files {
		if path.Base(f) == "go.mod" && f != "go.mod" {
			nested[path.Dir(f)] = true
		}
	}
	inNested := func(f string) bool {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			if nested[d] {
				return true
			}
		}
		return false
	}

	// Which Go files changed, and how.
	diffOut, err := m.git.Run(ctx, "diff", "-U0", "--no-renames", "--no-color", c.Parent, c.Fix, "--", "*.go")
	if err != nil {
		return nil, err
	}
	hunks, err := realfault.ParseHunks(diffOut)
	if err != nil {
		return nil, err
	}
	byFile := map[string][]realfault.Hunk{}
	var order []string
	for _, h := range hunks {
		if _, seen := byFile[h.File]; !seen {
			order = append(order, h.File)
		}
		byFile[h.File] = append(byFile[h.File], h)
	}
	dirs := map[string]bool{}
	touchedTests := map[string]map[string][]int{} // dir → test file → new lines
	fault := &realfault.Fault{ID: m.project.Name() + "-" + c.Fix[:7], Repo: m.project.Repo, Domain: m.project.Domain,
		Module: mf.Module.Mod.Path, Fix: c.Fix, Parent: c.Parent, Date: c.Date, Subject: c.Subject, Reverted: c.NonTest}
	var codeHunks []realfault.Hunk
	for _, f := range order {
		if inNested(f) || strings.HasPrefix(f, "vendor/") {
			return nil, reject("changes a nested module or vendored code: " + f)
		}
		dir := path.Dir(f)
		if base := path.Base(dir); dir != "." && (strings.HasPrefix(base, "_") || strings.HasPrefix(base, ".")) || m.project.IsTest(f) && !strings.HasSuffix(f, "_test.go") {
			continue // not a package the go command builds
		}
		dirs[dir] = true
		if strings.HasSuffix(f, "_test.go") {
			if touchedTests[dir] == nil {
				touchedTests[dir] = map[string][]int{}
			}
			for _, h := range byFile[f] {
				for l := h.NewStart; l < h.NewStart+h.NewCount; l++ {
					touchedTests[dir][path.Base(f)] = append(touchedTests[dir][path.Base(f)], l)
				}
			}
			continue
		}
		old, ok, err := m.git.Show(ctx, c.Parent, f)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // a file the fix added: no faulty line in it
		}
		changed, around, ch := realfault.FaultyLines(byFile[f], realfault.CodeLines(old), bytes.Count(old, []byte("\n"))+1)
		if len(changed)+len(around) > 0 {
			fault.Faulty = append(fault.Faulty, realfault.FaultyFile{File: f, Lines: changed, Around: around})
			codeHunks = append(codeHunks, ch...)
		}
	}
	// A package whose test inputs changed may see any of its tests change
	// verdict: which test reads which input is not known.
	inputsChanged := map[string]bool{}
	for _, f := range c.TestInputs {
		dir := inputPackageDir(f)
		if inNested(f) || !hasGoFiles(files, dir) {
			continue
		}
		dirs[dir] = true
		inputsChanged[importPath(fault.Module, dir)] = true
	}
	if len(fault.Faulty) == 0 {
		return nil, reject("the fix changes no code line of an existing non-test file")
	}
	if len(touchedTests) == 0 && len(inputsChanged) == 0 {
		return nil, reject("no test file of a package changed")
	}
	fault.Size = sizeClass(codeHunks)
	for d := range dirs {
		fault.Packages = append(fault.Packages, d)
	}
	sort.Strings(fault.Packages)

	// The two versions.
	root := filepath.Join(m.work, c.Fix[:12])
	os.RemoveAll(root)
	defer os.RemoveAll(root)
	fixed, faulty := filepath.Join(root, "fixed"), filepath.Join(root, "faulty")
	if err := m.git.Export(ctx, c.Fix, fixed); err != nil {
		return nil, err
	}
	if err := m.git.Export(ctx, c.Fix, faulty); err != nil {
		return nil, err
	}
	if err := realfault.WriteFilesAt(ctx, m.git.Show, faulty, c.Parent, c.NonTest); err != nil {
		return nil, err
	}
	pkgs := patterns(fault.Packages)
	env := append([]string{"GOFLAGS=-mod=mod -buildvcs=false"}, m.project.Env...)
	bad, err := gocmd.RunGoTest(ctx, faulty, pkgs, m.timeout, env, "-vet=off")
	if err != nil {
		return nil, reject("faulty version: " + realfault.FirstLine(err.Error()))
	}
	switch {
	case bad.BuildFailed:
		return nil, reject("faulty version does not build with the fix's tests")
	case bad.TimedOut:
		return nil, reject("faulty version times out")
	case bad.Failed == 0:
		return nil, reject("no test fails on the faulty version")
	}
	good, err := gocmd.RunGoTest(ctx, fixed, pkgs, m.timeout, env, "-vet=off")
	if err != nil {
		return nil, reject("fixed version: " + realfault.FirstLine(err.Error()))
	}
	switch {
	case good.BuildFailed:
		return nil, reject("fixed version does not build")
	case good.TimedOut:
		return nil, reject("fixed version times out")
	case good.Failed > 0:
		return nil, reject(fmt.Sprintf("%d tests fail on the fixed version", good.Failed))
	}
	changed := map[string]map[string]bool{} // import path → changed top-level tests
	for dir, touched := range touchedTests {
		tests, err := realfault.ChangedTests(filepath.Join(fixed, filepath.FromSlash(dir)), touched)
		if err != nil {
			return nil, err
		}
		changed[importPath(fault.Module, dir)] = tests
	}
	isChanged := func(t gocmd.TestID) bool {
		top, _, _ := strings.Cut(t.Test, "/")
		return changed[t.Package][top] || inputsChanged[t.Package]
	}
	for t, v := range bad.Leaves {
		w, ran := good.Leaves[t]
		if v == "fail" {
			if !isChanged(t) {
				return nil, reject("a test the fix did not change fails on the faulty version: " + t.String())
			}
			fault.Failing = append(fault.Failing, t)
			continue
		}
		if ran && v != w && !isChanged(t) {
			return nil, reject("a test the fix did not change changes verdict: " + t.String())
		}
		if v == "pass" {
			fault.Passing++
		}
	}
	sort.Slice(fault.Failing, func(i, j int) bool {
		a, b := fault.Failing[i], fault.Failing[j]
		return a.Package < b.Package || a.Package == b.Package && a.Test < b.Test
	})
	return fault, nil
}

// inputPackageDir is the directory of the package a test input belongs
// to: the input's own directory, or, when it lies under a directory the go
// command ignores (testdata, or a name starting with _ or .: goldmark keeps
// its cases in _test/), the directory holding that one.
func inputPackageDir(file string) string {
	parts := strings.Split(path.Dir(file), "/")
	for i, p := range parts {
		if p == "testdata" || strings.HasPrefix(p, "_") || strings.HasPrefix(p, ".") && p != "." {
			parts = parts[:i]
			break
		}
	}
	if len(parts) == 0 {
		return "."
	}
	return path.Join(parts...)
}

// hasGoFiles says whether a directory of the tree holds Go files.
func hasGoFiles(files []string, dir string) bool {
	for _, f := range files {
		if path.Dir(f) == dir && strings.HasSuffix(f, ".go") {
			return true
		}
	}
	return false
}

// patterns turns module-relative package directories into go command
// patterns.
func patterns(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		if d == "." {
			out[i] = "."
		} else {
			out[i] = "./" + d
		}
	}
	return out
}

func importPath(module, dir string) string {
	if dir == "." {
		return module
	}
	return module + "/" + dir
}

// mineProject validates the project's candidates, newest first, until it
// has want faults or has tried maxTries candidates (verdicts of earlier
// runs count), and returns every kept fault.
func (m *miner) mineProject(ctx context.Context, want, maxTries int, deadline time.Time) ([]realfault.Fault, error) {
	verdicts, err := loadVerdicts(m.state)
	if err != nil {
		return nil, err
	}
	cs, err := candidates(ctx, m.git, m.project)
	if err != nil {
		return nil, err
	}
	isCandidate := map[string]bool{}
	for _, c := range cs {
		isCandidate[c.Fix] = true
	}
	// Verdicts of commits the current rules no longer pick are ignored.
	kept := func() []realfault.Fault {
		var out []realfault.Fault
		for _, v := range verdicts {
			if v.Kept && v.Fault != nil && isCandidate[v.Fix] {
				out = append(out, *v.Fault)
			}
		}
		sort.Slice(out, func(i, j int) bool {
			return out[i].Date > out[j].Date || out[i].Date == out[j].Date && out[i].ID < out[j].ID
		})
		return out
	}
	for fix := range verdicts {
		if !isCandidate[fix] {
			delete(verdicts, fix)
		}
	}
	m.log("%s: %d candidates, %d tried before, %d kept", m.project.Repo, len(cs), len(verdicts), len(kept()))
	for _, c := range cs {
		if len(kept()) >= want || len(verdicts) >= maxTries || ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		if _, done := verdicts[c.Fix]; done {
			continue
		}
		start := time.Now()
		f, err := m.validate(ctx, c)
		v := verdict{Fix: c.Fix, Seconds: time.Since(start).Seconds()}
		var r reject
		switch {
		case ctx.Err() != nil:
			return kept(), ctx.Err()
		case errors.As(err, &r):
			v.Reason = r.Error()
		case err != nil:
			v.Reason = "miner error: " + realfault.FirstLine(err.Error())
		default:
			v.Kept, v.Fault = true, f
		}
		if err := m.save(v); err != nil {
			return kept(), err
		}
		verdicts[c.Fix] = v
		status := "kept " + faultSummary(f)
		if !v.Kept {
			status = v.Reason
		}
		m.log("  %s %.0fs %s: %s", c.Fix[:10], v.Seconds, cut(c.Subject, 50), status)
	}
	return kept(), nil
}

func faultSummary(f *realfault.Fault) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("%s, %d failing, %d passing", f.Size, len(f.Failing), f.Passing)
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
