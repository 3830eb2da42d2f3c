package server

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

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/localize"

	"github.com/faultline-go/faultline/spectra"
)

// snapshot is one module's results as shown under one set of settings. It is
// immutable once built, so requests read it without locks.
type snapshot struct {
	seq      uint64
	root     string
	matrix   *spectra.Matrix // restricted to the focused failing test, if any
	ranking  *localize.Ranking
	settings Settings
	focus    string // failing test the ranking is localized to; "" for all

	flagged     []int                  // indices into ranking.Lines shown as suspicious, best first
	flaggedIn   map[string][]int       // the same, by file
	runs        map[int]lineRuns       // tests running each flagged line
	lines       map[string][]int       // file -> indices into ranking.Lines, by line
	at          map[fileLine]int       // (file, line) -> index into ranking.Lines
	hashes      map[string]contentHash // file -> content hash when collected
	buildErrors string                 // compiler messages, when some package did not build

	base *snapshot // the same results not localized to a test; itself when not localized

	testsOnce sync.Once
	tests     map[testKey]testFunc

	// angelic is what the analysis contributed so far (nil: it did not run
	// on these results); findings are its candidates as shown.
	angelic  *localize.Angelic
	findings *findingsSlot
	// results are the analyses behind the ranking: angelic's, those of the
	// focused test alone when localized.
	results []analysis.TestResult

	fixHostsOnce sync.Once
	fixHosts     int // lines hosting a verified fix (hostsOfFixes)
}

type fileLine struct {
	file string
	line int
}

// buildSnapshot ranks m under the settings, in the order they ask for with
// what loc (the localization service's latest state for m) holds, and
// indexes the result for the per-request lookups.
func buildSnapshot(seq uint64, root string, m *spectra.Matrix, loc *localize.Localization, st Settings, focus string, cache *contentCache, evc *evidenceCache) (*snapshot, error) {
	var cores *localize.SatTar
	if loc != nil && loc.Matrix == m {
		cores = loc.SatTar
	}
	ranker, err := lineRanker(st.Formula, cores)
	if err != nil {
		return nil, fmt.Errorf("formula: %w", err)
	}
	var base *snapshot
	var results []analysis.TestResult
	var angelic *localize.Angelic
	if loc != nil && loc.Matrix == m && loc.Angelic != nil && st.Angelic {
		angelic = loc.Angelic
		results = angelic.Results
	}
	key := evidenceKey{matrix: m, focus: focus, formula: st.Formula, cores: cores}
	if focus != "" {
		if base, err = buildSnapshot(seq, root, m, loc, st, "", cache, evc); err != nil {
			return nil, err
		}
		m = focusOn(m, focus)
		results = slices.DeleteFunc(slices.Clone(results), func(t analysis.TestResult) bool { return !inFocus(t.Test, focus) })
	}
	// The order faultline rank -order prints, the setting's.
	r, err := ranker(m)
	if err != nil {
		return nil, fmt.Errorf("ranking: %w", err)
	}
	if r, err = ordered(r, m, angelic, results, cores, st, evc, key); err != nil {
		return nil, fmt.Errorf("ordering: %w", err)
	}
	f, byID := findingsOf(results, collectedLines(root, m, cache))
	snap := &snapshot{
		seq: seq, root: root, matrix: m, ranking: r, settings: st, focus: focus,
		runs:      make(map[int]lineRuns),
		lines:     make(map[string][]int),
		flaggedIn: make(map[string][]int),
		at:        make(map[fileLine]int, len(r.Lines)),
		hashes:    make(map[string]contentHash),
		angelic:   angelic,
		results:   results,
		findings:  &findingsSlot{Findings: f, byID: byID},
	}
	snap.base = snap
	if base != nil {
		snap.base = base
	}
	snap.buildErrors = joinBuildErrors(m.BuildErrors)
	for i, l := range r.Lines {
		snap.lines[l.File] = append(snap.lines[l.File], i)
		snap.at[fileLine{l.File, l.Line}] = i
	}
	for file, idx := range snap.lines {
		sort.Slice(idx, func(a, b int) bool { return r.Lines[idx[a]].Line < r.Lines[idx[b]].Line })
		snap.hashes[file] = collectedContent(root, file, m.FileHashes[file], cache)
	}
	if snap.buildErrors == "" && r.Failed > 0 {
		for i, l := range r.Lines {
			if len(snap.flagged) == st.Top {
				break
			}
			if l.EF == 0 || l.Score <= 0 || (st.Threshold != 0 && l.Score < st.Threshold) {
				continue
			}
			snap.flagged = append(snap.flagged, i)
			snap.flaggedIn[l.File] = append(snap.flaggedIn[l.File], i)
			snap.runs[i] = snap.computeRuns(i)
		}
	}
	return snap, nil
}

