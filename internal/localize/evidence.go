package localize

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/parsed"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/blockrank"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Evidence is what the techniques say of each ranked line: named columns,
// one number per line each. A technique contributes its columns through an
// evidenceSource; a new technique adds a source (and so columns) without
// touching the others or the learned order, whose model gives a column it
// does not know no weight.
type Evidence struct {
	Columns map[string][]float64 // column name → value of each line, in the ranking's line order
}

// evidenceInput is what the sources read.
type evidenceInput struct {
	matrix   *spectra.Matrix
	lines    []RankedLine // the formula's ranking: every executed line with its counts
	results  []analysis.TestResult
	cores    []analysis.CoreResult // SAT-TAR's cores, when its order was asked for
	mutation *Mutation             // the mutation analysis, when it ran
	files    *parsed.Cache         // the module's parsed source
}

// evidenceSource is one technique's columns.
type evidenceSource struct {
	name string
	// analysed says the columns depend on the analyses' results, so are
	// computed again as results come; the others once per localization.
	analysed bool
	fill     func(in *evidenceInput, put func(column string, line int, v float64)) error
}

// evidenceSources are the techniques that give evidence, in column order.
// (A function, not a variable: the package keeps no state.)
func evidenceSources() []evidenceSource {
	return []evidenceSource{
		{"spectrum", false, spectrumEvidence},
		{"blockrank", false, blockRankEvidence},
		{"angelic", true, angelicEvidence},
		{"slice", true, sliceEvidence},
		{"sattar", false, satTarEvidence},
		{"static", false, staticEvidence},
		{"mutation", false, mutationEvidence},
		{identitySource, false, identityEvidence},
	}
}

// gatherEvidence computes every source's columns for the lines of a
// formula ranking, taking those that do not depend on the analyses from
// prior when it is set (an earlier gathering over the same lines). A
// source that fails leaves its columns out and says why.
func gatherEvidence(m *spectra.Matrix, files *parsed.Cache, lines []RankedLine, results []analysis.TestResult, cores []analysis.CoreResult, mut *Mutation, prior *Evidence) (*Evidence, []string) {
	ev := &Evidence{Columns: map[string][]float64{}}
	in := &evidenceInput{matrix: m, lines: lines, results: results, cores: cores, mutation: mut, files: files}
	var notes []string
	for _, src := range evidenceSources() {
		if prior != nil && !src.analysed {
			for name, c := range prior.Columns {
				if strings.HasPrefix(name, src.name+".") {
					ev.Columns[name] = c
				}
			}
			continue
		}
		cols := map[string][]float64{}
		err := src.fill(in, func(column string, line int, v float64) {
			c := cols[column]
			if c == nil {
				c = make([]float64, len(lines))
				cols[column] = c
			}
			c[line] = v
		})
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s evidence left out: %v", src.name, err))
			continue
		}
		for name, c := range cols {
			ev.Columns[src.name+"."+name] = c
		}
	}
	return ev, notes
}

// putter sets source's columns of n lines, making each column as it is
// first set.
func (e *Evidence) putter(source string, n int) func(column string, line int, v float64) {
	return func(column string, line int, v float64) {
		name := source + "." + column
		c := e.Columns[name]
		if c == nil {
			c = make([]float64, n)
			e.Columns[name] = c
		}
		c[line] = v
	}
}

// Line returns one line's nonzero evidence.
func (e *Evidence) Line(i int) map[string]float64 {
	out := map[string]float64{}
	for name, c := range e.Columns {
		if c[i] != 0 {
			out[name] = c[i]
		}
	}
	return out
}

// FormulaColumn is the default formula's score, the column a learned
// order weighs everything else against; Scales leaves it as it is.
const FormulaColumn = "spectrum.ochiai"

// Scales gives each column but the formula's score the largest absolute
// value it takes over the ranking's lines (columns that are zero
// throughout have none).
func (e *Evidence) Scales() map[string]float64 {
	scales := map[string]float64{}
	for name, c := range e.Columns {
		if name == FormulaColumn {
			continue
		}
		top := 0.0
		for _, v := range c {
			top = max(top, math.Abs(v))
		}
		if top > 0 {
			scales[name] = top
		}
	}
	return scales
}

