package testbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strings"
	"testing"
)

func TestUpgradeLanguageKeepsPositions(t *testing.T) {
	for _, src := range []string{
		"// Package p.\npackage p\n\nvar x = 1\n",
		"//go:build linux || darwin\n\npackage p\n\nvar x = 1\n",
	} {
		out := UpgradeLanguage([]byte(src), "/m/p.go", "go1.18")
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "/m/p.go", out, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Count(src[:strings.Index(src, "var x")], "\n") + 1
		if got := fset.Position(f.Decls[0].Pos()).Line; got != want {
			t.Errorf("%q: declaration at line %d after the upgrade, want %d:\n%s", src, got, want, out)
		}
		if !strings.Contains(string(out), "go1.18") {
			t.Errorf("%q: no go1.18 constraint:\n%s", src, out)
		}
	}
}

func TestApplyOrdersWrappingsAndKeepsLines(t *testing.T) {
	src := []byte("x := f(a)\ny := 2\n")
	// f(a) wrapped twice (outer span larger), a wrapped once, a statement
	// inserted at the start of the second line, and "2" replaced.
	edits := []Edit{
		{Off: 5, Text: "W(", Span: 4},
		{Off: 9, Text: ")", Close: true, Span: 4},
		{Off: 5, Text: "V(", Span: 5},
		{Off: 9, Text: ")", Close: true, Span: 5},
		{Off: 7, Text: "A(", Span: 1},
		{Off: 8, Text: ")", Close: true, Span: 1},
		Insert(10, "s();"),
		{Off: 15, Del: 1, Text: "3"},
	}
	out, err := Apply(src, edits)
	if err != nil {
		t.Fatal(err)
	}
	if want := "x := V(W(f(A(a))))\ns();y := 3\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if _, err := Apply(src, []Edit{Insert(2, "a\nb")}); err == nil {
		t.Error("an edit adding a newline mid-file was applied")
	}
	if _, err := Apply(src, []Edit{{Off: 8, Del: 3, Text: ""}}); err == nil {
		t.Error("an edit deleting a newline was applied")
	}
	if out, err := Apply(src, []Edit{{Off: len(src), Text: "\nfunc g() {}\n"}}); err != nil || !strings.HasSuffix(string(out), "func g() {}\n") {
		t.Errorf("appending at the end: %q, %v", out, err)
	}
}

func TestUnusedName(t *testing.T) {
	a := []byte("package p\nvar faultlinert_ = 1\n")
	b := []byte("package p\nfunc f() { faultlinert_1 := 2; _ = faultlinert_1 }\n")
	if got := UnusedName("faultlinert_", a, b); got != "faultlinert_2" {
		t.Errorf("got %q, want faultlinert_2", got)
	}
	// Strings and comments are not identifiers.
	c := []byte("package p\n// faultlinert_\nvar s = \"faultlinert_\"\n")
	if got := UnusedName("faultlinert_", c); got != "faultlinert_" {
		t.Errorf("got %q, want faultlinert_", got)
	}
	// No identifier may begin with the name: it may prefix generated ones.
	d := []byte("package p\nvar faultlineTuple_x, faultlineTuple_1y int\n")
	if got := UnusedName("faultlineTuple_", d); got != "faultlineTuple_2" {
		t.Errorf("got %q, want faultlineTuple_2", got)
	}
}

// UnusedNames scans once for several bases, each answered as UnusedName
// answers it alone, bases that prefix one another included.
func TestUnusedNames(t *testing.T) {
	files := [][]byte{
		[]byte("package p\nvar faultlinert_, faultlineCounters_1 = 1, 2\n"),
		[]byte("package p\n// faultlineatomic_\nfunc f() { faultlinert_1 := 2; _ = faultlinert_1 }\n"),
		[]byte("package p\nvar faultlineEdges_x, faultlineEdges_2y int\n"),
	}
	bases := []string{"faultlinert_", "faultlineCounters_", "faultlineatomic_", "faultlineEdges_", "faultline", "faultlinert"}
	got := UnusedNames(files, bases...)
	want := []string{"faultlinert_2", "faultlineCounters_2", "faultlineatomic_", "faultlineEdges_1", "faultline1", "faultlinert1"}
	if !slices.Equal(got, want) {
		t.Errorf("UnusedNames = %q, want %q", got, want)
	}
	for i, base := range bases {
		if one := UnusedName(base, files...); one != got[i] {
			t.Errorf("UnusedName(%q) = %q, UnusedNames gave %q", base, one, got[i])
		}
	}
}

func TestNeedsUpgrade(t *testing.T) {
	for _, c := range []struct {
		goVersion, need string
		want            bool
	}{
		{"1.16", "go1.18", true},
		{"1.18", "go1.18", false},
		{"1.21.0", "go1.18", false},
		{"1.9", "go1.13", true},
		{"", "go1.18", true}, // no go directive: the go command compiles at go1.16
		{"", "go1.13", false},
		{"1.12", "", false},
	} {
		if got := NeedsUpgrade(c.goVersion, c.need); got != c.want {
			t.Errorf("NeedsUpgrade(%q, %q) = %v, want %v", c.goVersion, c.need, got, c.want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	base := "package p\n\n// Twice doubles.\nfunc Twice(x int) int { return 2 * x }\n"
	same := []string{
		base + "\n// a comment appended\n",
		strings.Replace(base, "Twice doubles.", "Twice returns twice x.", 1),
	}
	different := []string{
		strings.Replace(base, "2 * x", "3 * x", 1),
		"\n" + base, // every line moves
		strings.Replace(base, "func", "/* c */ func", 1), // a column moves
		"//go:build linux\n\n" + base[:len(base)-1],      // a directive
		strings.Replace(base, "// Twice doubles.", "//go:noinline", 1),
	}
	fp := Fingerprint([]byte(base))
	for _, s := range same {
		if Fingerprint([]byte(s)) != fp {
			t.Errorf("%q: fingerprint differs from the original's", s)
		}
	}
	for _, s := range different {
		if Fingerprint([]byte(s)) == fp {
			t.Errorf("%q: fingerprint equals the original's", s)
		}
	}
}

// The fingerprint hashes each token as fmt's "%d:%d %d %q\n" writes it, so
// that the reuse entries made before it was written by hand stay valid.
func TestFingerprintWritesTokensAsFmt(t *testing.T) {
	src := []byte("//line other.go:40\npackage p\n\nimport \"fmt\"\n\n//go:noinline\nfunc F() { fmt.Println(\"tab\\t\\\"q\\\" é\", `raw\n\"x\"`, 'ü', 0x1p-2, 1_000) /* c */ }\n")
	d := sha256.New()
	var s scanner.Scanner
	file := token.NewFileSet().AddFile("", -1, len(src))
	s.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT && !isDirective(lit) {
			continue
		}
		p := file.Position(pos)
		fmt.Fprintf(d, "%d:%d %d %q\n", p.Line, p.Column, tok, lit)
	}
	if got, want := Fingerprint(src), hex.EncodeToString(d.Sum(nil)); got != want {
		t.Errorf("Fingerprint = %s, want %s as fmt writes the tokens", got, want)
	}
}
