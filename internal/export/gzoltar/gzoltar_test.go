package gzoltar

import (
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/export/exporttest"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
)

// names are test names that break naive readers of the format: commas,
// quotes, spaces, every kind of line break, non-ASCII, the escape
// character and a name that reads like another one's escape.
var names = []string{
	`TestParse/1,50_EUR`,
	`TestParse/"quoted",_'single'`,
	"TestParse/with spaces\tand a tab",
	"TestParse/line\nbreak\r\nand\rreturn",
	"TestParse/prix_réduit_€_日本",
	"TestParse/100%",
	"TestParse/1%2C50",
	"TestParse/sep\u2028arator\u0085",
	"TestParse/not_UTF-8_\xff\xfe",
	"TestParse/$#:()",
}

// hardNames gives the counted tests of the export fixture the names
// above, in order, adding passing tests for the names left over.
func hardNames(t *testing.T) *localize.Localization {
	loc := exporttest.Module(t)
	m := loc.Matrix
	i := 0
	for ti := range m.Tests {
		if m.Tests[ti].Verdict.Counted() && i < len(names) {
			m.Tests[ti].Name = names[i]
			i++
		}
	}
	for ; i < len(names); i++ {
		m.Tests = append(m.Tests, spectra.TestRun{Package: m.Tests[0].Package, Name: names[i], Verdict: spectra.Pass, Hits: spectra.NewHits(0, 2, 4)})
	}
	return loc
}

// Both readers of GZoltar's format read the triple, whatever the test
// names hold, and percent-decoding their names gives the tests back.
func TestReadersOfTheFormatReadEveryName(t *testing.T) {
	loc := hardNames(t)
	dir := t.TempDir()
	if err := Write(dir, loc); err != nil {
		t.Fatal(err)
	}
	var want []readTest
	for _, tr := range loc.Matrix.Tests {
		if tr.Verdict.Counted() {
			want = append(want, readTest{tr.Package + "#" + tr.Name, tr.Verdict.Failing()})
		}
	}
	for _, reader := range []struct {
		name string
		read func(string) (*triple, error)
	}{{"flitsr", readFlitsr}, {"gzoltar", readGZoltar}} {
		got, err := reader.read(dir)
		if err != nil {
			t.Errorf("%s: %v", reader.name, err)
			continue
		}
		if len(got.tests) != len(want) || len(got.matrix) != len(want) || len(got.elements) != len(loc.Ranking.Lines) {
			t.Errorf("%s: %d tests, %d matrix rows and %d elements, want %d, %d and %d",
				reader.name, len(got.tests), len(got.matrix), len(got.elements), len(want), len(want), len(loc.Ranking.Lines))
			continue
		}
		for i, tr := range got.tests {
			name, err := url.PathUnescape(tr.name)
			if err != nil || name != want[i].name || tr.failing != want[i].failing {
				t.Errorf("%s: test %d reads as %q (failing %v), decoded %q (%v), want %q (failing %v)",
					reader.name, i, tr.name, tr.failing, name, err, want[i].name, want[i].failing)
			}
			if row := got.matrix[i]; len(row) != len(got.elements)+1 || row[len(row)-1] != want[i].failing {
				t.Errorf("%s: matrix row %d is %v", reader.name, i, row)
			}
		}
	}
}

// Escaping is one-to-one and leaves a name holding none of the bytes the
// format splits on.
func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com/m#TestX/a_b", "example.com/m#TestX/a_b"},
		{"p#T/1,50", "p#T/1%2C50"},
		{"p#T/1%2C50", "p#T/1%252C50"},
		{`p#T/"q"`, "p#T/%22q%22"},
		{"p#T/a\r\nb", "p#T/a%0D%0Ab"},
		{"p#T/a\u2028b", "p#T/a%E2%80%A8b"},
		{"p#T/ é €", "p#T/ é €"},
		{"p#T/\x85\u0085", "p#T/%85%C2%85"},
	} {
		got := escape(tc.in, fieldSeparators)
		back, err := url.PathUnescape(got)
		if got != tc.want || err != nil || back != tc.in {
			t.Errorf("escape(%q) = %q, decoded %q (%v); want %q", tc.in, got, back, err, tc.want)
		}
	}
}

