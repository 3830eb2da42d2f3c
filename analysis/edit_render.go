package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// SourceLines returns the lines of a file named by its slash-separated
// path relative to the module root, line 1 at index 0; nil when the file
// cannot be read.
type SourceLines func(file string) []string

// FileLines returns SourceLines that read the files below root, each once.
// It is for one goroutine.
func FileLines(root string) SourceLines {
	read := map[string][]string{}
	return func(file string) []string {
		if lines, ok := read[file]; ok {
			return lines
		}
		var lines []string
		if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file))); err == nil {
			lines = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		}
		read[file] = lines
		return lines
	}
}

// LineEdit is a fix shown as an edit of its source: the lines it changes
// as they are (Before) and with the angelic values written over their
// expressions (After), each joined into one line without its indentation.
// When the source cannot be read or no longer holds the expressions where
// they were, InSource is false and Before and After are the expressions
// and their angelic values.
type LineEdit struct {
	File          string
	Line, EndLine int
	Before, After string
	InSource      bool
	// Edited is lines Line..EndLine of the file as the edit leaves them,
	// joined by newlines, indentation kept: the replacement of those
	// whole lines. Empty unless InSource.
	Edited string
}

// String is the edit as faultline prints it:
// "match.go:190  if len(pat) > 2 {  →  if len(pat) > 1 {".
func (e LineEdit) String() string {
	return fmt.Sprintf("%s:%d  %s  →  %s", e.File, e.Line, e.Before, e.After)
}

// Effect says what a verified fix does for the test it was found for:
// "makes TestX pass", or, when it steers the run around the failing check
// rather than fixing what the check compares, "steers the run of TestX
// around its failing check, not a fix".
func Effect(test string, avoids bool) string {
	if avoids {
		return "steers the run of " + test + " around its failing check, not a fix"
	}
	return "makes " + test + " pass"
}

// Writable reports whether an angelic value can stand in the source as it
// is: a value the analysis could not rebuild ("?"), cut short for showing
// ("…"), known by its length alone ("(n bytes)") or only as not nil
// ("non-nil error") is not Go.
func Writable(value string) bool {
	return value != "?" && value != "non-nil error" && !strings.HasSuffix(value, "…") && !strings.HasSuffix(value, " bytes)")
}

// sourceText is what a location's angelic value writes over its
// expression in a shown line: the value as it is when it is Go, else in
// angle brackets, a description to read. The value of an increment or
// decrement statement (i++) is the variable's after it, so it is written
// as an assignment.
func sourceText(l Location) string {
	value := l.Angelic
	if !Writable(value) {
		value = "⟨" + value + "⟩"
	}
	for _, op := range []string{"++", "--"} {
		if v, ok := strings.CutSuffix(l.Expr, op); ok && !strings.Contains(value, "=") && !strings.HasSuffix(value, op) {
			return strings.TrimSpace(v) + " = " + value
		}
	}
	return value
}

// Edits renders the locations of a candidate as edits of their source
// lines: locations on the same lines make one edit. Edits come in the
// order of their first location.
func Edits(locs []Location, src SourceLines) []LineEdit {
	type group struct {
		file          string
		line, endLine int
		locs          []Location
	}
	var groups []*group
	for _, l := range locs {
		end := max(l.Line, l.EndLine)
		i := slices.IndexFunc(groups, func(g *group) bool { return g.file == l.File && l.Line <= g.endLine && end >= g.line })
		if i < 0 {
			groups = append(groups, &group{file: l.File, line: l.Line, endLine: end})
			i = len(groups) - 1
		}
		g := groups[i]
		g.line, g.endLine = min(g.line, l.Line), max(g.endLine, end)
		g.locs = append(g.locs, l)
	}
	out := make([]LineEdit, 0, len(groups))
	for _, g := range groups {
		e := LineEdit{File: g.file, Line: g.line, EndLine: g.endLine}
		var lines []string
		if src != nil {
			lines = src(g.file)
		}
		if edited, ok := editLines(lines, g.line, g.endLine, g.locs); ok {
			e.Before, e.After, e.InSource, e.Edited = joinLines(strings.Join(lines[g.line-1:g.endLine], "\n")), joinLines(edited), true, edited
		} else {
			var exprs, values []string
			for _, l := range g.locs {
				exprs, values = append(exprs, l.Expr), append(values, sourceText(l))
			}
			e.Before, e.After = strings.Join(exprs, ", "), strings.Join(values, ", ")
		}
		out = append(out, e)
	}
	return out
}

// editLines writes the locations' angelic values over their expressions
// in lines first..last of a file and returns those lines edited; ok is
// false when the lines are missing or do not hold the expressions at the
// locations' columns (the file changed), or the locations overlap.
func editLines(lines []string, first, last int, locs []Location) (edited string, ok bool) {
	if first < 1 || last > len(lines) {
		return "", false
	}
	text := strings.Join(lines[first-1:last], "\n")
	offset := func(line, col int) int {
		n := col - 1
		for i := first; i < line; i++ {
			n += len(lines[i-1]) + 1
		}
		return n
	}
	type span struct {
		start, end int
		value      string
	}
	spans := make([]span, 0, len(locs))
	var assigned []string // "name = value" for names an assignment sets
	for _, l := range locs {
		s := span{offset(l.Line, l.Col), offset(max(l.Line, l.EndLine), l.EndCol), sourceText(l)}
		if s.start < 0 || s.end > len(text) || s.start > s.end || !sameCode(text[s.start:s.end], l.Expr) {
			return "", false
		}
		if assignedName.MatchString(text[s.end:]) {
			// The value a statement assigns to a name: written as an
			// assignment after the statement, when the statement is the
			// line's own (not a for or if header) and ends it.
			lineStart := strings.LastIndexByte(text[:s.start], '\n') + 1
			if first != last || !namesBefore.MatchString(text[lineStart:s.start]) || strings.HasSuffix(strings.TrimSpace(text), "{") {
				return "", false
			}
			assigned = append(assigned, l.Expr+" = "+s.value)
			continue
		}
		spans = append(spans, s)
	}
	slices.SortFunc(spans, func(a, b span) int { return b.start - a.start })
	edited = text
	for i, s := range spans {
		if i > 0 && s.end > spans[i-1].start {
			return "", false
		}
		edited = edited[:s.start] + s.value + edited[s.end:]
	}
	if len(assigned) > 0 {
		edited += "; " + strings.Join(assigned, "; ")
	}
	return edited, true
}

// assignedName matches the rest of a line after a name that an assignment
// or a short variable declaration sets: more names, then = or :=.
var assignedName = regexp.MustCompile(`^\s*(,\s*[\pL_][\pL\pN_]*\s*)*(:=|=[^=])`)

// namesBefore matches what may stand before such a name on its line:
// indentation and the names before it.
var namesBefore = regexp.MustCompile(`^\s*([\pL_][\pL\pN_]*\s*,\s*)*$`)

// joinLines joins source lines into one, each without its indentation.
func joinLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " ")
}

// sameCode reports whether two pieces of source differ at most in white
// space, as an expression spread over lines and its recorded text may.
func sameCode(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}
