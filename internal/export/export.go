// Package export holds what one localization found, in the form that the
// export formats read (SARIF in export/sarif, GZoltar's CSV triple in
// export/gzoltar, the HTML report in internal/report), the module's sources
// those formats quote, and file writing that never leaves a partial file
// where a complete one should be.
package export

import (
	"fmt"
	"runtime/debug"

	"faultline/analysis"
	"faultline/spectra"
)

// Localization is one run of faultline rank: the spectra, the ranking of
// every executed line, and what the angelic analysis verified.
type Localization struct {
	Matrix  *spectra.Matrix
	Ranking *spectra.Ranking // every executed line, most suspicious first
	// Angelic is nil when the analysis did not run.
	Angelic *Angelic
}

// Angelic is what the angelic analysis contributed to a ranking.
type Angelic struct {
	Failing  int   // failing tests in the ranking
	Analyzed int   // of which analysed
	Fixes    []Fix // verified single-location fixes
	Notes    []string
}

// Fix is one verified single-location angelic fix: forcing the expression
// at Location to the angelic value makes the failing test pass.
type Fix struct {
	Test    string // full test name
	Package string // import path of the test's package
	analysis.Location
}

// Failing returns the failing tests of the matrix, in its order.
func (l *Localization) Failing() []spectra.TestRun {
	var out []spectra.TestRun
	for _, t := range l.Matrix.Tests {
		if t.Verdict.Failing() {
			out = append(out, t)
		}
	}
	return out
}

// FixesAt returns the fixes whose expression starts on the line.
func (l *Localization) FixesAt(file string, line int) []Fix {
	if l.Angelic == nil {
		return nil
	}
	var out []Fix
	for _, f := range l.Angelic.Fixes {
		if f.File == file && f.Line == line {
			out = append(out, f)
		}
	}
	return out
}

// Version is faultline's module version as built, "devel" for a build from
// a work tree.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && (v == "" || v == "(devel)") {
			v = s.Value
			if len(v) > 12 {
				v = v[:12]
			}
		}
	}
	if v == "" || v == "(devel)" {
		return "devel"
	}
	return v
}

// TieText describes a line's tie group: "-" alone, else "ranks a-b".
func TieText(l spectra.RankedLine) string {
	if l.Tie[0] == l.Tie[1] {
		return "-"
	}
	return fmt.Sprintf("ranks %d-%d", l.Tie[0], l.Tie[1])
}
