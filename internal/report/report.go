// Package report writes one self-contained HTML page of a localization, for
// a person to look at: an overview of the module (packages, files and
// lines coloured by suspiciousness), the ranking, the source of the most
// suspicious files shaded line by line, each failing test with its verified
// angelic values, and the test suite's diagnosability with what would
// raise it. The page loads nothing: styles are inline, the overview is
// inline SVG, there is no script, and its content security policy forbids
// every request.
package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
)

// Options shape the page.
type Options struct {
	Files int // suspicious files whose source is shown (default 5)
	Lines int // ranked lines in the table (default 20)
	// Functions is how many functions the function table lists (default
	// 10).
	Functions int
	// Generated is printed as the time of the page; zero leaves it out.
	Generated time.Time
}

//go:embed report.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("report").Parse(pageTemplate))

// Write writes the page.
func Write(w io.Writer, loc *localize.Localization, opts Options) error {
	if opts.Files <= 0 {
		opts.Files = 5
	}
	if opts.Lines <= 0 {
		opts.Lines = 20
	}
	if opts.Functions <= 0 {
		opts.Functions = 10
	}
	p := newPageBuilder(loc, opts)
	pg, err := p.page()
	if err != nil {
		return err
	}
	if err := tmpl.Execute(w, pg); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

type lineKey struct {
	file string
	line int
}

// Colour levels: levelNone for a line no test executes, levelPassing for
// one only passing tests execute (or ranked below every line a failing
// test executes), 1..levels for the other ranked lines, by rank under the
// page's order: levels for the first rank, down to 1 past the last of
// rankBounds.
const (
	levelNone    = -1
	levelPassing = 0
)

// rankBounds are the last ranks of the coloured levels, strongest first:
// rank 1, ranks 2-3, 4-5, 6-10, 11-20, 21-50, 51-100, then the rest.
var rankBounds = []int{1, 3, 5, 10, 20, 50, 100}

var levels = len(rankBounds) + 1

// swatch is a level's background and the text colour drawn on it, the one
// of white and the page's text colour that contrasts more with it.
type swatch struct{ bg, fg string }

// palette holds levelPassing, then levels 1..levels from pale to strong
// (ColorBrewer's OrRd).
var palette = makePalette("#dde6ee", "#fee8c8", "#fdd49e", "#fdbb84", "#fc8d59", "#ef6548", "#d7301f", "#b30000", "#7f0000")

var noneSwatch = swatch{"#f2f2f2", textColor}

const textColor = "#1d2430"

func makePalette(bgs ...string) []swatch {
	out := make([]swatch, len(bgs))
	for i, bg := range bgs {
		fg := textColor
		if contrast(bg, "#ffffff") > contrast(bg, textColor) {
			fg = "#ffffff"
		}
		out[i] = swatch{bg, fg}
	}
	return out
}

func levelSwatch(level int) swatch {
	if level < 0 {
		return noneSwatch
	}
	return palette[level]
}

func levelColor(level int) string { return levelSwatch(level).bg }

// levelOfRank is the colour level of a line at rank r.
func levelOfRank(r int) int {
	for i, last := range rankBounds {
		if r <= last {
			return levels - i
		}
	}
	return 1
}

// levelLabel names the ranks of a level, for the legend.
func levelLabel(level int) string {
	i := levels - level // index into rankBounds of the level's last rank
	first := 1
	if i > 0 {
		first = rankBounds[i-1] + 1
	}
	switch {
	case i == len(rankBounds):
		return fmt.Sprintf("ranks %d and below", first)
	case first == rankBounds[i]:
		return fmt.Sprintf("rank %d", first)
	}
	return fmt.Sprintf("ranks %d–%d", first, rankBounds[i])
}

// contrast is the WCAG 2.1 contrast ratio of two "#rrggbb" colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// luminance is the WCAG 2.1 relative luminance of a "#rrggbb" colour.
func luminance(hex string) float64 {
	var rgb [3]float64
	for i := range rgb {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.04045 {
			rgb[i] = c / 12.92
		} else {
			rgb[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
}

type pageBuilder struct {
	loc     *localize.Localization
	opts    Options
	sources *export.Sources
	lines   []spectra.Line // every executable line, code order
	rankOf  map[lineKey]*localize.RankedLine
	// lastFailing is the last rank of a line a failing test executes:
	// lines ranked below are coloured as executed by passing tests only.
	lastFailing int
	fileAnchor  map[string]string // files shown in full, by path
	shown       []string          // those files, most suspicious first
}

func newPageBuilder(loc *localize.Localization, opts Options) *pageBuilder {
	p := &pageBuilder{loc: loc, opts: opts, sources: loc.Sources(),
		lines: loc.Matrix.Lines(), rankOf: map[lineKey]*localize.RankedLine{}, fileAnchor: map[string]string{}}
	for i := range loc.Ranking.Lines {
		l := &loc.Ranking.Lines[i]
		p.rankOf[lineKey{l.File, l.Line}] = l
		if l.EF > 0 {
			p.lastFailing = max(p.lastFailing, l.Rank)
		}
	}
	if loc.Ranking.Failed > 0 {
		for _, l := range loc.Ranking.Lines {
			if len(p.shown) == p.opts.Files {
				break
			}
			if _, ok := p.fileAnchor[l.File]; !ok && l.EF > 0 {
				p.fileAnchor[l.File] = fmt.Sprintf("file-%d", len(p.shown)+1)
				p.shown = append(p.shown, l.File)
			}
		}
	}
	return p
}

// level is the colour level of a line: by its rank (the first of the
// ranks it ties with, so that tied lines look alike) under the page's
// order, whichever it is.
func (p *pageBuilder) level(file string, line int) int {
	r, ok := p.rankOf[lineKey{file, line}]
	switch {
	case !ok:
		return levelNone
	case p.loc.Ranking.Failed == 0 || r.Rank > p.lastFailing:
		return levelPassing
	}
	first := r.Tie[0]
	if first == 0 { // a ranking that does not record its ties
		first = r.Rank
	}
	return levelOfRank(first)
}

func (p *pageBuilder) importPath(dir string) string {
	if dir == "." {
		return p.loc.Matrix.ModulePath
	}
	return p.loc.Matrix.ModulePath + "/" + dir
}

// The page's data.

type page struct {
	Module         string
	Generated      string
	Failed, Passed int
	Formula        string
	Order          string // how the lines are ranked, as a phrase
	OrderScore     string // the order's own score's column header; "" when the order is the formula's
	Angelic        *localize.Angelic
	Mutation       *localize.Mutation // nil unless -mutants ran
	Sunburst       template.HTML
	Legend         []legendEntry
	Ranked         []rankedRow
	More           int // ranked lines not in the table
	Functions      []functionRow
	MoreFunctions  int    // ranked functions not in the table
	OwnFormula     string // the formula of the functions' own spectra
	// FunctionsByModel says the learned model's function model orders
	// the functions, rather than their best lines.
	FunctionsByModel bool
	Files            []fileView
	Failing          []testView
	Diagnosability   diagnosabilityView
	BuildErrors      []string
}

type legendEntry struct{ Color, Label string }

type rankedRow struct {
	Rank                  int
	Score                 string
	File, Anchor          string
	Line                  int
	EF, EP, NF, NP, Fixes int
	Tie, Function         string
	Color, TextColor      string
	Source                string // the line's text, indentation dropped
	OrderScore            string // the line's score under the order, "-" past the order's reach
	Fix                   string // the line as the first verified fix on it writes it, with its effect
	MoreFixes             int    // further fixes on the line, listed under the source below
}

// functionRow is one function of the function table, placed by its best
// line.
type functionRow struct {
	Rank                 int
	Name                 string
	Declared, DeclaredAt string // file:line and its link in the page ("" when the file is not shown)
	Best, BestAt         string // the best line, the same way
	BestRank, Lines      int
	Tie                  string
	// Own is the function's place by its own spectrum: rank or tie range
	// and score ("-" when unknown).
	Own string
}

type fileView struct {
	Path, Anchor, Package string
	Lines                 []sourceLine
}

type sourceLine struct {
	N     int
	ID    string
	Text  string
	Color string
	// TextColor is the text's colour on Color, with the contrast WCAG 2.1
	// AA asks.
	TextColor string
	Label     string // rank, score and tie, for ranked lines with failing evidence
	Title     string
	Fixes     []string
	// OperatorFixes are the verified operator fixes of the line, as
	// operatorFixText gives them.
	OperatorFixes []string
	Ranked        bool
}

type testView struct {
	Name, Package, Verdict string
	Sites                  []siteView
	Output                 string
	Fixes                  []fixView
}

type siteView struct{ Where, Href string }

// fixView is a verified fix as an edit of its source line: the line
// Before and After, and what the fix does (Effect).
type fixView struct {
	Where, Href, Before, After, Effect string
}

type diagnosabilityView struct {
	Diagnosability
	Advice []advice
}

func (p *pageBuilder) page() (page, error) {
	loc := p.loc
	r := loc.Ranking
	pg := page{
		Module: loc.Matrix.ModulePath, Failed: r.Failed, Passed: r.Passed, Formula: r.Formula, Order: orderPhrase(r), OrderScore: orderScoreHeader(r),
		Angelic:  loc.Angelic,
		Mutation: loc.Mutation,
		Sunburst: template.HTML(p.sunburst()), // built from escaped parts
	}
	if !p.opts.Generated.IsZero() {
		pg.Generated = p.opts.Generated.Format("2006-01-02 15:04 MST")
	}
	if r.Failed > 0 {
		for level := levels; level >= levelOfRank(p.lastFailing); level-- {
			label := levelLabel(level)
			if level == levels {
				label += ": most suspicious"
			}
			pg.Legend = append(pg.Legend, legendEntry{levelColor(level), label})
		}
		pg.Legend = append(pg.Legend, legendEntry{levelColor(levelPassing), "executed by passing tests only"})
	} else {
		pg.Legend = append(pg.Legend, legendEntry{levelColor(levelPassing), "executed by tests"})
	}
	pg.Legend = append(pg.Legend, legendEntry{levelColor(levelNone), "executed by no test"})
	if r.Failed > 0 {
		for i, l := range r.Lines {
			if i == p.opts.Lines {
				pg.More = len(r.Lines) - i
				break
			}
			anchor := ""
			if p.fileAnchor[l.File] != "" {
				anchor = lineID(p.fileAnchor[l.File], l.Line)
			}
			sw := levelSwatch(p.level(l.File, l.Line))
			src := p.sources.File(l.File)
			row := rankedRow{Rank: l.Rank, Score: fmt.Sprintf("%.4f", l.Score), File: l.File, Anchor: anchor, Line: l.Line,
				EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP, Fixes: l.Fixes, Tie: export.TieText(l.Tie), Color: sw.bg, TextColor: sw.fg,
				Function: src.Func(l.Line), Source: strings.TrimSpace(string(src.Line(l.Line))), OrderScore: "-"}
			if l.OrderScore != nil {
				row.OrderScore = fmt.Sprintf("%.4f", *l.OrderScore)
			}
			if fixes := p.loc.FixesAt(l.File, l.Line); len(fixes) > 0 {
				edit := p.edit(fixes[0])
				row.Fix = strings.TrimSpace(edit.After) + "  " + analysis.Effect(fixes[0].Test, fixes[0].Avoids)
				row.MoreFixes = len(fixes) - 1
			}
			if ops := p.loc.OperatorFixesAt(l.File, l.Line); len(ops) > 0 && row.Fix == "" {
				row.Fix = operatorFixText(ops[0])
				row.MoreFixes = len(ops) - 1
			}
			pg.Ranked = append(pg.Ranked, row)
		}
	}
	if r.Failed > 0 {
		var err error
		if pg.Functions, pg.MoreFunctions, pg.OwnFormula, err = p.functionRows(); err != nil {
			return page{}, err
		}
		pg.FunctionsByModel = localize.FunctionModelOf(r).FunctionModel != nil
	}
	for _, f := range p.shown {
		pg.Files = append(pg.Files, p.fileView(f))
	}
	for _, t := range loc.Failing() {
		pg.Failing = append(pg.Failing, p.testView(t))
	}
	pg.Diagnosability = p.diagnosability()
	for pkg, msg := range loc.Matrix.BuildErrors {
		pg.BuildErrors = append(pg.BuildErrors, pkg+": "+msg)
	}
	sort.Strings(pg.BuildErrors)
	return pg, nil
}

// orderScoreHeader names the column of the order's own score, which
// falls as the rank grows; the formula's score keeps its own column.
func orderScoreHeader(r *localize.Ranking) string {
	switch r.Order {
	case localize.OrderCombined:
		return "combined score"
	case localize.OrderLearned:
		return "learned score"
	}
	return ""
}

// orderPhrase says how the ranking orders its lines, to follow "lines
// ranked by".
func orderPhrase(r *localize.Ranking) string {
	switch r.Order {
	case localize.OrderCombined:
		return "verified angelic fixes, then " + r.Formula
	case localize.OrderLearned:
		model := ""
		if r.Model != "" {
			model = " (model " + r.Model + ")"
		}
		return "the learned order" + model + " over every technique's evidence"
	}
	return r.Formula
}

func lineID(anchor string, line int) string { return fmt.Sprintf("%s-L%d", anchor, line) }

func (p *pageBuilder) fileView(file string) fileView {
	anchor := p.fileAnchor[file]
	v := fileView{Path: file, Anchor: anchor, Package: p.importPath(path.Dir(file))}
	src := p.sources.File(file)
	for i, text := range src.Lines {
		n := i + 1
		sl := sourceLine{N: n, ID: lineID(anchor, n), Text: strings.ReplaceAll(string(text), "\t", "    ")}
		if r, ok := p.rankOf[lineKey{file, n}]; ok {
			sl.Ranked = true
			sw := levelSwatch(p.level(file, n))
			sl.Color, sl.TextColor = sw.bg, sw.fg
			sl.Title = fmt.Sprintf("rank %d, score %.4f; executed by %d of %d failing and %d of %d passing tests",
				r.Rank, r.Score, r.EF, r.EF+r.NF, r.EP, r.EP+r.NP)
			if r.EF > 0 {
				sl.Label = fmt.Sprintf("#%d %.3f", r.Rank, r.Score)
				if r.Tie[0] != r.Tie[1] {
					sl.Label += fmt.Sprintf(" (ties %d-%d)", r.Tie[0], r.Tie[1])
				}
			}
		}
		for _, f := range p.loc.FixesAt(file, n) {
			edit := p.edit(f)
			sl.Fixes = append(sl.Fixes, fmt.Sprintf("%s  →  %s  %s", edit.Before, edit.After, analysis.Effect(f.Test, f.Avoids)))
		}
		for _, f := range p.loc.OperatorFixesAt(file, n) {
			sl.OperatorFixes = append(sl.OperatorFixes, operatorFixText(f))
		}
		v.Lines = append(v.Lines, sl)
	}
	return v
}

// outputLines bounds the test output quoted per failing test.
const outputLines = 12

func (p *pageBuilder) testView(t spectra.TestRun) testView {
	v := testView{Name: t.Name, Package: t.Package, Verdict: string(t.Verdict)}
	for _, s := range t.FailSites {
		v.Sites = append(v.Sites, siteView{Where: fmt.Sprintf("%s:%d", s.File, s.Line), Href: p.href(s.File, s.Line)})
	}
	out := strings.Split(strings.TrimRight(t.Output, "\n"), "\n")
	if len(out) > outputLines {
		out = append(out[:outputLines], fmt.Sprintf("… %d more lines", len(out)-outputLines))
	}
	v.Output = strings.Join(out, "\n")
	if a := p.loc.Angelic; a != nil {
		for _, f := range a.Fixes {
			if f.Test == t.Name && f.Package == t.Package {
				edit := p.edit(f)
				v.Fixes = append(v.Fixes, fixView{Where: fmt.Sprintf("%s:%d", f.File, f.Line), Href: p.href(f.File, f.Line),
					Before: edit.Before, After: edit.After, Effect: analysis.Effect(f.Test, f.Avoids)})
			}
		}
	}
	return v
}

// operatorFixText is a verified operator fix as the line it writes and
// what it does: "return a / b  (* → /) makes 2 failing tests pass", or
// for a removed statement "(the statement removed) makes ...".
func operatorFixText(f localize.OperatorFix) string {
	edited := f.Edited + "  (" + f.Change + ")"
	if f.Removes() {
		edited = "(the statement removed)"
	}
	return edited + " makes " + f.FailingThatRun("it") + " pass, verified by the mutant's test runs"
}

// edit is a fix as an edit of its source line.
func (p *pageBuilder) edit(f localize.Fix) analysis.LineEdit {
	return analysis.Edits([]analysis.Location{f.Location}, p.sources.Lines)[0]
}

// functionRows ranks the functions of the page's ranking by their best
// lines, down to the table's length, and counts the rest; formula names
// the formula of the functions' own spectra.
func (p *pageBuilder) functionRows() (rows []functionRow, more int, formula string, err error) {
	fns, err := p.loc.Functions(localize.FunctionsIn(p.sources))
	if err != nil {
		return nil, 0, "", fmt.Errorf("ranking functions: %w", err)
	}
	if len(fns) > p.opts.Functions {
		fns, more = fns[:p.opts.Functions], len(fns)-p.opts.Functions
	}
	for _, f := range fns {
		row := functionRow{Rank: f.Rank, Name: f.Label(), Declared: f.File, BestRank: f.BestRank, Lines: f.Lines,
			Best: fmt.Sprintf("%s:%d", f.File, f.BestLine), BestAt: p.href(f.File, f.BestLine), Tie: "-"}
		if f.Name != "" {
			row.Declared, row.DeclaredAt = fmt.Sprintf("%s:%d", f.File, f.Line), p.href(f.File, f.Line)
		}
		if f.Tie[0] != f.Tie[1] {
			row.Tie = fmt.Sprintf("ranks %d-%d", f.Tie[0], f.Tie[1])
		}
		row.Own = "-"
		if s := f.Spectrum; s != nil {
			own := fmt.Sprint(s.Rank)
			if s.Tie[0] != s.Tie[1] {
				own = fmt.Sprintf("%d-%d", s.Tie[0], s.Tie[1])
			}
			row.Own, formula = fmt.Sprintf("%s (%.4f)", own, s.Score), s.Formula
		}
		rows = append(rows, row)
	}
	return rows, more, formula, nil
}

// href links a line to its place in the page, when its file is shown.
func (p *pageBuilder) href(file string, line int) string {
	if a := p.fileAnchor[file]; a != "" {
		return "#" + lineID(a, line)
	}
	return ""
}
