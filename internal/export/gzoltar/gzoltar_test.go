package gzoltar

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"faultline/internal/export/exporttest"
)

// readTriple reads the three files as the published format describes
// them, with a CSV reader for the two CSV files.
func readTriple(t *testing.T, dir string) (tests, elements [][]string, matrix [][]string) {
	t.Helper()
	readCSV := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return rows
	}
	tests, elements = readCSV(TestsFile), readCSV(SpectraFile)
	data, err := os.ReadFile(filepath.Join(dir, MatrixFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		matrix = append(matrix, strings.Fields(line))
	}
	return tests, elements, matrix
}

// A reader that follows the format gets the test names back and computes
// the Ochiai scores that the ranking holds.
func TestReaderComputesTheSameScores(t *testing.T) {
	loc := exporttest.Module(t)
	dir := filepath.Join(t.TempDir(), "gzoltar")
	if err := Write(dir, loc); err != nil {
		t.Fatal(err)
	}
	tests, elements, matrix := readTriple(t, dir)
	if strings.Join(tests[0], ",") != "name,outcome,runtime,stacktrace" || len(elements[0]) != 1 || elements[0][0] != "name" {
		t.Fatalf("headers %q %q", tests[0], elements[0])
	}
	tests, elements = tests[1:], elements[1:]
	if len(tests) != len(exporttest.TestNames) {
		t.Fatalf("%d tests, want the %d counted ones", len(tests), len(exporttest.TestNames))
	}
	for i, row := range tests {
		if want := "example.com/shop/price#" + exporttest.TestNames[i]; row[0] != want {
			t.Errorf("test %d is %q, want %q", i, row[0], want)
		}
	}
	if tests[0][1] != "FAIL" || tests[1][1] != "FAIL" || tests[2][1] != "PASS" || tests[0][2] != "3000000" || tests[0][3] != "fail at price/price_test.go:21" {
		t.Errorf("rows %q", tests[:3])
	}
	if len(elements) != len(loc.Ranking.Lines) {
		t.Fatalf("%d elements, want the %d executed lines", len(elements), len(loc.Ranking.Lines))
	}
	// GZoltar's element name, as flitsr parses it.
	name := regexp.MustCompile(`^([^$]+)\$([^#]+)#([^:]+):([0-9]+)$`)
	scores := map[int]float64{}
	for _, l := range loc.Ranking.Lines {
		scores[l.Line] = l.Score
	}
	if len(matrix) != len(tests) {
		t.Fatalf("%d matrix rows for %d tests", len(matrix), len(tests))
	}
	for j, e := range elements {
		m := name.FindStringSubmatch(e[0])
		if m == nil || m[1] != "example.com/shop/price" || m[2] != "price.go" || m[3] != "Total()" {
			t.Fatalf("element %q", e[0])
		}
		line, _ := strconv.Atoi(m[4])
		var ef, ep, nf, np float64
		for i, row := range matrix {
			if len(row) != len(elements)+1 {
				t.Fatalf("row %d has %d fields, want %d", i, len(row), len(elements)+1)
			}
			failed := row[len(row)-1] == "-"
			switch {
			case row[j] == "1" && failed:
				ef++
			case row[j] == "1":
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
	_, _, matrix := readTriple(t, dir)
	if len(matrix) != 5 || matrix[0][0] == "stale" {
		t.Errorf("matrix %q", matrix)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left: %v", entries)
	}
}