// Scaled returns a copy of e with each column that scales names divided
// by its scale.
func (e *Evidence) Scaled(scales map[string]float64) *Evidence {
	out := &Evidence{Columns: make(map[string][]float64, len(e.Columns))}
	for name, c := range e.Columns {
		s, ok := scales[name]
		if !ok {
			out.Columns[name] = c
			continue
		}
		scaled := make([]float64, len(c))
		for i, v := range c {
			scaled[i] = v / s
		}
		out.Columns[name] = scaled
	}
	return out
}

// evidenceFormulas are the formulas whose ranks are evidence: the default,
// the best of the seeded benchmark, and formulas of other families.
var evidenceFormulas = []string{"ochiai", "op2", "dstar2", "tarantula", "barinel", "gp13"}

// spectrumEvidence gives each formula's rank as a share of the ranking
// (1 for the first line, ties at their average position), Ochiai's and
// Tarantula's scores, and the shares of failing and passing tests that
// execute the line.
func spectrumEvidence(in *evidenceInput, put func(string, int, float64)) error {
	n := len(in.lines)
	elems := make([]rank.Element, n)
	failed, passed := 0, 0
	for i, l := range in.lines {
		elems[i] = rank.Element{Counts: rank.Counts{EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP}, Loc: rank.Location{File: l.File, Line: l.Line}}
		failed, passed = l.EF+l.NF, l.EP+l.NP
	}
	for _, name := range evidenceFormulas {
		f, err := rank.Lookup(name)
		if err != nil {
			return err
		}
		for _, r := range rank.Rank(elems, f) {
			put(f.Name()+".rank", r.Elem, rankShare(r.Average(), n))
			if name == "ochiai" || name == "tarantula" {
				put(f.Name(), r.Elem, r.Score)
			}
		}
	}
	for i, l := range in.lines {
		if failed > 0 {
			put("failShare", i, float64(l.EF)/float64(failed))
		}
		if passed > 0 {
			put("passShare", i, float64(l.EP)/float64(passed))
		}
		if l.EF > 0 && l.EP == 0 {
			put("onlyFailing", i, 1)
		}
	}
	return nil
}

// rankShare maps a 1-based (average) position among n to (0, 1], the first
// position to 1.
func rankShare(pos float64, n int) float64 {
	if n <= 1 {
		return 1
	}
	return 1 - (pos-1)/float64(n)
}

// blockRankEvidence gives BlockRank's rank share when the collection
// carries edge profiles.
func blockRankEvidence(in *evidenceInput, put func(string, int, float64)) error {
	if in.matrix.Flow == nil {
		return nil
	}
	br, err := spectra.RankBlockRank(in.matrix, blockrank.Options{})
	if err != nil {
		return err
	}
	index := lineIndex(in.lines)
	for _, l := range br.Lines {
		if i, ok := index[line{l.File, l.Line}]; ok && l.BlockRank != nil {
			put("rank", i, rankShare(float64(l.Tie[0]+l.Tie[1])/2, len(br.Lines)))
		}
	}
	return nil
}

func lineIndex(lines []RankedLine) map[line]int {
	index := make(map[line]int, len(lines))
	for i, l := range lines {
		index[line{l.File, l.Line}] = i
	}
	return index
}

// angelicSearches names the evidence column of each search that finds
// verified single-location fixes, by Candidate.Found; a result cached
// before searches were told apart has no Found and was the solver's.
var angelicSearches = map[string]string{
	"":                          "solver",
	analysis.FoundBySolver:      "solver",
	analysis.FoundBySwitching:   "switch",
	analysis.FoundByReplacement: "replace",
}

// angelicColumns are the angelic source's per-test columns, in the order
// of perLine's flags.
var angelicColumns = []string{"fix", "solver", "switch", "replace", "multi", "unverified", "extreme"}