// collectedContent makes sure the cache holds the text a file had when it was
// collected and returns its hash. When the engine recorded no hash, the text
// on disk now is taken as the collected one.
func collectedContent(root, file string, recorded string, cache *contentCache) contentHash {
	h := contentHash(recorded)
	if h != "" {
		if _, ok := cache.get(h); ok {
			return h
		}
	}
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return h
	}
	if got := hashContent(text); h == "" || got == h {
		return cache.put(text)
	}
	return h // changed since collection and not seen before: lines cannot be mapped
}

// collectedLines reads the module's files as they were collected, for
// showing fixes as edits of the lines the analysis saw; a file changed
// since, whose collected text is not cached, has no lines.
func collectedLines(root string, m *spectra.Matrix, cache *contentCache) analysis.SourceLines {
	read := map[string][]string{}
	return func(rel string) []string {
		if lines, ok := read[rel]; ok {
			return lines
		}
		var lines []string
		if text, ok := cache.get(collectedContent(root, rel, m.FileHashes[rel], cache)); ok {
			lines = strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		}
		read[rel] = lines
		return lines
	}
}

// focusOn keeps the passing tests and the failing runs of one test (the test
// itself or any of its subtests), so the ranking explains that test alone.
func focusOn(m *spectra.Matrix, test string) *spectra.Matrix {
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
func lineRanker(name string, cores *localize.SatTar) (func(*spectra.Matrix) (*localize.Ranking, error), error) {
	t, err := localize.ParseTechnique(name)
	if err != nil {
		return nil, err
	}
	switch {
	case t.SatTar():
		return func(m *spectra.Matrix) (*localize.Ranking, error) { return localize.RankSatTar(m, cores) }, nil
	case t.BlockRank():
		return func(m *spectra.Matrix) (*localize.Ranking, error) {
			if m.Flow == nil {
				return localize.RankFormula(m, nil)
			}
			return localize.RankBlockRank(m, localize.BlockRankOptions{})
		}, nil
	}
	return func(m *spectra.Matrix) (*localize.Ranking, error) { return localize.RankFormula(m, t.Formula) }, nil
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
type lineRuns struct{ failing, passing []int }

func (snap *snapshot) computeRuns(i int) lineRuns {
	l := snap.ranking.Lines[i]
	f, p := snap.matrix.Executing(l.File, l.Line)
	return lineRuns{f, p}
}

// executing returns the tests running ranked line i: precomputed for the
// flagged lines, which every request shows, computed on demand otherwise.
func (snap *snapshot) executing(i int) lineRuns {
	if r, ok := snap.runs[i]; ok {
		return r
	}
	return snap.computeRuns(i)
}

// failingTests returns the failing tests that execute ranked line i.
func (snap *snapshot) failingTests(i int) []*spectra.TestRun {
	var out []*spectra.TestRun
	for _, t := range snap.executing(i).failing {
		out = append(out, &snap.matrix.Tests[t])
	}
	return out
}

// fingerprint identifies the content of a matrix, so a store reload that
// brings nothing new does not republish anything.
func fingerprint(m *spectra.Matrix) string {
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
		num(len(t.Hits))
		for _, b := range t.Hits {
			num(b)
		}
	}
	for _, k := range sortedKeys(m.FileHashes) {
		str(k)
		str(m.FileHashes[k])
	}
	for _, k := range sortedKeys(m.BuildErrors) {
		str(k)
		str(m.BuildErrors[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
