package report

import (
	"fmt"
	"html"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
)

// The sunburst is the module's overview: packages on the inner ring, their
// files on the middle one, every executable line on the outer one, each
// arc as wide as the lines it holds and coloured by the most suspicious
// line in it, as GZoltar's sunburst view shows a project. Consecutive lines
// of a file with the same colour share one arc, which keeps the picture
// small on large modules. Titles give the details on hover. The picture
// is a group, not an image, since the files shown below are links in it,
// each named by its title.

const (
	size                 = 640
	center               = size / 2
	pkgInner, pkgOuter   = 70.0, 130.0
	fileInner, fileOuter = 134.0, 200.0
	lineInner, lineOuter = 204.0, 300.0
)

// overviewFile is one file of the sunburst, its lines in order.
type overviewFile struct {
	path   string
	anchor string // the id of its source view in the page, if shown
	lines  []spectra.Line
}

type overviewPackage struct {
	dir   string
	files []*overviewFile
	lines int
}

// sunburst returns the SVG of the module's lines.
func (p *pageBuilder) sunburst() string {
	pkgs := p.packages()
	total := 0
	for _, pk := range pkgs {
		total += pk.lines
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="sunburst" viewBox="0 0 %d %d" width="%d" height="%d" role="group" aria-label="Suspiciousness of the module's packages, files and lines">`, size, size, size, size)
	if total == 0 {
		b.WriteString(`<text x="320" y="320" text-anchor="middle">no executable lines</text></svg>`)
		return b.String()
	}
	step := 2 * math.Pi / float64(total)
	at := 0.0
	for _, pk := range pkgs {
		pkgStart := at
		pkgLevel := levelNone
		for _, f := range pk.files {
			fileStart := at
			fileLevel := levelNone
			best := 0
			for i := 0; i < len(f.lines); {
				l := f.lines[i]
				level := p.level(l.File, l.Line)
				j := i + 1
				for j < len(f.lines) && p.level(f.lines[j].File, f.lines[j].Line) == level && f.lines[j].Line == f.lines[j-1].Line+1 {
					j++
				}
				title := p.linesTitle(f.lines[i:j])
				arc(&b, at, at+float64(j-i)*step, lineInner, lineOuter, level, title)
				at += float64(j-i) * step
				fileLevel = max(fileLevel, level)
				for _, l := range f.lines[i:j] {
					if r, ok := p.rankOf[lineKey{l.File, l.Line}]; ok && (best == 0 || r.Rank < best) {
						best = r.Rank
					}
				}
				i = j
			}
			title := fmt.Sprintf("%s: %d executable lines", f.path, len(f.lines))
			if best > 0 {
				title += fmt.Sprintf(", best rank %d", best)
			}
			if f.anchor != "" {
				fmt.Fprintf(&b, `<a href="#%s" aria-label="%s">`, f.anchor, html.EscapeString(title))
			}
			arc(&b, fileStart, at, fileInner, fileOuter, fileLevel, title)
			if f.anchor != "" {
				b.WriteString(`</a>`)
			}
			pkgLevel = max(pkgLevel, fileLevel)
		}
		arc(&b, pkgStart, at, pkgInner, pkgOuter, pkgLevel, fmt.Sprintf("%s: %d files, %d executable lines", p.importPath(pk.dir), len(pk.files), pk.lines))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" class="hub">%s</text>`, center, center-6, html.EscapeString(p.loc.Matrix.ModulePath))
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" class="hub small">%d failing · %d passing</text>`, center, center+14, p.loc.Ranking.Failed, p.loc.Ranking.Passed)
	b.WriteString(`</svg>`)
	return b.String()
}

// packages groups the executable lines by package directory and file.
func (p *pageBuilder) packages() []*overviewPackage {
	byDir := map[string]*overviewPackage{}
	byFile := map[string]*overviewFile{}
	for _, l := range p.lines {
		f := byFile[l.File]
		if f == nil {
			f = &overviewFile{path: l.File, anchor: p.fileAnchor[l.File]}
			byFile[l.File] = f
			dir := path.Dir(l.File)
			pk := byDir[dir]
			if pk == nil {
				pk = &overviewPackage{dir: dir}
				byDir[dir] = pk
			}
			pk.files = append(pk.files, f)
		}
		f.lines = append(f.lines, l)
		byDir[path.Dir(l.File)].lines++
	}
	var out []*overviewPackage
	for _, pk := range byDir {
		sort.Slice(pk.files, func(i, j int) bool { return pk.files[i].path < pk.files[j].path })
		out = append(out, pk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

func (p *pageBuilder) linesTitle(lines []spectra.Line) string {
	first, last := lines[0], lines[len(lines)-1]
	where := fmt.Sprintf("%s:%d", first.File, first.Line)
	if last.Line != first.Line {
		where += fmt.Sprintf("-%d", last.Line)
	}
	var best *localize.RankedLine
	for _, l := range lines {
		if r, ok := p.rankOf[lineKey{l.File, l.Line}]; ok && (best == nil || r.Rank < best.Rank) {
			best = r
		}
	}
	switch {
	case best == nil:
		return where + ": executed by no test"
	case best.EF == 0:
		return where + ": executed by passing tests only"
	}
	return fmt.Sprintf("%s: rank %d, score %.4f, %d of %d failing tests", where, best.Rank, best.Score, best.EF, best.EF+best.NF)
}

// arc writes one annulus segment from angle a0 to a1 (radians, clockwise
// from 12 o'clock) between radii r0 and r1.
func arc(b *strings.Builder, a0, a1, r0, r1 float64, level int, title string) {
	if a1-a0 >= 2*math.Pi-1e-9 { // a full ring cannot be one SVG arc
		mid := a0 + math.Pi
		b.WriteString(`<g>`)
		arc(b, a0, mid, r0, r1, level, title)
		arc(b, mid, a1, r0, r1, level, title)
		b.WriteString(`</g>`)
		return
	}
	large := 0
	if a1-a0 > math.Pi {
		large = 1
	}
	pt := func(a, r float64) (float64, float64) { return center + r*math.Sin(a), center - r*math.Cos(a) }
	x0, y0 := pt(a0, r1)
	x1, y1 := pt(a1, r1)
	x2, y2 := pt(a1, r0)
	x3, y3 := pt(a0, r0)
	fmt.Fprintf(b, `<path d="M%.2f %.2fA%g %g 0 %d 1 %.2f %.2fL%.2f %.2fA%g %g 0 %d 0 %.2f %.2fZ" fill="%s"><title>%s</title></path>`,
		x0, y0, r1, r1, large, x1, y1, x2, y2, r0, r0, large, x3, y3, levelColor(level), html.EscapeString(title))
}
