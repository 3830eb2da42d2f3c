package report

import (
	"bytes"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"faultline/internal/export/exporttest"
	"faultline/internal/localize"
	"faultline/spectra"
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
		"2 failing and 3 passing tests; lines ranked by ochiai and verified angelic fixes",
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
		r, err := spectra.RankLines(in.loc.Matrix, nil)
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
