package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// faultVerdict is what mining one fault gave, kept in the work directory
// so that a run resumes.
type faultVerdict struct {
	Fault      string      `json:"fault"`
	Candidates int         `json:"candidates"` // blamed commits
	Dropped    []string    `json:"dropped"`    // a reason per dropped candidate, or one for the fault
	Regression *Regression `json:"regression,omitempty"`
}

func runMine(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mine", flag.ContinueOnError)
	faultsPath := fs.String("faults", defaultFaults, "the real faults whose introducing commits are looked for: comma-separated benchmark files (bench/realfaults' format)")
	out := fs.String("out", defaultRegressions, "the regressions file to write")
	mirrors := fs.String("mirrors", "/work/.mirror", "directory holding the projects' git histories (owner+name/repo, owner+name.git or owner+name)")
	work := fs.String("work", defaultWork(), "scratch and state directory (clones, and the verdict of each fault tried, so a run resumes)")
	maxCandidates := fs.Int("max-candidates", 2, "blamed commits to test per fault, most blamed lines first")
	maxTests := fs.Int("max-tests", 1, "failing tests of a fault to try at each candidate, one per top-level test first")
	timeout := fs.Duration("timeout", 3*time.Minute, "go test's timeout for one run of the failing test")
	budget := fs.Duration("budget", 8*time.Hour, "stop trying new faults after this long")
	only := fs.String("only", "", "comma-separated fault ids to mine (default: every fault)")
	named := fs.String("named", "", "also mine the second source (fixes whose message names the breaking commit) in these histories: comma-separated owner/name, or \"all\" for every history under -mirrors")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, faultFile, err := loadFaults(strings.Split(*faultsPath, ","))
	if err != nil {
		return err
	}
	deadline := time.Now().Add(*budget)
	m := &miner{work: *work, mirrors: *mirrors, maxCandidates: *maxCandidates, maxTests: *maxTests, timeout: *timeout, clones: map[string]*checkout{}, faultFile: faultFile}
	for _, f := range interleave(b.Faults) {
		if ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		if *only != "" && !slices.Contains(strings.Split(*only, ","), f.ID) {
			continue
		}
		if _, err := m.loadVerdict(f.ID); err == nil {
			continue
		}
		p, _ := b.Project(f.Repo)
		start := time.Now()
		v, err := m.mineFault(ctx, p, f)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			v = &faultVerdict{Fault: f.ID, Dropped: []string{"miner error: " + realfault.FirstLine(err.Error())}}
		}
		if err := m.saveVerdict(v); err != nil {
			return err
		}
		status := strings.Join(v.Dropped, "; ")
		if v.Regression != nil {
			status = "kept " + v.Regression.ID
		}
		fmt.Fprintf(os.Stderr, "%s %.0fs: %d candidates: %s\n", f.ID, time.Since(start).Seconds(), v.Candidates, status)
	}
	if *named != "" {
		repos := strings.Split(*named, ",")
		if *named == "all" {
			if repos, err = mirrorRepos(*mirrors); err != nil {
				return err
			}
		}
		if err := m.mineNamed(ctx, b, repos, func() bool { return time.Now().After(deadline) }); err != nil {
			return err
		}
	}
	return m.write(b, *out)
}

// loadFaults reads and merges the benchmark files of real faults: their
// projects (one entry per repository, the first file's winning) and their
// faults, with the file each fault comes from. A fault id met twice is an
// error, since the verdicts kept under the work directory are by id.
func loadFaults(paths []string) (*realfault.Benchmark, map[string]string, error) {
	merged := &realfault.Benchmark{}
	fileOf := map[string]string{}
	for _, path := range paths {
		b, err := realfault.LoadBenchmark(path)
		if err != nil {
			return nil, nil, err
		}
		if merged.Convention == "" {
			merged.Convention = b.Convention
		}
		for _, p := range b.Projects {
			if _, ok := merged.Project(p.Repo); !ok {
				merged.Projects = append(merged.Projects, p)
			}
		}
		for _, f := range b.Faults {
			if other, ok := fileOf[f.ID]; ok {
				return nil, nil, fmt.Errorf("fault %s is in both %s and %s", f.ID, other, path)
			}
			fileOf[f.ID] = path
			merged.Faults = append(merged.Faults, f)
		}
	}
	return merged, fileOf, nil
}