// angelicEvidence: for each line, the shares of analysed failing tests
// for which it hosts a verified single-location fix (fix: by any search;
// solver, switch, replace: by the formula's correction sets, by predicate
// switching, by value replacement), a verified multi-location one, or an
// unverified one; whether a fix on it fixes every analysed test; how
// exclusive the line's fixes are (1 over the number of lines hosting one);
// the smallest correction set it belongs to (1 over its size); and whether
// only an extreme value fixes the test.
func angelicEvidence(in *evidenceInput, put func(string, int, float64)) error {
	if len(in.results) == 0 {
		return nil
	}
	index := lineIndex(in.lines)
	counts := map[int][]int{}
	mcs := map[int]float64{}
	for _, r := range in.results {
		seen := map[int][]bool{} // line → a flag per angelicColumns
		for _, c := range r.Candidates {
			for _, loc := range c.Locations {
				for n := loc.Line; n <= max(loc.Line, loc.EndLine); n++ {
					i, ok := index[line{loc.File, n}]
					if !ok {
						continue
					}
					p := seen[i]
					if p == nil {
						p = make([]bool, len(angelicColumns))
						seen[i] = p
					}
					set := func(column string) { p[slices.Index(angelicColumns, column)] = true }
					switch {
					case !c.Verified:
						set("unverified")
					case len(c.Locations) == 1:
						set("fix")
						search, ok := angelicSearches[c.Found]
						if !ok {
							return fmt.Errorf("%s: a candidate found by an unknown search %q", r.Test, c.Found)
						}
						set(search)
					default:
						set("multi")
					}
					if c.Verified {
						mcs[i] = max(mcs[i], 1/float64(len(c.Locations)))
						if loc.Extreme {
							set("extreme")
						}
					}
				}
			}
		}
		for i, p := range seen {
			c := counts[i]
			if c == nil {
				c = make([]int, len(angelicColumns))
				counts[i] = c
			}
			for k, b := range p {
				if b {
					c[k]++
				}
			}
		}
	}
	hosts := 0
	for _, c := range counts {
		if c[0] > 0 {
			hosts++
		}
	}
	analysed := float64(len(in.results))
	for i, c := range counts {
		for k, name := range angelicColumns {
			if c[k] > 0 {
				put(name, i, float64(c[k])/analysed)
			}
		}
		if c[0] > 0 {
			put("exclusive", i, 1/float64(hosts))
			if c[0] == len(in.results) {
				put("fixAll", i, 1)
			}
		}
		if mcs[i] > 0 {
			put("mcs", i, mcs[i])
		}
	}
	return nil
}

// sliceEvidence: for each line, whether it is in the dynamic backward
// slice of some analysed failing test's check (member), and how near the
// check it is there (distance: 1 for the check's own line, falling
// towards 0 with the dependences between them, 0 outside every slice; the
// nearest of the tests). Lines a check does not depend on, which coverage
// ties with those it does, get neither.
func sliceEvidence(in *evidenceInput, put func(string, int, float64)) error {
	index := lineIndex(in.lines)
	nearest := map[int]float64{}
	for _, r := range in.results {
		for _, l := range r.Slice {
			if i, ok := index[line{l.File, l.Line}]; ok {
				nearest[i] = max(nearest[i], sliceNearness(l.Distance))
			}
		}
	}
	for i, v := range nearest {
		put("member", i, 1)
		put("distance", i, v)
	}
	return nil
}

// sliceNearness maps a distance from the check to (0, 1], the check
// itself to 1.
func sliceNearness(distance int) float64 { return 1 / float64(1+max(distance, 0)) }

// satTarEvidence gives, when SAT-TAR's order was asked for, the share of
// the failing tests with a core whose core holds the line (suspect) and 1
// over the size, in lines, of the smallest such core (core).
func satTarEvidence(in *evidenceInput, put func(string, int, float64)) error {
	index := lineIndex(in.lines)
	withCore := 0
	suspect := map[int]int{}
	smallest := map[int]float64{}
	for _, c := range in.cores {
		held := map[int]bool{}
		for _, s := range c.Suspects {
			for n := s.Line; n <= max(s.Line, s.EndLine); n++ {
				if i, ok := index[line{s.File, n}]; ok {
					held[i] = true
				}
			}
		}
		if len(held) == 0 {
			continue
		}
		withCore++
		for i := range held {
			suspect[i]++
			smallest[i] = max(smallest[i], 1/float64(len(held)))
		}
	}
	for i, n := range suspect {
		put("suspect", i, float64(n)/float64(withCore))
		put("core", i, smallest[i])
	}
	return nil
}
