package report

import (
	"bytes"
	"html"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/export/exporttest"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
)

func render(t *testing.T, mutate func(*testing.T, *pageInput)) string {
	t.Helper()
	in := &pageInput{loc: exporttest.Module(t)}
	if mutate != nil {
		mutate(t, in)
	}
	var buf bytes.Buffer
	if err := Write(&buf, in.loc, Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

type pageInput struct{ loc *localize.Localization }

// The page names nothing outside itself: every link is a fragment, there
// is no script, and the content security policy forbids every request.
func TestPageIsSelfContained(t *testing.T) {
	page := render(t, nil)
	if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Error("no content security policy")
	}
	for _, banned := range []string{"<script", "url(", "@import", "<img", "<link", "<iframe"} {
		if strings.Contains(page, banned) {
			t.Errorf("page holds %q", banned)
		}
	}
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("reference %q leaves the page", m[1])
		}
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("link to #%s, which is not in the page", m[1])
		}
	}
}

func TestPageShowsTheLocalization(t *testing.T) {
	page := render(t, nil)
	text := html.UnescapeString(page)
	for _, want := range []string{
		"faultline: example.com/shop",
		"2 failing and 3 passing tests; lines ranked by verified angelic fixes, then ochiai",
		// the fault first, linked to its shaded source line
		`<a href="#file-1-L9">price/price.go:9</a>`,
		`id="file-1-L9" style="background: `,
		"#1 0.632",
		// the verified fix, under the line and under its test
		"angelic: if tötal > 100 {  →  if true {  makes TestTotal/at_100,_discounted pass",
		`<code>if tötal > 100 {</code> → <code>if true {</code> makes TestTotal/at_100,_discounted pass`,
		// test names as they are
		`<b>TestTotal/"quoted"_name</b>`,
		"reported at price/price_test.go:21",
		// diagnosability
		"Diagnosability of the test suite",
		"components here are the 5 basic blocks, tests the 5 that passed or failed",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Every line of the ranking is in the table, in order.
	last := 0
	for _, l := range exporttest.Module(t).Ranking.Lines {
		cell := "price/price.go:" + strconv.Itoa(l.Line) + "<"
		i := strings.Index(text[last:], cell)
		if i < 0 {
			t.Errorf("ranking table lacks %s in order", cell)
			continue
		}
		last += i
	}
}

// Without failing tests the page says so, and still measures the suite.
func TestPageWithoutFailures(t *testing.T) {
	page := render(t, func(t *testing.T, in *pageInput) {
		for i := range in.loc.Matrix.Tests {
			if in.loc.Matrix.Tests[i].Verdict.Failing() {
				in.loc.Matrix.Tests[i].Verdict = spectra.Pass
			}
		}
		r, err := localize.RankFormula(in.loc.Matrix, nil)
		if err != nil {
			t.Fatal(err)
		}
		in.loc.Ranking, in.loc.Angelic = r, nil
	})
	for _, want := range []string{"No failing test: nothing to localize", "Diagnosability of the test suite"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="ranking"`) || strings.Contains(page, `id="source"`) {
		t.Error("a ranking without failing tests")
	}
}

var (
	rankCell   = regexp.MustCompile(`<td class="rank" style="background: (#[0-9a-f]{6}); color: (#[0-9a-f]{6})">([0-9]+)</td>`)
	legendItem = regexp.MustCompile(`<li><span class="swatch" style="background: (#[0-9a-f]{6})"></span>([^<]*)</li>`)
)

// Under an order that is not the formula's, as the learned one, the ranks
// and colours follow the order the header names, whatever the scores: the
// first line gets the strongest colour, the legend's first, and no line
// is stronger than one ranked above it.
func TestColoursFollowTheNamedOrder(t *testing.T) {
	page := render(t, func(t *testing.T, in *pageInput) {
		learned := *in.loc.Ranking
		learned.Order, learned.Model = localize.OrderLearned, "test-model"
		learned.Lines = nil
		for i := len(in.loc.Ranking.Lines) - 1; i >= 0; i-- { // lowest score first
			l := in.loc.Ranking.Lines[i]
			l.Rank = len(learned.Lines) + 1
			l.Tie = [2]int{l.Rank, l.Rank}
			learned.Lines = append(learned.Lines, l)
		}
		if learned.Lines[0].Score >= learned.Lines[len(learned.Lines)-1].Score {
			t.Fatal("the fixture's scores do not differ")
		}
		in.loc.Ranking = &learned
	})
	text := html.UnescapeString(page)
	if !strings.Contains(text, "lines ranked by the learned order (model test-model) over every technique's evidence") {
		t.Error("the header does not name the learned order")
	}
	legend := legendItem.FindAllStringSubmatch(page, -1)
	if len(legend) < 3 || legend[0][1] != palette[levels].bg || !strings.HasPrefix(legend[0][2], "rank 1: most suspicious") {
		t.Fatalf("legend %q, want rank 1 first in %s", legend, palette[levels].bg)
	}
	levelOf := map[string]int{}
	for level, sw := range palette {
		levelOf[sw.bg] = level
	}
	labelOf := map[string]string{}
	for _, e := range legend {
		labelOf[e[1]] = e[2]
	}
	rows := rankCell.FindAllStringSubmatch(page, -1)
	if len(rows) != len(exporttest.Module(t).Ranking.Lines) {
		t.Fatalf("%d coloured rank cells", len(rows))
	}
	for i, row := range rows {
		rank, _ := strconv.Atoi(row[3])
		if rank != i+1 {
			t.Errorf("row %d shows rank %d", i, rank)
		}
		if i > 0 && levelOf[row[1]] > levelOf[rows[i-1][1]] {
			t.Errorf("rank %d is drawn stronger (%s) than rank %d (%s)", rank, row[1], i, rows[i-1][1])
		}
		if labelOf[row[1]] == "" {
			t.Errorf("rank %d's colour %s is not in the legend", rank, row[1])
		} else if want := levelLabel(levelOfRank(rank)); !strings.HasPrefix(labelOf[row[1]], want) {
			t.Errorf("rank %d is drawn in the legend's %q", rank, labelOf[row[1]])
		}
	}
	if rows[0][1] != palette[levels].bg {
		t.Errorf("rank 1 is drawn in %s, not the strongest colour %s", rows[0][1], palette[levels].bg)
	}
	// The source view shades the same line the same way.
	first := exporttest.Module(t).Ranking.Lines
	top := first[len(first)-1]
	if want := `id="file-1-L` + strconv.Itoa(top.Line) + `" style="background: ` + palette[levels].bg + `; color: ` + palette[levels].fg + `"`; !strings.Contains(page, want) {
		t.Errorf("the source view does not shade line %d as rank 1: no %s", top.Line, want)
	}
}

// Every colour a line is drawn in carries its text with the contrast
// WCAG 2.1 AA asks of normal text (4.5:1), and the levels grow darker
// with suspicion.
func TestColoursHaveReadableText(t *testing.T) {
	for level := levelNone; level <= levels; level++ {
		sw := levelSwatch(level)
		if c := contrast(sw.bg, sw.fg); c < 4.5 {
			t.Errorf("level %d: %s on %s has contrast %.2f, below 4.5", level, sw.fg, sw.bg, c)
		}
		if level > 1 && luminance(sw.bg) >= luminance(levelColor(level-1)) {
			t.Errorf("level %d (%s) is not darker than level %d", level, sw.bg, level-1)
		}
	}
	// The ratios WCAG's own examples give.
	if c := contrast("#000000", "#ffffff"); math.Abs(c-21) > 1e-9 {
		t.Errorf("black on white: %v, want 21", c)
	}
	if c := contrast("#777777", "#ffffff"); math.Abs(c-4.48) > 0.01 {
		t.Errorf("#777 on white: %v, want 4.48", c)
	}
}

// Each ranked line shows its source in the table.
func TestRankingShowsTheSource(t *testing.T) {
	text := html.UnescapeString(render(t, nil))
	for _, want := range []string{`<td class="code">if tötal > 100 {<br>`, `<td class="code">tötal -= réduction</td>`} {
		if !strings.Contains(text, want) {
			t.Errorf("ranking lacks %s", want)
		}
	}
}

// The overview's file links are not nested in an image, which would hide
// them from assistive technology, and each has a name.
func TestOverviewLinksAreReachable(t *testing.T) {
	page := render(t, nil)
	svg := page[strings.Index(page, "<svg"):strings.Index(page, "</svg>")]
	if strings.Contains(svg[:strings.Index(svg, ">")], `role="img"`) {
		t.Error("the overview holding links is an image")
	}
	links := regexp.MustCompile(`<a href="#[^"]+"( aria-label="[^"]+")?>`).FindAllStringSubmatch(svg, -1)
	if len(links) == 0 {
		t.Fatal("no file link in the overview")
	}
	for _, l := range links {
		if l[1] == "" {
			t.Errorf("overview link %s has no name", l[0])
		}
	}
}

// The page ranks the functions by their best lines beside the lines: the
// one function of the module, linked to its declaration and to its best
// line in the shown source, with every ranked line counted in it.
func TestPageRanksFunctions(t *testing.T) {
	page := html.UnescapeString(render(t, nil))
	_, section, ok := strings.Cut(page, `<section id="functions">`)
	if !ok {
		t.Fatalf("no functions section in:\n%s", page)
	}
	section, _, _ = strings.Cut(section, "</section>")
	row := `<tr><td class="rank">1</td><th scope="row">Total</th><td><a href="#file-1-L4">price/price.go:4</a></td><td><a href="#file-1-L9">price/price.go:9</a></td><td>1</td><td>6</td><td>-</td><td>1 (`
	if !strings.Contains(section, row) {
		t.Errorf("no row %s in:\n%s", row, section)
	}
	if strings.Count(section, "<tr>") != 2 || strings.Count(section, `<th scope="col"`) != 8 {
		t.Errorf("want a header row of 8 column headers and one function:\n%s", section)
	}
	if !strings.Contains(section, "<caption>") || !strings.Contains(section, "by ochiai over the tests that run any of their lines</caption>") {
		t.Errorf("no caption naming the own spectrum's formula:\n%s", section)
	}
	if !strings.Contains(page, `<a href="#functions">Functions</a>`) {
		t.Error("no link to the functions section")
	}
	if !strings.Contains(section, "each placed by its best line") {
		t.Errorf("under the formula the caption does not say each function is placed by its best line:\n%s", section)
	}
	learned := html.UnescapeString(render(t, func(t *testing.T, in *pageInput) {
		r := *in.loc.Ranking
		r.Order, r.Model = localize.OrderLearned, localize.ShippedModel().Name
		in.loc.Ranking = &r
	}))
	if !strings.Contains(learned, "Suspicious functions, ordered by the learned model over their lines' evidence") {
		t.Error("under the shipped model's learned order the caption does not say the model orders the functions")
	}
}

// Under an order that is not the formula, the ranking table gives the
// order's own score, which falls as the rank grows, beside the formula's;
// a line hosting a verified fix shows it inline, as its source rewritten.
func TestRankingShowsTheOrdersScoreAndTheFix(t *testing.T) {
	page := render(t, func(t *testing.T, in *pageInput) {
		learned := *in.loc.Ranking
		learned.Order = localize.OrderLearned
		learned.Lines = append([]localize.RankedLine(nil), in.loc.Ranking.Lines...)
		for i := range learned.Lines {
			score := float64(len(learned.Lines) - i)
			learned.Lines[i].OrderScore = &score
		}
		in.loc.Ranking = &learned
	})
	text := html.UnescapeString(page)
	if !strings.Contains(text, "<th title=\"the line's score under the order the ranks follow\">learned score</th>") {
		t.Error("the table has no column for the learned order's score")
	}
	rows := regexp.MustCompile(`<td class="rank"[^>]*>(\d+)</td><td>([0-9.]+)</td><td>([0-9.]+)</td>`).FindAllStringSubmatch(page, -1)
	if len(rows) < 2 {
		t.Fatalf("%d rows with two scores", len(rows))
	}
	for i := 1; i < len(rows); i++ {
		prev, _ := strconv.ParseFloat(rows[i-1][2], 64)
		cur, _ := strconv.ParseFloat(rows[i][2], 64)
		if cur > prev {
			t.Errorf("rank %s scores %v, above rank %s's %v", rows[i][1], cur, rows[i-1][1], prev)
		}
	}
	if want := `<td class="code">if tötal > 100 {<br><span class="fix">→ if true {  makes TestTotal/at_100,_discounted pass</span></td>`; !strings.Contains(text, want) {
		t.Errorf("the fixed line does not show its fix inline: no %s", want)
	}
}

// Ranked lines outside every declared function (a placed package-level
// declaration) are one entry of their file in the function table, named
// for what they are and told apart by their file, the row's header.
func TestPageNamesPackageLevelDeclarations(t *testing.T) {
	page := html.UnescapeString(render(t, func(t *testing.T, in *pageInput) {
		r := *in.loc.Ranking
		n := len(r.Lines)
		r.Lines = append(slices.Clone(r.Lines), localize.RankedLine{File: "price/price.go", Line: 1, Rank: n + 1, Tie: [2]int{n + 1, n + 1}})
		in.loc.Ranking = &r
	}))
	_, section, _ := strings.Cut(page, `<section id="functions">`)
	section, _, _ = strings.Cut(section, "</section>")
	row := `<th scope="row">package-level declarations in price/price.go</th><td>price/price.go</td>`
	if !strings.Contains(section, row) {
		t.Errorf("no row %s in:\n%s", row, section)
	}
	if strings.Contains(page, "outside functions") {
		t.Error("the page still names the entry (outside functions)")
	}
}

// A verified operator fix shows in the ranking's row of a line with no
// angelic fix, under its line in the source, and in the mutation note.
func TestPageShowsOperatorFixes(t *testing.T) {
	var fixed localize.RankedLine
	page := render(t, func(t *testing.T, in *pageInput) {
		for _, l := range in.loc.Ranking.Lines {
			if l.EF > 0 && len(in.loc.FixesAt(l.File, l.Line)) == 0 {
				fixed = l
				break
			}
		}
		if fixed.File == "" {
			t.Fatal("no ranked line without an angelic fix")
		}
		in.loc.Mutation = &localize.Mutation{Generated: 12, Run: 9, Fixes: []localize.OperatorFix{
			{File: fixed.File, Line: fixed.Line, Operator: "arithmetic", Change: "* → /", Edited: "return a / b", Fixed: 2}}}
	})
	text := html.UnescapeString(page)
	fix := "return a / b  (* → /) makes the 2 failing tests that run it pass, verified by the mutant's test runs"
	for _, want := range []string{
		`<span class="fix">→ ` + fix + `</span></td>`,
		`<span class="fix">operator fix: ` + fix + `</span>`,
		"Mutation analysis: 9 of 12 mutants run, 1 verified operator fixes.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
}
