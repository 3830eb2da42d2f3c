package snapshot

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/faultline-go/faultline/internal/localize"

	"github.com/faultline-go/faultline/spectra"
)

// Snapshot is one module's results as shown under one set of settings. It is
// immutable once built, so requests read it without locks.
type Snapshot struct {
	Seq      uint64
	Root     string
	Matrix   *localize.Matrix // restricted to the focused failing test, if any
	Ranking  *localize.Ranking
	Settings Choices
	Focus    string // failing test the ranking is localized to; "" for all

	Flagged     []int                  // indices into ranking.Lines shown as suspicious, best first
	FlaggedIn   map[string][]int       // the same, by file
	Runs        map[int]lineRuns       // tests running each flagged line
	lines       map[string][]int       // file -> indices into ranking.Lines, by line
	At          map[FileLine]int       // (file, line) -> index into ranking.Lines
	Hashes      map[string]ContentHash // file -> content hash when collected
	BuildErrors string                 // compiler messages, when some package did not build

	Base *Snapshot // the same results not localized to a test; itself when not localized

	testsOnce sync.Once
	tests     map[testKey]testFunc

	// Angelic is what the analysis contributed so far (nil: it did not run
	// on these results); findings are its candidates as shown.
	Angelic  *localize.Angelic
	Findings *findingsSlot
	// Mutation is what the mutation analysis contributed (nil: it did not
	// run on these results); its operator fixes are in Findings.
	Mutation *localize.Mutation
	// Results are the analyses behind the ranking: angelic's, those of the
	// focused test alone when localized.
	Results []localize.TestResult

	fixHostsOnce sync.Once
	fixHosts     int // lines hosting a verified fix (hostsOfFixes)
}

// Choices are the settings a snapshot is shown under, as far as it reads
// them; the server makes them from its settings.
type Choices struct {
	Formula   string  // the technique's name
	Top       int     // how many suspicious lines to flag
	Threshold float64 // minimum score to flag a line; 0 flags the top N
	Angelic   bool    // the analyses' findings are shown
	Order     string  // the order setting as given
	// ShownOrder is the order the lines are shown in: Order, or the
	// default that stands for it.
	ShownOrder string
	// Localize are the service's options under the settings.
	Localize localize.Options
}

// FileLine is a line of a file relative to the module root.
type FileLine struct {
	File string
	Line int
}

