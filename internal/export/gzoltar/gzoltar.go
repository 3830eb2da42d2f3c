// Package gzoltar writes a localization's spectra in GZoltar's text format,
// the CSV triple that tools built on GZoltar's output read (its report,
// flitsr, research scripts):
//
//   - tests.csv: "name,outcome,runtime,stacktrace", one row per counted
//     test: "import/path#TestName/sub", PASS or FAIL, the run time in
//     nanoseconds, and where a failing test reported its failure;
//   - spectra.csv: "name", one row per executed line in code order, named
//     "import/path$file.go#Function():line" (GZoltar's package$unit#method
//     with the file as the unit, since a Go package's lines are only
//     unique within a file);
//   - matrix.txt: one row per test in tests.csv order, a 0 or 1 per line of
//     spectra.csv (executed or not), then "+" for a pass or "-" for a
//     failure, separated by spaces.
//
// GZoltar's readers split these files without any quoting: a line is a
// row (a line break of any kind ends it), tests.csv's fields are split at
// every comma, and an element name at its first "$", "#" and ":". So names
// are escaped, not quoted: a byte that would split them (and "%", the
// escape itself) is written as "%" and two hex digits, as in URLs, which
// keeps distinct names distinct and is undone by percent-decoding. In a
// test name, and in the where of its failure, that is the comma, the
// double quote (kept out for plain CSV readers), "%" and every control or
// line-separating character, and any byte that is not UTF-8 (Python
// reads the files as UTF-8); in an element name, also "$", "#", ":", "("
// and ")".
package gzoltar

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
)

// File names of the triple.
const (
	TestsFile   = "tests.csv"
	SpectraFile = "spectra.csv"
	MatrixFile  = "matrix.txt"
)

// Files returns the writers of the three files of a localization.
func Files(loc *localize.Localization) map[string]func(io.Writer) error {
	s := newSpectrum(loc)
	return map[string]func(io.Writer) error{
		TestsFile:   s.writeTests,
		SpectraFile: s.writeElements,
		MatrixFile:  s.writeMatrix,
	}
}

// Write writes the three files into dir, all of them or none.
func Write(dir string, loc *localize.Localization) error {
	return export.WriteFiles(dir, Files(loc))
}

// spectrum is the matrix restricted to counted tests and executed lines.
type spectrum struct {
	loc      *localize.Localization
	lines    []spectra.Line // every executable line, code order
	element  []int          // index into elements of each line, -1 when never executed
	elements []int          // the executed lines, indices into lines
	tests    []int          // counted tests, indices into Matrix.Tests
}

func newSpectrum(loc *localize.Localization) *spectrum {
	m := loc.Matrix
	s := &spectrum{loc: loc, lines: m.Lines()}
	executed := make([]bool, len(s.lines))
	for _, run := range m.LineRuns(s.lines) {
		for _, li := range run.Hits {
			executed[li] = true
		}
	}
	s.element = make([]int, len(s.lines))
	for i := range s.lines {
		s.element[i] = -1
		if executed[i] {
			s.element[i] = len(s.elements)
			s.elements = append(s.elements, i)
		}
	}
	for ti, t := range m.Tests {
		if t.Verdict.Counted() {
			s.tests = append(s.tests, ti)
		}
	}
	return s
}

// packagePath is the import path of the package holding a module file.
func (s *spectrum) packagePath(file string) string {
	dir := path.Dir(file)
	if dir == "." {
		return s.loc.Matrix.ModulePath
	}
	return s.loc.Matrix.ModulePath + "/" + dir
}

// ElementName is GZoltar's name of a line: package$unit#function():line.
func ElementName(pkg, file, function string, line int) string {
	if function == "" {
		function = "init" // outside any function: package initialization
	}
	return escape(pkg, elementSeparators) + "$" + escape(path.Base(file), elementSeparators) + "#" +
		escape(function, elementSeparators) + "():" + strconv.Itoa(line)
}

// Bytes escaped in a field of tests.csv, and in a part of an element name.
// Import paths and Go identifiers hold none of them; test names, file
// names and failure messages may.
const (
	fieldSeparators   = `,"%`
	elementSeparators = `,"%$#:()`
)

// escape writes each byte of special, each control character, each
// Unicode line or paragraph separator and each byte that is not UTF-8 of
// s as "%" and two hex digits (a character's every byte).
func escape(s, special string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r < utf8.RuneSelf && strings.IndexByte(special, byte(r)) >= 0, unicode.IsControl(r), r == '\u2028', r == '\u2029',
			r == utf8.RuneError && n == 1:
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// TestName is GZoltar's name of a test: the package, "#", the test's name,
// escaped for tests.csv.
func TestName(t spectra.TestRun) string { return escape(t.Package+"#"+t.Name, fieldSeparators) }

func (s *spectrum) writeTests(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("name,outcome,runtime,stacktrace\n")
	for _, ti := range s.tests {
		t := s.loc.Matrix.Tests[ti]
		outcome, trace := "PASS", ""
		if t.Verdict.Failing() {
			outcome = "FAIL"
			var sites []string
			for _, site := range t.FailSites {
				sites = append(sites, fmt.Sprintf("%s:%d", site.File, site.Line))
			}
			trace = string(t.Verdict)
			if len(sites) > 0 {
				trace += " at " + strings.Join(sites, " ")
			}
		}
		fmt.Fprintf(bw, "%s,%s,%d,%s\n", TestName(t), outcome, t.Elapsed.Nanoseconds(), escape(trace, fieldSeparators))
	}
	return bw.Flush()
}

func (s *spectrum) writeElements(w io.Writer) error {
	sources := s.loc.Sources()
	bw := bufio.NewWriter(w)
	bw.WriteString("name\n")
	for _, li := range s.elements {
		l := s.lines[li]
		bw.WriteString(ElementName(s.packagePath(l.File), l.File, sources.File(l.File).Func(l.Line), l.Line) + "\n")
	}
	return bw.Flush()
}

func (s *spectrum) writeMatrix(w io.Writer) error {
	m := s.loc.Matrix
	runs := m.LineRuns(s.lines) // the counted tests, in s.tests order
	row := make([]byte, 2*len(s.elements)+2)
	for i, run := range runs {
		for j := 0; j < len(s.elements); j++ {
			row[2*j], row[2*j+1] = '0', ' '
		}
		for _, li := range run.Hits {
			if e := s.element[li]; e >= 0 {
				row[2*e] = '1'
			}
		}
		row[len(row)-2] = '+'
		if m.Tests[s.tests[i]].Verdict.Failing() {
			row[len(row)-2] = '-'
		}
		row[len(row)-1] = '\n'
		if _, err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}