// interleave orders faults so that every project comes early: the first
// fault of each project, then the second of each, and so on.
func interleave(faults []realfault.Fault) []realfault.Fault {
	byRepo := map[string][]realfault.Fault{}
	var repos []string
	for _, f := range faults {
		if _, ok := byRepo[f.Repo]; !ok {
			repos = append(repos, f.Repo)
		}
		byRepo[f.Repo] = append(byRepo[f.Repo], f)
	}
	var out []realfault.Fault
	for i := 0; len(out) < len(faults); i++ {
		for _, r := range repos {
			if i < len(byRepo[r]) {
				out = append(out, byRepo[r][i])
			}
		}
	}
	return out
}

// miner finds the regressions of faults.
type miner struct {
	work, mirrors string
	maxCandidates int
	maxTests      int
	timeout       time.Duration
	clones        map[string]*checkout // by repository
	faultFile     map[string]string    // fault id → the benchmark file holding it
}

func (m *miner) verdictPath(id string) string { return filepath.Join(m.work, "verdicts", id+".json") }

func (m *miner) loadVerdict(id string) (*faultVerdict, error) {
	data, err := os.ReadFile(m.verdictPath(id))
	if err != nil {
		return nil, err
	}
	var v faultVerdict
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("verdict %s: %w", id, err)
	}
	return &v, nil
}

func (m *miner) saveVerdict(v *faultVerdict) error {
	if err := os.MkdirAll(filepath.Dir(m.verdictPath(v.Fault)), 0o755); err != nil {
		return err
	}
	return realfault.SaveJSON(m.verdictPath(v.Fault), v)
}

// write gathers the verdicts of every fault tried into the regressions
// file.
func (m *miner) write(b *realfault.Benchmark, out string) error {
	res := Benchmark{Convention: convention, Dropped: map[string]int{}, Regressions: []Regression{}}
	for _, f := range interleave(b.Faults) { // a measure cut short still spans the projects
		v, err := m.loadVerdict(f.ID)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		res.Faults++
		res.Candidates += v.Candidates
		for _, d := range v.Dropped {
			res.Dropped[reasonClass(d)]++
		}
		if v.Regression != nil {
			r := *v.Regression
			r.Source = sourceSZZ
			if file := m.faultFile[f.ID]; file != defaultFaults {
				r.FaultsFile = file
			}
			res.Regressions = append(res.Regressions, r)
		}
	}
	// The second source's verdicts, in name order.
	res.Named.Dropped = map[string]int{}
	names, err := filepath.Glob(filepath.Join(m.work, "verdicts", "named", "*.json"))
	if err != nil {
		return err
	}
	for _, n := range names {
		v, err := m.loadVerdict("named/" + strings.TrimSuffix(filepath.Base(n), ".json"))
		if err != nil {
			return err
		}
		res.Named.Fixes++
		res.Named.Candidates += v.Candidates
		for _, d := range v.Dropped {
			res.Named.Dropped[reasonClass(d)]++
		}
		if v.Regression != nil {
			res.Regressions = append(res.Regressions, *v.Regression)
		}
	}
	return realfault.SaveJSON(out, res)
}

// reasonClass is a drop reason without its particulars (file names,
// verdicts of other tests), for counting.
var particulars = regexp.MustCompile(` — .*$`)

func reasonClass(reason string) string { return particulars.ReplaceAllString(reason, "") }

// blamedLine is one line of the fix's parent as git blame -w attributes
// it: the commit that wrote it, and its file and line there.
type blamedLine struct {
	commit, file string
	line         int
	boundary     bool // the commit is the history's root (or a shallow boundary)
}

var blameHeader = regexp.MustCompile(`^([0-9a-f]{40}) (\d+) (\d+)`)

// blame attributes lines of file at commit, passing over the ignored
// commits (their lines go to the commit that wrote them before).
func blame(ctx context.Context, g realfault.Repo, commit, file string, lines []int, ignore []string) ([]blamedLine, error) {
	args := []string{"blame", "-w", "--line-porcelain"}
	for _, c := range ignore {
		args = append(args, "--ignore-rev", c)
	}
	for _, r := range ranges(lines) {
		args = append(args, "-L", fmt.Sprintf("%d,%d", r[0], r[1]))
	}
	out, err := g.Run(ctx, append(args, commit, "--", file)...)
	if err != nil {
		return nil, err
	}
	var res []blamedLine
	var cur *blamedLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "\t") {
			if cur != nil {
				res = append(res, *cur)
			}
			cur = nil
			continue
		}
		if m := blameHeader.FindStringSubmatch(line); m != nil && cur == nil {
			n, _ := strconv.Atoi(m[2])
			cur = &blamedLine{commit: m[1], line: n}
			continue
		}
		if cur == nil {
			continue
		}
		if name, ok := strings.CutPrefix(line, "filename "); ok {
			cur.file = name
		} else if line == "boundary" {
			cur.boundary = true
		}
	}
	return res, sc.Err()
}