// BuildSnapshot ranks m under the settings, in the order they ask for with
// what loc (the localization service's latest state for m) holds, and
// indexes the result for the per-request lookups.
func BuildSnapshot(seq uint64, root string, m *localize.Matrix, loc *localize.Localization, st Choices, focus string, cache *ContentCache, evc *EvidenceCache) (*Snapshot, error) {
	var cores *localize.SatTar
	var mutation *localize.Mutation
	if loc != nil && loc.Matrix == m {
		cores, mutation = loc.SatTar, loc.Mutation
	}
	ranker, err := lineRanker(st.Formula, cores)
	if err != nil {
		return nil, fmt.Errorf("formula: %w", err)
	}
	var base *Snapshot
	var results []localize.TestResult
	var angelic *localize.Angelic
	if loc != nil && loc.Matrix == m && loc.Angelic != nil && st.Angelic {
		angelic = loc.Angelic
		results = angelic.Results
	}
	key := evidenceKey{matrix: m, focus: focus, formula: st.Formula, cores: cores, mutation: mutation}
	if focus != "" {
		if base, err = BuildSnapshot(seq, root, m, loc, st, "", cache, evc); err != nil {
			return nil, err
		}
		m = focusOn(m, focus)
		results = slices.DeleteFunc(slices.Clone(results), func(t localize.TestResult) bool { return !inFocus(t.Test, focus) })
	}
	// The order faultline rank -order prints, the setting's.
	r, err := ranker(m)
	if err != nil {
		return nil, fmt.Errorf("ranking: %w", err)
	}
	if r, err = ordered(r, m, angelic, results, cores, mutation, st, evc, key); err != nil {
		return nil, fmt.Errorf("ordering: %w", err)
	}
	src := collectedLines(root, m, cache)
	f, byID := FindingsOf(results, src)
	f.Operators = operatorFixesOf(mutation, src)
	snap := &Snapshot{
		Seq: seq, Root: root, Matrix: m, Ranking: r, Settings: st, Focus: focus,
		Runs:      make(map[int]lineRuns),
		lines:     make(map[string][]int),
		FlaggedIn: make(map[string][]int),
		At:        make(map[FileLine]int, len(r.Lines)),
		Hashes:    make(map[string]ContentHash),
		Angelic:   angelic,
		Mutation:  mutation,
		Results:   results,
		Findings:  &findingsSlot{Findings: f, byID: byID},
	}
	snap.Base = snap
	if base != nil {
		snap.Base = base
	}
	snap.BuildErrors = joinBuildErrors(m.BuildErrors)
	for i, l := range r.Lines {
		snap.lines[l.File] = append(snap.lines[l.File], i)
		snap.At[FileLine{l.File, l.Line}] = i
	}
	for file, idx := range snap.lines {
		sort.Slice(idx, func(a, b int) bool { return r.Lines[idx[a]].Line < r.Lines[idx[b]].Line })
		snap.Hashes[file] = CollectedContent(root, file, m.FileHashes[file], cache)
	}
	if snap.BuildErrors == "" && r.Failed > 0 {
		for i, l := range r.Lines {
			if len(snap.Flagged) == st.Top {
				break
			}
			if l.EF == 0 || l.Score <= 0 || (st.Threshold != 0 && l.Score < st.Threshold) {
				continue
			}
			snap.Flagged = append(snap.Flagged, i)
			snap.FlaggedIn[l.File] = append(snap.FlaggedIn[l.File], i)
			snap.Runs[i] = snap.computeRuns(i)
		}
	}
	return snap, nil
}

// CollectedContent makes sure the cache holds the text a file had when it was
// collected and returns its hash. When the engine recorded no hash, the text
// on disk now is taken as the collected one.
func CollectedContent(root, file string, recorded string, cache *ContentCache) ContentHash {
	h := ContentHash(recorded)
	if h != "" {
		if _, ok := cache.Get(h); ok {
			return h
		}
	}
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return h
	}
	if got := HashContent(text); h == "" || got == h {
		return cache.Put(text)
	}
	return h // changed since collection and not seen before: lines cannot be mapped
}

// collectedLines reads the module's files as they were collected, for
// showing fixes as edits of the lines the analysis saw; a file changed
// since, whose collected text is not cached, has no lines.
func collectedLines(root string, m *localize.Matrix, cache *ContentCache) localize.SourceLines {
	read := map[string][]string{}
	return func(rel string) []string {
		if lines, ok := read[rel]; ok {
			return lines
		}
		var lines []string
		if text, ok := cache.Get(CollectedContent(root, rel, m.FileHashes[rel], cache)); ok {
			lines = strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		}
		read[rel] = lines
		return lines
	}
}

// focusOn keeps the passing tests and the failing runs of one test (the test
// itself or any of its subtests), so the ranking explains that test alone.
func focusOn(m *localize.Matrix, test string) *localize.Matrix {
	out := *m
	out.Tests = nil
	var runs [][]spectra.EdgeCount
	for i, t := range m.Tests {
		if t.Verdict.Failing() && !inFocus(t.Name, test) {
			continue
		}
		out.Tests = append(out.Tests, t)
		if m.Flow != nil {
			runs = append(runs, m.Flow.Runs[i])
		}
	}
	if m.Flow != nil {
		flow := *m.Flow
		flow.Runs = runs
		out.Flow = &flow
	}
	return &out
}

