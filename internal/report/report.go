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
	"strings"
	"time"

	"faultline/analysis"
	"faultline/internal/export"
	"faultline/internal/localize"
	"faultline/spectra"
)

// Options shape the page.
type Options struct {
	Files int // suspicious files whose source is shown (default 5)
	Lines int // ranked lines in the table (default 20)
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
	p := newPageBuilder(loc, opts)
	if err := tmpl.Execute(w, p.page()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

type lineKey struct {
	file string
	line int
}

// Colour levels: levelNone for a line no test executes, levelPassing for
// one only passing tests execute, 1..levels by score.
const (
	levelNone    = -1
	levelPassing = 0
	levels       = 10
)

var palette = [levels + 1]string{"#dde6ee", "#fff7bc", "#fee391", "#fec44f", "#fea030", "#fb8a22", "#f06a17", "#e0531b", "#cc3c12", "#b02a10", "#8c1208"}

func levelColor(level int) string {
	if level < 0 {
		return "#f2f2f2"
	}
	return palette[level]
}

type pageBuilder struct {
	loc        *localize.Localization
	opts       Options
	sources    *export.Sources
	lines      []spectra.Line // every executable line, code order
	rankOf     map[lineKey]*spectra.RankedLine
	minScore   float64
	maxScore   float64
	fileAnchor map[string]string // files shown in full, by path
	shown      []string          // those files, most suspicious first
}

func newPageBuilder(loc *localize.Localization, opts Options) *pageBuilder {
	p := &pageBuilder{loc: loc, opts: opts, sources: export.NewSources(loc.Matrix.Root),
		lines: loc.Matrix.Lines(), rankOf: map[lineKey]*spectra.RankedLine{}, fileAnchor: map[string]string{}}
	first := true
	for i := range loc.Ranking.Lines {
		l := &loc.Ranking.Lines[i]
		p.rankOf[lineKey{l.File, l.Line}] = l
		if l.EF > 0 && !math.IsInf(l.Score, 0) && !math.IsNaN(l.Score) {
			if first || l.Score < p.minScore {
				p.minScore = l.Score
			}
			if first || l.Score > p.maxScore {
				p.maxScore = l.Score
			}
			first = false
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

// level is the colour level of a line: its score's place between the
// lowest and highest score of the lines failing tests execute.
func (p *pageBuilder) level(file string, line int) int {
	r, ok := p.rankOf[lineKey{file, line}]
	switch {
	case !ok:
		return levelNone
	case r.EF == 0 || p.loc.Ranking.Failed == 0:
		return levelPassing
	case p.maxScore <= p.minScore:
		return levels
	}
	s := math.Max(p.minScore, math.Min(p.maxScore, r.Score))
	return 1 + int(math.Round(float64(levels-1)*(s-p.minScore)/(p.maxScore-p.minScore)))
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
	Combined       bool
	Angelic        *localize.Angelic
	Sunburst       template.HTML
	Legend         []legendEntry
	Ranked         []rankedRow
	More           int // ranked lines not in the table
	Files          []fileView
	Failing        []testView
	Diagnosability diagnosabilityView
	BuildErrors    []string
}

type legendEntry struct{ Color, Label string }

type rankedRow struct {
	Rank                  int
	Score                 string
	File, Anchor          string
	Line                  int
	EF, EP, NF, NP, Fixes int
	Tie, Color, Function  string
}

type fileView struct {
	Path, Anchor, Package string
	Lines                 []sourceLine
}

type sourceLine struct {
	N      int
	ID     string
	Text   string
	Color  string
	Label  string // rank, score and tie, for ranked lines with failing evidence
	Title  string
	Fixes  []string
	Ranked bool
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

func (p *pageBuilder) page() page {
	loc := p.loc
	r := loc.Ranking
	pg := page{
		Module: loc.Matrix.ModulePath, Failed: r.Failed, Passed: r.Passed, Formula: r.Formula,
		Combined: r.Order == spectra.OrderCombined, Angelic: loc.Angelic,
		Sunburst: template.HTML(p.sunburst()), // built from escaped parts
	}
	if !p.opts.Generated.IsZero() {
		pg.Generated = p.opts.Generated.Format("2006-01-02 15:04 MST")
	}
	if r.Failed > 0 {
		pg.Legend = append(pg.Legend, legendEntry{levelColor(levels), fmt.Sprintf("most suspicious (score %.3g)", p.maxScore)})
		pg.Legend = append(pg.Legend, legendEntry{levelColor(1), fmt.Sprintf("least suspicious of the failing tests' lines (%.3g)", p.minScore)})
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
			pg.Ranked = append(pg.Ranked, rankedRow{Rank: l.Rank, Score: fmt.Sprintf("%.4f", l.Score), File: l.File, Anchor: anchor, Line: l.Line,
				EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP, Fixes: l.Fixes, Tie: export.TieText(l), Color: levelColor(p.level(l.File, l.Line)),
				Function: p.sources.File(l.File).Func(l.Line)})
		}
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
	return pg
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
			sl.Color = levelColor(p.level(file, n))
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

// edit is a fix as an edit of its source line.
func (p *pageBuilder) edit(f localize.Fix) analysis.LineEdit {
	return analysis.Edits([]analysis.Location{f.Location}, p.sources.Lines)[0]
}

// href links a line to its place in the page, when its file is shown.
func (p *pageBuilder) href(file string, line int) string {
	if a := p.fileAnchor[file]; a != "" {
		return "#" + lineID(a, line)
	}
	return ""
}