// maxReblames bounds how many times a fault's lines are blamed again
// past the candidates at whose parent the test fails too.
const maxReblames = 2

// parentFails starts the reason of a candidate at whose parent the test
// does not pass.
const parentFails = "the test does not pass at the candidate's parent: "

// blameFaulty blames the lines the fix deletes or changes at the fix's
// parent, passing over the ignored commits: the candidates, with the
// lines blamed on each, and how many lines were blamed.
func blameFaulty(ctx context.Context, g realfault.Repo, f realfault.Fault, ignore []string) (map[string][]blamedLine, int, error) {
	blamed := map[string][]blamedLine{}
	changed := 0
	for _, ff := range f.Faulty {
		if len(ff.Lines) == 0 {
			continue
		}
		changed += len(ff.Lines)
		bl, err := blame(ctx, g, f.Parent, ff.File, ff.Lines, ignore)
		if err != nil {
			return nil, 0, err
		}
		for _, b := range bl {
			if !b.boundary {
				blamed[b.commit] = append(blamed[b.commit], b)
			}
		}
	}
	return blamed, changed, nil
}

// byBlame orders candidates most blamed lines first.
func byBlame(blamed map[string][]blamedLine) []string {
	cands := make([]string, 0, len(blamed))
	for c := range blamed {
		cands = append(cands, c)
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		return len(blamed[a]) > len(blamed[b]) || len(blamed[a]) == len(blamed[b]) && a < b
	})
	return cands
}

// blameEarlier blames the faulty lines again passing over the candidates
// at whose parent the test fails too (passedOver), and returns the commits that wrote
// those lines before them, not yet candidates, with their lines added to
// blamed.
func (m *miner) blameEarlier(ctx context.Context, g realfault.Repo, f realfault.Fault, blamed map[string][]blamedLine, cands, passedOver []string) ([]string, error) {
	if len(passedOver) == 0 {
		return nil, nil
	}
	again, _, err := blameFaulty(ctx, g, f, passedOver)
	if err != nil {
		return nil, err
	}
	var earlier []string
	for _, c := range byBlame(again) {
		if slices.Contains(cands, c) {
			continue
		}
		// Only the lines the passed-over commits held.
		blamed[c] = again[c]
		earlier = append(earlier, c)
	}
	return earlier, nil
}

// ranges turns sorted line numbers into inclusive runs.
func ranges(lines []int) [][2]int {
	var out [][2]int
	for _, l := range lines {
		if n := len(out); n > 0 && out[n-1][1]+1 == l {
			out[n-1][1] = l
			continue
		}
		out = append(out, [2]int{l, l})
	}
	return out
}