// A reader that follows the format gets the test names back and computes
// the Ochiai scores that the ranking holds.
func TestReaderComputesTheSameScores(t *testing.T) {
	loc := exporttest.Module(t)
	dir := filepath.Join(t.TempDir(), "gzoltar")
	if err := Write(dir, loc); err != nil {
		t.Fatal(err)
	}
	tests, _, _, err := readFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tests, "name,outcome,runtime,stacktrace\n") {
		t.Fatalf("tests.csv starts %q", tests[:min(len(tests), 40)])
	}
	got, err := readFlitsr(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.tests) != len(exporttest.TestNames) {
		t.Fatalf("%d tests, want the %d counted ones", len(got.tests), len(exporttest.TestNames))
	}
	for i, row := range got.tests {
		if want := "example.com/shop/price#" + exporttest.TestNames[i]; row.name != escape(want, fieldSeparators) {
			t.Errorf("test %d is %q, want %q escaped", i, row.name, want)
		}
	}
	if rows := textLines(tests); rows[1] != `example.com/shop/price#TestTotal/at_100%2C_discounted,FAIL,3000000,fail at price/price_test.go:21` ||
		!strings.HasSuffix(rows[2], ",FAIL,1000000,panic") || !strings.HasSuffix(rows[3], ",PASS,1000000,") {
		t.Errorf("rows %q", rows[1:4])
	}
	if len(got.elements) != len(loc.Ranking.Lines) {
		t.Fatalf("%d elements, want the %d executed lines", len(got.elements), len(loc.Ranking.Lines))
	}
	scores := map[int]float64{}
	for _, l := range loc.Ranking.Lines {
		scores[l.Line] = l.Score
	}
	for j, e := range got.elements {
		m := flitsrElement.FindStringSubmatch(e)
		if m[1] != "example.com/shop/price" || m[2] != "price.go" || m[3] != "Total()" {
			t.Fatalf("element %q", e)
		}
		line, _ := strconv.Atoi(m[4])
		var ef, ep, nf, np float64
		for _, row := range got.matrix {
			failed := row[len(row)-1]
			switch {
			case row[j] && failed:
				ef++
			case row[j]:
				ep++
			case failed:
				nf++
			default:
				np++
			}
		}
		ochiai := 0.0
		if ef > 0 {
			ochiai = ef / math.Sqrt((ef+nf)*(ef+ep))
		}
		if math.Abs(ochiai-scores[line]) > 1e-12 {
			t.Errorf("line %d: Ochiai from the files %v, ranking %v", line, ochiai, scores[line])
		}
	}
}

func TestElementNames(t *testing.T) {
	for _, tc := range []struct {
		pkg, file, fn string
		want          string
	}{
		{"example.com/m", "a.go", "F", "example.com/m$a.go#F():3"},
		{"example.com/m/sub", "sub/b.go", "T.M", "example.com/m/sub$b.go#T.M():3"},
		{"example.com/m", "a.go", "", "example.com/m$a.go#init():3"},
		{"example.com/m", "we$ird#na:me.go", "F.func1", "example.com/m$we%24ird%23na%3Ame.go#F.func1():3"},
	} {
		if got := ElementName(tc.pkg, tc.file, tc.fn, 3); got != tc.want {
			t.Errorf("ElementName(%q, %q, %q) = %q, want %q", tc.pkg, tc.file, tc.fn, got, tc.want)
		}
	}
}

// A directory that cannot be made gets an error and no file at all.
func TestUnwritableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(file, "out"), exporttest.Module(t)); err == nil {
		t.Fatal("no error writing below a regular file")
	}
}

// An existing triple is replaced as a whole.
func TestRewriteReplacesFiles(t *testing.T) {
	loc := exporttest.Module(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, MatrixFile), []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, loc); err != nil {
		t.Fatal(err)
	}
	_, _, matrix, err := readFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rows := textLines(matrix); len(rows) != 5 || rows[0] == "stale" {
		t.Errorf("matrix %q", rows)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left: %v", entries)
	}
}
