package gzoltar

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The two readers below follow the parsing rules of the tools that read
// GZoltar's triple, rewritten from their behaviour (no code taken): what
// they split on, which lines they skip and what they reject. A triple that
// both read, giving back every test's name, is one those tools read.

// triple is what a reader gets from the three files.
type triple struct {
	tests    []readTest
	elements []string
	// matrix holds one row per test line of matrix.txt: whether each
	// element is executed, then whether the row's outcome is a failure.
	matrix [][]bool
}

type readTest struct {
	name    string
	failing bool
}

// textLines splits a file into lines as Python's text files (universal
// newlines) and Java's BufferedReader.readLine do: "\n", "\r" and "\r\n"
// each end a line, and a last line without an end still counts.
func textLines(data string) []string {
	var lines []string
	for len(data) > 0 {
		i := strings.IndexAny(data, "\r\n")
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i])
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return lines
}

// pythonRstrip is str.rstrip() without arguments: it strips Unicode white
// space, which to Python includes the separators U+001C to U+001F.
func pythonRstrip(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
}

// javaSplit is Java's String.split with a literal one-character pattern
// and no limit: every separator splits, trailing empty strings are
// dropped (an empty input gives one empty string).
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	if s == "" {
		return parts
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

func readFiles(dir string) (tests, spectra, matrix string, err error) {
	read := func(name string) string {
		data, e := os.ReadFile(filepath.Join(dir, name))
		if e != nil && err == nil {
			err = e
		}
		return string(data)
	}
	return read(TestsFile), read(SpectraFile), read(MatrixFile), err
}

// Element and test lines as flitsr's GZoltar input reader
// (flitsr/input/gzoltar_input.py) matches them, after rstrip(), in full.
var (
	flitsrElement = regexp.MustCompile(`^([^$]+)\$([^#]+)#([^:]+):([0-9]+)(?::(.+))?$`)
	flitsrTest    = regexp.MustCompile(`^([^,]+),(PASS|FAIL|ERROR)(,.*)?$`)
)

// readFlitsr reads a triple by the rules of flitsr's GZoltar input:
// spectra.csv's first line must be exactly "name", every later line an
// element name package$unit#method:line; tests.csv's first line is
// skipped and every later one must be name,PASS|FAIL|ERROR followed by
// anything, the name holding no comma; matrix.txt has a line per test,
// split on white space, the last field the outcome and every other a
// column of an element ("0" meaning not executed). The files are decoded
// as UTF-8, line ends are as in textLines; flitsr stops at the first line
// that breaks a rule.
func readFlitsr(dir string) (*triple, error) {
	testsText, spectraText, matrixText, err := readFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, text := range []string{testsText, spectraText, matrixText} {
		if !utf8.ValidString(text) {
			return nil, fmt.Errorf("flitsr: a file is not UTF-8, which Python's text files decode")
		}
	}
	var out triple
	spectra := textLines(spectraText)
	if len(spectra) == 0 || spectra[0] != "name" {
		return nil, fmt.Errorf("flitsr: spectra.csv does not start with the line \"name\"")
	}
	for _, line := range spectra[1:] {
		if !flitsrElement.MatchString(pythonRstrip(line)) {
			return nil, fmt.Errorf("flitsr: incorrectly formatted line %q", line)
		}
		out.elements = append(out.elements, pythonRstrip(line))
	}
	tests := textLines(testsText)
	if len(tests) > 0 {
		tests = tests[1:]
	}
	for _, line := range tests {
		m := flitsrTest.FindStringSubmatch(pythonRstrip(line))
		if m == nil {
			return nil, fmt.Errorf("flitsr: incorrectly formatted test line %q", line)
		}
		out.tests = append(out.tests, readTest{name: m[1], failing: m[2] != "PASS"})
	}
	rows := textLines(matrixText)
	for t := range out.tests {
		if t >= len(rows) {
			return nil, fmt.Errorf("flitsr: incorrect number of matrix lines (%d)", t)
		}
		fields := strings.Fields(pythonRstrip(rows[t]))
		if len(fields)-1 > len(out.elements) {
			return nil, fmt.Errorf("flitsr: incorrect number of matrix columns in line %d", t+1)
		}
		var row []bool
		for _, f := range fields {
			row = append(row, f != "0")
		}
		if len(fields) > 0 {
			row[len(row)-1] = fields[len(fields)-1] == "-"
		}
		out.matrix = append(out.matrix, row)
	}
	return &out, nil
}

// readGZoltar reads a triple as GZoltar's own system tests load the files
// its txt formatter writes (com.gzoltar.systemtest, SystemTestBase): every
// file read with readLine (line ends as in textLines); tests.csv's header
// skipped, each later line split at every comma as Java's String.split
// does, which must give 3 or 4 fields (name, outcome, runtime and a
// stack trace that may be empty), PASS meaning passed; spectra.csv's
// header skipped, each later line an element's name; matrix.txt split at
// every single space, "1" and "-" meaning true.
func readGZoltar(dir string) (*triple, error) {
	testsText, spectraText, matrixText, err := readFiles(dir)
	if err != nil {
		return nil, err
	}
	var out triple
	tests := textLines(testsText)
	if len(tests) > 0 {
		tests = tests[1:]
	}
	for _, line := range tests {
		fields := javaSplit(line, ",")
		if len(fields) != 3 && len(fields) != 4 {
			return nil, fmt.Errorf("gzoltar: test line %q has %d fields", line, len(fields))
		}
		out.tests = append(out.tests, readTest{name: fields[0], failing: fields[1] != "PASS"})
	}
	if spectra := textLines(spectraText); len(spectra) > 0 {
		out.elements = spectra[1:]
	}
	for _, line := range textLines(matrixText) {
		var row []bool
		for _, f := range javaSplit(line, " ") {
			row = append(row, f == "1" || f == "-")
		}
		out.matrix = append(out.matrix, row)
	}
	return &out, nil
}
