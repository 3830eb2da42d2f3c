package testbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/version"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Edit is one change to a source file, at a byte offset of the original:
// Text inserted there, replacing the Del bytes that follow. Edits never
// add or remove a newline except at the end of the file, so that every line
// keeps its number in compiler messages, panics and test output.
//
// Edits at one offset apply in this order: those that close a wrapping
// (Close), innermost (smallest Span) first; then those that open one,
// outermost (largest Span) first; then by Seq. A statement inserted before
// whatever starts at its offset takes the span Statement.
type Edit struct {
	Off   int
	Del   int
	Text  string
	Close bool
	Span  int
	Seq   int
}

// Statement is the span of an edit that goes before every wrapping opened
// at its offset.
const Statement = math.MaxInt32

// Insert is an insertion of text at off before anything else there.
func Insert(off int, text string) Edit { return Edit{Off: off, Text: text, Span: Statement} }

// Apply applies edits to src. An edit inside a range another edit
// replaces is dropped with it. It fails, rather than move a line, when an
// edit would add or remove a newline before the end of the file.
func Apply(src []byte, edits []Edit) ([]byte, error) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b Edit) int {
		if a.Off != b.Off {
			return a.Off - b.Off
		}
		if a.Close != b.Close {
			if a.Close {
				return -1
			}
			return 1
		}
		if a.Close {
			if a.Span != b.Span {
				return a.Span - b.Span
			}
		} else if a.Span != b.Span {
			return b.Span - a.Span
		}
		return a.Seq - b.Seq
	})
	var out bytes.Buffer
	out.Grow(len(src) + 64*len(edits))
	last := 0
	for _, e := range edits {
		if e.Off < last {
			continue // inside a replaced range
		}
		if e.Off > len(src) || e.Off+e.Del > len(src) || e.Del < 0 {
			return nil, fmt.Errorf("edit at %d+%d is outside the file (%d bytes)", e.Off, e.Del, len(src))
		}
		if e.Off < len(src) && strings.Contains(e.Text, "\n") || bytes.Contains(src[e.Off:e.Off+e.Del], []byte("\n")) {
			return nil, fmt.Errorf("edit at offset %d would move lines", e.Off)
		}
		out.Write(src[last:e.Off])
		out.WriteString(e.Text)
		last = e.Off + e.Del
	}
	out.Write(src[last:])
	return out.Bytes(), nil
}

// NeedsUpgrade reports whether files of a module declaring goVersion (as
// in go.mod, "1.16"; "" when go.mod has no go directive) compile below
// language version need (as "go1.18").
func NeedsUpgrade(goVersion, need string) bool {
	if goVersion == "" {
		goVersion = undeclaredGoVersion
	}
	return need != "" && version.Compare("go"+goVersion, need) < 0
}

// undeclaredGoVersion is the language version the go command compiles a
// module whose go.mod has no go directive at.
const undeclaredGoVersion = "1.16"

// UpgradeLanguage raises a file to language version lang with a //go:build
// constraint, which since Go 1.21 sets a file's language version. The file
// is in the build already, so its own constraint holds and is kept.
// Positions do not move: an existing //go:build line is extended in place;
// otherwise the new header ends with a //line directive that gives the
// first original line its own number again.
func UpgradeLanguage(src []byte, filename, lang string) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i, l := range lines {
		t := bytes.TrimSpace(l)
		if bytes.HasPrefix(t, []byte("package ")) {
			break
		}
		if expr, ok := bytes.CutPrefix(t, []byte("//go:build ")); ok {
			lines[i] = []byte("//go:build (" + string(expr) + ") && " + lang + "\n")
			return bytes.Join(lines, nil)
		}
	}
	header := "//go:build " + lang + "\n\n//line " + filename + ":1\n"
	return append([]byte(header), src...)
}

// UnusedName returns base, or base followed by a number, such that no
// identifier of the given files begins with it: a name the instrumentation
// declares or imports (or uses as the prefix of the names it declares) then
// cannot collide with, or be shadowed by, the user's own.
func UnusedName(base string, files ...[]byte) string {
	return UnusedNames(files, base)[0]
}

// UnusedNames returns UnusedName of each base, scanning the files once.
func UnusedNames(files [][]byte, bases ...string) []string {
	used := make([][]string, len(bases)) // by base, the identifiers it begins
	for _, src := range files {
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.IDENT {
				continue
			}
			for i, base := range bases {
				if strings.HasPrefix(lit, base) {
					used[i] = append(used[i], lit)
				}
			}
		}
	}
	names := make([]string, len(bases))
	for i, base := range bases {
		name := base
		for n := 1; slices.ContainsFunc(used[i], func(id string) bool { return strings.HasPrefix(id, name) }); n++ {
			name = base + strconv.Itoa(n)
		}
		names[i] = name
	}
	return names
}

// Fingerprint hashes what the compiler makes of a Go file: every token
// with its position, and the comments that are directives (//go:, //line,
// // +build). Files with one fingerprint compile to the same code with the
// same positions, whatever else their comments say, so a pass may reuse
// what it made of one for the other.
func Fingerprint(src []byte) string {
	d := sha256.New()
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	s.Init(file, src, nil, scanner.ScanComments)
	// Each token is written as fmt's "%d:%d %d %q\n" would, appended by
	// hand: through fmt it was half of the fingerprint's time.
	var line []byte
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT && !isDirective(lit) {
			continue
		}
		p := file.Position(pos)
		line = strconv.AppendInt(line[:0], int64(p.Line), 10)
		line = append(line, ':')
		line = strconv.AppendInt(line, int64(p.Column), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(tok), 10)
		line = append(line, ' ')
		line = strconv.AppendQuote(line, lit)
		line = append(line, '\n')
		d.Write(line)
	}
	return hex.EncodeToString(d.Sum(nil))
}

func isDirective(comment string) bool {
	for _, prefix := range []string{"//go:", "//line ", "/*line ", "// +build", "//export ", "//extern ", "//sys"} {
		if strings.HasPrefix(comment, prefix) {
			return true
		}
	}
	// A file's "Code generated ... DO NOT EDIT." marker changes what passes
	// do with it.
	return strings.HasPrefix(comment, "// Code generated ") && strings.HasSuffix(comment, " DO NOT EDIT.")
}

// ImportName is the name file f refers to the package at import path by
// (its own name or the path's last element), "" when f does not import it.
// Passes that edit tests use it to find "testing" under any name.
func ImportName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}