// mineFault looks for the fault's introducing commit among the commits
// blamed for its faulty lines.
func (m *miner) mineFault(ctx context.Context, p realfault.Project, f realfault.Fault) (*faultVerdict, error) {
	v := &faultVerdict{Fault: f.ID}
	drop := func(reason string) (*faultVerdict, error) {
		v.Dropped = append(v.Dropped, reason)
		return v, nil
	}
	if len(f.Failing) == 0 {
		return drop("no failing test")
	}
	g, err := realfault.FindGitDir(m.mirrors, f.Repo)
	if err != nil {
		return nil, err
	}
	blamed, changed, err := blameFaulty(ctx, g, f, nil)
	if err != nil {
		return nil, err
	}
	if changed == 0 {
		return drop("the fix only adds code (no line to blame)")
	}
	if len(blamed) == 0 {
		return drop("every blamed line comes from the history's first commit")
	}
	v.Candidates = len(blamed)
	cands := byBlame(blamed)

	// The fix's test files.
	names, err := g.Run(ctx, "diff", "--name-only", "--no-renames", f.Parent, f.Fix)
	if err != nil {
		return nil, err
	}
	var tests []string
	for _, n := range strings.Split(strings.TrimSpace(string(names)), "\n") {
		if n != "" && p.IsTest(n) {
			tests = append(tests, n)
		}
	}
	// The failing tests tried: at most -max-tests, one per top-level
	// test first (subtests of one table often fail alike).
	var tried []gocmd.TestID
	seen := map[string]bool{}
	for pass := 0; pass < 2; pass++ {
		for _, t := range f.Failing {
			top, _, _ := strings.Cut(t.Test, "/")
			if len(tried) < m.maxTests && !slices.Contains(tried, t) && (pass == 1 || !seen[t.Package+" "+top]) {
				seen[t.Package+" "+top] = true
				tried = append(tried, t)
			}
		}
	}
	co, err := m.checkout(ctx, g, f.Repo)
	if err != nil {
		return nil, err
	}
	// A candidate at whose parent the test fails too only touched the
	// faulty lines: they are blamed again past it (the SZZ refinement
	// that skips such commits), once, and the commits that wrote them
	// before join the candidates.
	var passedOver, skipped []string
	earlierBlame := map[string]bool{}
	rounds := 0
	limit := m.maxCandidates
	for i := 0; i < len(cands); i++ {
		c := cands[i]
		if i >= limit {
			v.Dropped = append(v.Dropped, "not tested (beyond -max-candidates)")
			continue
		}
		if v.Regression != nil {
			v.Dropped = append(v.Dropped, "not tested (an earlier candidate was kept)")
			continue
		}
		parents, err := g.Run(ctx, "rev-list", "--parents", "-n", "1", c)
		if err != nil {
			return nil, err
		}
		ps := strings.Fields(string(parents))
		switch {
		case len(ps) < 2:
			v.Dropped = append(v.Dropped, "the candidate is a root commit")
			continue
		case len(ps) > 2:
			v.Dropped = append(v.Dropped, "the candidate is a merge")
			continue
		}
		base := ps[1]
		var setup testSetup
		var modFrom []string
		confirmed, reason := false, ""
		for i, test := range tried {
			var why string
			setup, modFrom, why, err = m.confirm(ctx, co, f, c, base, testSetup{Files: tests}, test)
			if err != nil {
				return nil, err
			}
			if why == "" {
				confirmed = true
				break
			}
			if i == 0 {
				reason = why // the first test's, for the counts
			}
		}
		if !confirmed {
			v.Dropped = append(v.Dropped, reason)
			if strings.HasPrefix(reason, parentFails) {
				passedOver = append(passedOver, c)
			}
			if (i == len(cands)-1 || i == limit-1) && rounds < maxReblames {
				rounds++
				earlier, err := m.blameEarlier(ctx, g, f, blamed, cands, append(slices.Clone(skipped), passedOver...))
				if err != nil {
					return nil, err
				}
				// Tried next, before the untried ones blamed first.
				cands = slices.Insert(cands, i+1, earlier...)
				limit += len(earlier)
				skipped = append(skipped, passedOver...)
				for _, e := range earlier {
					earlierBlame[e] = true
				}
				v.Candidates += len(earlier)
				passedOver = nil
			}
			continue
		}
		r, err := describe(ctx, g, p, f, c, base, blamed[c])
		if err != nil {
			return nil, err
		}
		r.Test, r.Dir, r.TestFiles, r.Migrated, r.ModFromFix = setup.Test, setup.Dir, tests, setup.Migrate, modFrom
		if earlierBlame[c] {
			r.PassedOver = skipped
		}
		if len(r.Truth) == 0 {
			v.Dropped = append(v.Dropped, "no hunk of the candidate holds a blamed line")
			continue
		}
		v.Regression = r
	}
	return v, nil
}

