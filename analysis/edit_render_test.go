package analysis

import (
	"strings"
	"testing"
)

// editSource is the file the golden edits are made on.
const editSource = `package match

func suffix(pat string, end int, ok bool) bool {
	if len(pat) > 2 {
		return pat[len(pat)-1] == 'x'
	}
	if ok && end >= 0 {
		return f(pat,
			end)
	}
	for i := 0; i < n; i++ {
	}
	start, err := parse(pat)
	total = start
	return false
}
`

// at locates expr on a line of editSource, with its angelic value.
func at(t *testing.T, line int, expr, angelic string) Location {
	t.Helper()
	lines := strings.Split(editSource, "\n")
	first, _, _ := strings.Cut(expr, "\n")
	col := strings.Index(lines[line-1], first)
	if col < 0 {
		t.Fatalf("%q is not on line %d", expr, line)
	}
	endLine, endCol := line+strings.Count(expr, "\n"), col+1+len(expr)
	if i := strings.LastIndex(expr, "\n"); i >= 0 {
		endCol = len(expr) - i
	}
	return Location{File: "match.go", Line: line, Col: col + 1, EndLine: endLine, EndCol: endCol, Expr: expr, Angelic: angelic}
}

// TestEditsGolden: a fix is shown as its source line before and after the
// angelic value is written over the expression.
func TestEditsGolden(t *testing.T) {
	src := func(file string) []string {
		if file != "match.go" {
			return nil
		}
		return strings.Split(editSource, "\n")
	}
	for _, tc := range []struct {
		name string
		locs []Location
		want []string
	}{
		{"a literal", []Location{at(t, 4, "2", "1")},
			[]string{"match.go:4  if len(pat) > 2 {  →  if len(pat) > 1 {"}},
		{"a comparison", []Location{at(t, 7, "end >= 0", "false")},
			[]string{"match.go:7  if ok && end >= 0 {  →  if ok && false {"}},
		{"a negation", []Location{at(t, 7, "ok && end >= 0", "!(ok && end >= 0)")},
			[]string{"match.go:7  if ok && end >= 0 {  →  if !(ok && end >= 0) {"}},
		{"an index", []Location{at(t, 5, "len(pat)-1", "0")},
			[]string{"match.go:5  return pat[len(pat)-1] == 'x'  →  return pat[0] == 'x'"}},
		{"two locations on one line and one elsewhere", []Location{at(t, 7, "end", "1"), at(t, 4, "2", "3"), at(t, 7, "ok", "true")},
			[]string{"match.go:7  if ok && end >= 0 {  →  if true && 1 >= 0 {", "match.go:4  if len(pat) > 2 {  →  if len(pat) > 3 {"}},
		{"an expression over two lines", []Location{at(t, 8, "f(pat,\n\t\t\tend)", "true")},
			[]string{"match.go:8  return f(pat, end)  →  return true"}},
		{"an increment", []Location{at(t, 11, "i++", "7")},
			[]string{"match.go:11  for i := 0; i < n; i++ {  →  for i := 0; i < n; i = 7 {"}},
		{"a name a declaration defines", []Location{at(t, 13, "start", "start + 1")},
			[]string{"match.go:13  start, err := parse(pat)  →  start, err := parse(pat); start = start + 1"}},
		{"a name an assignment sets and one it reads", []Location{at(t, 14, "total", "7"), {File: "match.go", Line: 14, Col: 10, EndLine: 14, EndCol: 15, Expr: "start", Angelic: "0"}},
			[]string{"match.go:14  total = start  →  total = 0; total = 7"}},
		{"a name a for header defines, not in source", []Location{{File: "match.go", Line: 11, Col: 6, EndLine: 11, EndCol: 7, Expr: "i", Angelic: "1"}},
			[]string{"match.go:11  i  →  1"}},
		{"a value that is not Go", []Location{at(t, 4, "2", "(12 bytes)")},
			[]string{"match.go:4  if len(pat) > 2 {  →  if len(pat) > ⟨(12 bytes)⟩ {"}},
		{"a file that changed", []Location{{File: "match.go", Line: 4, Col: 3, EndLine: 4, EndCol: 6, Expr: "len(pat)", Angelic: "7"}},
			[]string{"match.go:4  len(pat)  →  7"}},
		{"a file that is gone", []Location{{File: "gone.go", Line: 4, Col: 3, EndLine: 4, EndCol: 6, Expr: "x", Angelic: "7"}},
			[]string{"gone.go:4  x  →  7"}},
	} {
		got := Edits(tc.locs, src)
		var text []string
		for _, e := range got {
			text = append(text, e.String())
		}
		if strings.Join(text, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, text, tc.want)
		}
		if tc.name == "a literal" && got[0].Edited != "\tif len(pat) > 1 {" {
			t.Errorf("a literal: the edited source line is %q", got[0].Edited)
		}
		inSource := !strings.HasPrefix(tc.name, "a file") && !strings.HasSuffix(tc.name, "not in source")
		for _, e := range got {
			if e.InSource != inSource {
				t.Errorf("%s: InSource %v", tc.name, e.InSource)
			}
		}
	}
}