// inFocus reports whether a test is the focused test or one of its
// subtests.
func inFocus(name, focus string) bool { return name == focus || strings.HasPrefix(name, focus+"/") }

// lineRanker returns the ranking a formula setting asks for. BlockRank
// needs edge profiles, which collections make when it is set; a matrix
// without them (loaded from runs made before) is ranked by the default
// formula until the next run, and the ranking names the formula used.
// SAT-TAR's bonus comes from cores the service computes (nil until it has):
// without them its order is Tarantula's.
func lineRanker(name string, cores *localize.SatTar) (func(*localize.Matrix) (*localize.Ranking, error), error) {
	t, err := localize.ParseTechnique(name)
	if err != nil {
		return nil, err
	}
	switch {
	case t.SatTar():
		return func(m *localize.Matrix) (*localize.Ranking, error) { return localize.RankSatTar(m, cores) }, nil
	case t.BlockRank():
		return func(m *localize.Matrix) (*localize.Ranking, error) {
			if m.Flow == nil {
				return localize.RankFormula(m, nil)
			}
			return localize.RankBlockRank(m, localize.BlockRankOptions{})
		}, nil
	}
	return func(m *localize.Matrix) (*localize.Ranking, error) { return localize.RankFormula(m, t.Formula) }, nil
}

func joinBuildErrors(errs map[string]string) string {
	if len(errs) == 0 {
		return ""
	}
	pkgs := make([]string, 0, len(errs))
	for p := range errs {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	var b strings.Builder
	for _, p := range pkgs {
		fmt.Fprintf(&b, "%s:\n%s\n", p, strings.TrimSpace(errs[p]))
	}
	return strings.TrimSpace(b.String())
}

// lineRuns are the counted tests executing one line, as indices into
// Matrix.Tests.
type lineRuns struct{ Failing, Passing []int }

func (snap *Snapshot) computeRuns(i int) lineRuns {
	l := snap.Ranking.Lines[i]
	f, p := snap.Matrix.Executing(l.File, l.Line)
	return lineRuns{f, p}
}

// Executing returns the tests running ranked line i: precomputed for the
// flagged lines, which every request shows, computed on demand otherwise.
func (snap *Snapshot) Executing(i int) lineRuns {
	if r, ok := snap.Runs[i]; ok {
		return r
	}
	return snap.computeRuns(i)
}

// executingFailing returns the failing tests running ranked line i
// (indices into Matrix.Tests), without the passing ones Executing also
// finds.
func (snap *Snapshot) executingFailing(i int) []int {
	if r, ok := snap.Runs[i]; ok {
		return r.Failing
	}
	l := snap.Ranking.Lines[i]
	return snap.Matrix.ExecutingFailing(l.File, l.Line)
}

// FailingTests returns the failing tests that execute ranked line i.
func (snap *Snapshot) FailingTests(i int) []*localize.TestRun {
	var out []*localize.TestRun
	for _, t := range snap.executingFailing(i) {
		out = append(out, &snap.Matrix.Tests[t])
	}
	return out
}

// Fingerprint identifies the content of a matrix, so a store reload that
// brings nothing new does not republish anything.
func Fingerprint(m *localize.Matrix) string {
	h := sha256.New()
	var buf [8]byte
	num := func(n int) {
		binary.LittleEndian.PutUint64(buf[:], uint64(n))
		h.Write(buf[:])
	}
	str := func(s string) {
		num(len(s))
		h.Write([]byte(s))
	}
	num(len(m.Blocks))
	for _, t := range m.Tests {
		str(t.Package)
		str(t.Name)
		str(string(t.Verdict))
		num(t.Hits.Len())
		for b := range t.Hits.All() {
			num(b)
		}
	}
	for _, k := range SortedKeys(m.FileHashes) {
		str(k)
		str(m.FileHashes[k])
	}
	for _, k := range SortedKeys(m.BuildErrors) {
		str(k)
		str(m.BuildErrors[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