// confirm runs a failing test of the fault at a candidate and its parent:
// why is "" when it fails at the candidate and passes at the parent, else
// why not. setup says how the test was put in (given: the fix's test
// files, and where go.mod comes from); modFrom which module files came
// from the fix.
func (m *miner) confirm(ctx context.Context, co *checkout, f realfault.Fault, c, base string, given testSetup, test gocmd.TestID) (setup testSetup, modFrom []string, why string, err error) {
	tests := given.Files
	dir := "."
	if test.Package != f.Module {
		rel, ok := strings.CutPrefix(test.Package, f.Module+"/")
		if !ok {
			return setup, nil, "the failing test's package is outside the module", nil
		}
		dir = rel
	}
	setup = testSetup{Fix: f.Fix, Files: tests, Dir: dir, Test: test.Test, GoModFrom: given.GoModFrom}
	if modFrom, err = co.at(ctx, c, setup); err != nil {
		return setup, nil, "", err
	}
	at, detail := co.testVerdict(ctx, dir, test.Test, m.timeout)
	if at == verdictNoBuild || at == verdictNoTest {
		// The fix's whole test files do not compile (or lack the test)
		// at the candidate: move only the test.
		setup.Migrate = true
		if _, err := co.at(ctx, c, setup); err != nil {
			at, detail = verdictNoBuild, "migrating the test: "+realfault.FirstLine(err.Error())
		} else {
			at, detail = co.testVerdict(ctx, dir, test.Test, m.timeout)
		}
	}
	if at != verdictFail {
		return setup, modFrom, withDetail("the test does not fail at the candidate: "+at, detail), nil
	}
	kept, err := co.testFiles(dir)
	if err != nil {
		return setup, nil, "", err
	}
	// The fix's other test inputs (a project's test files outside
	// testdata) are read at run time as they are in the working tree,
	// whatever the commit: the parent runs with them too.
	for _, f := range tests {
		if _, ok := kept[f]; ok || strings.HasSuffix(f, ".go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(co.dir, filepath.FromSlash(f)))
		if err == nil {
			kept[f] = data
		}
	}
	if err := co.atWithTests(ctx, base, setup, kept); err != nil {
		return setup, nil, "", err
	}
	if before, detail := co.testVerdict(ctx, dir, test.Test, m.timeout); before != verdictPass {
		return setup, modFrom, withDetail(parentFails+before, detail), nil
	}
	return setup, modFrom, "", nil
}

func (m *miner) checkout(ctx context.Context, g realfault.Repo, repo string) (*checkout, error) {
	if co, ok := m.clones[repo]; ok {
		return co, nil
	}
	co, err := openCheckout(ctx, g, m.work, repo)
	if err != nil {
		return nil, err
	}
	m.clones[repo] = co
	return co, nil
}

// describe makes the regression of a confirmed introducing commit: its
// date and subject, the truth hunks, the commits up to the failure and
// the size of its diff.
func describe(ctx context.Context, g realfault.Repo, p realfault.Project, f realfault.Fault, intro, base string, blamed []blamedLine) (*Regression, error) {
	info, err := g.Run(ctx, "log", "-1", "--format=%aI%x1f%s", intro)
	if err != nil {
		return nil, err
	}
	date, subject, _ := strings.Cut(strings.TrimSpace(string(info)), "\x1f")
	r := &Regression{ID: p.Name() + "-" + intro[:7], Fault: f.ID, Repo: f.Repo, Domain: f.Domain, Fix: f.Fix, Failing: f.Parent,
		Introducing: intro, Date: date, Subject: subject, Base: base}
	between, err := g.Run(ctx, "rev-list", "--count", base+".."+f.Parent)
	if err != nil {
		return nil, err
	}
	r.Between, _ = strconv.Atoi(strings.TrimSpace(string(between)))

	stat, err := g.Run(ctx, "diff", "--numstat", "--no-renames", base, intro)
	if err != nil {
		return nil, err
	}
	var goFiles []string
	for _, line := range strings.Split(strings.TrimSpace(string(stat)), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		r.Diff.Files++
		if strings.HasSuffix(parts[2], ".go") && !p.IsTest(parts[2]) {
			goFiles = append(goFiles, parts[2])
			a, _ := strconv.Atoi(parts[0])
			d, _ := strconv.Atoi(parts[1])
			r.Diff.Lines += a + d
		}
	}
	r.Diff.GoFiles = len(goFiles)
	if len(goFiles) > 0 {
		diff, err := g.Run(ctx, append([]string{"diff", "-U0", "--no-renames", "--no-color", base, intro, "--"}, goFiles...)...)
		if err != nil {
			return nil, err
		}
		hs, err := realfault.ParseHunks(diff)
		if err != nil {
			return nil, err
		}
		r.Diff.Hunks = len(hs)
	}

	// The truth: the hunks of the blamed files holding blamed lines.
	byFile := map[string][]int{}
	for _, b := range blamed {
		byFile[b.file] = append(byFile[b.file], b.line)
	}
	files := make([]string, 0, len(byFile))
	for file := range byFile {
		files = append(files, file)
	}
	sort.Strings(files)
	for _, file := range files {
		diff, err := g.Run(ctx, "diff", "-U0", "--no-renames", "--no-color", base, intro, "--", file)
		if err != nil {
			return nil, err
		}
		hs, err := realfault.ParseHunks(diff)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			var in []int
			for _, l := range byFile[file] {
				if l >= h.NewStart && l < h.NewStart+h.NewCount {
					in = append(in, l)
				}
			}
			if len(in) > 0 {
				slices.Sort(in)
				r.Truth = append(r.Truth, TruthHunk{File: file, Start: h.NewStart, Count: h.NewCount, OldStart: h.OldStart, OldCount: h.OldCount, Blamed: slices.Compact(in)})
			}
		}
	}
	return r, nil
}

// withDetail appends the particulars of a reason (a build error) after
// " — ", which reasonClass drops when counting.
func withDetail(reason, detail string) string {
	if detail == "" {
		return reason
	}
	return reason + " — " + detail
}
