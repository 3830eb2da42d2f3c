package localize

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/parsed"
)

// writeDeclModule writes a package whose function reads a regular
// expression compiled from a constant, a table and a limit, and whose
// other function shadows nothing it declares.
func writeDeclModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := `package p

import "regexp"

const pattern = "^[a-z]+$"

var re = regexp.MustCompile(pattern)

var table = []string{
	"a",
	"b",
}

const limit = 3

func Match(s string) bool {
	if len(s) > limit {
		return false
	}
	return re.MatchString(s) && s != table[0]
}

func Other(x struct{ limit int }) int {
	return x.limit
}
`
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// A test file's declarations are not the package's.
	if err := os.WriteFile(filepath.Join(root, "p", "p_test.go"), []byte("package p\n\nvar limit2 = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// A line reads the declarations it names, and through a variable's value
// the constant it is built from; a field named like one reads nothing.
func TestSourceDeclarationReads(t *testing.T) {
	reads := SourceDeclarationReads(writeDeclModule(t))
	names := func(line int) []string {
		var out []string
		for _, d := range reads("p/p.go", line) {
			out = append(out, d.Name)
		}
		return out
	}
	if got := names(17); !reflect.DeepEqual(got, []string{"limit"}) {
		t.Errorf("line 17 reads %v, want [limit]", got)
	}
	if got := names(20); !reflect.DeepEqual(got, []string{"re", "table", "pattern"}) {
		t.Errorf("line 20 reads %v, want [re table pattern]", got)
	}
	if got := names(24); got != nil {
		t.Errorf("line 24 (a field) reads %v, want none", got)
	}
	if got := reads("p/p.go", 20); got[1] != (Declaration{File: "p/p.go", Name: "table", Start: 9, End: 12}) {
		t.Errorf("table is %+v, want lines 9-12", got[1])
	}
}

// Declarations follow the tie group of their first reader, not above the
// position After; ranks, ties and reasons are the new order's.
func TestWithDeclarations(t *testing.T) {
	reads := SourceDeclarationReads(writeDeclModule(t))
	r := &Ranking{Failed: 1, Passed: 2, Lines: []RankedLine{
		{File: "p/p.go", Line: 17, Rank: 1, Tie: [2]int{1, 1}, EF: 1},
		{File: "p/p.go", Line: 20, Rank: 2, Tie: [2]int{2, 3}, EF: 1},
		{File: "p/p.go", Line: 18, Rank: 3, Tie: [2]int{2, 3}, EF: 1},
		{File: "p/p.go", Line: 24, Rank: 4, Tie: [2]int{4, 4}, EP: 1},
	}}
	type placed struct {
		Line, Rank int
		Tie        [2]int
		Reader     float64
	}
	got := func(opts DeclarationOptions) []placed {
		var out []placed
		for p, l := range WithDeclarations(r, reads, opts).Lines {
			if l.Rank != p+1 {
				t.Errorf("%+v: line %d at %d has rank %d", opts, l.Line, p+1, l.Rank)
			}
			out = append(out, placed{l.Line, l.Rank, l.Tie, l.Evidence[EvidenceDeclarationRead]})
		}
		return out
	}
	want := []placed{
		{17, 1, [2]int{1, 1}, 0}, {14, 2, [2]int{2, 2}, 1}, // limit, after its reader
		{20, 3, [2]int{3, 4}, 0}, {18, 4, [2]int{3, 4}, 0}, // the tie group is not split
		{7, 5, [2]int{5, 5}, 3}, {9, 6, [2]int{6, 9}, 3}, {10, 7, [2]int{6, 9}, 3}, {11, 8, [2]int{6, 9}, 3}, {12, 9, [2]int{6, 9}, 3},
		{5, 10, [2]int{10, 10}, 3},
		{24, 11, [2]int{11, 11}, 0},
	}
	if g := got(DeclarationOptions{}); !reflect.DeepEqual(g, want) {
		t.Errorf("placed %+v\nwant %+v", g, want)
	}
	// Not above position 3: limit follows the tie group holding it.
	g := got(DeclarationOptions{After: 2})
	if g[0].Line != 17 || g[1].Line != 20 || g[2].Line != 18 || g[3].Line != 14 || g[3].Reader != 1 {
		t.Errorf("with After 2: %+v, want limit (14) after 17, 20 and 18", g)
	}
	// Tables longer than MaxLines stay out; a failing readers' option
	// keeps line 24's reads (none) out anyway.
	for _, l := range WithDeclarations(r, reads, DeclarationOptions{MaxLines: 3, FailingReaders: true}).Lines {
		if l.Line >= 9 && l.Line <= 12 {
			t.Errorf("MaxLines 3 placed the 4-line table's line %d", l.Line)
		}
	}
	if WithDeclarations(r, func(string, int) []Declaration { return nil }, DeclarationOptions{}) != r {
		t.Error("with nothing read, the ranking should come back as it was")
	}
}

// Only true reads of a package-level declaration link it: a local variable,
// parameter or closure variable named like one shadows it, a struct key
// named like one is a field, and a declaration in a file the build leaves
// out is not the package's.
func TestDeclarationReadsHonourShadowing(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"p/p.go": `package p

var limit = 3

const sep = ","

type opts struct{ limit int }

func Shadowed(s string) int {
	limit := len(s)
	return limit
}

func Param(limit int) int {
	return limit
}

func Closure() func() int {
	return func() int {
		sep := 1
		return sep
	}
}

func Key() opts {
	return opts{limit: 1}
}

func Read() int {
	return limit + len(sep)
}
`,
		"p/other.go": "package p\n\nfunc FromOtherFile() int {\n\treturn limit\n}\n",
		"p/gen.go":   "//go:build ignore\n\npackage main\n\nvar sep = \";\"\n",
	}
	for name, src := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reads := SourceDeclarationReads(root)
	for _, c := range []struct {
		file string
		line int
		want []Declaration
	}{
		{"p/p.go", 10, nil}, // limit := len(s)
		{"p/p.go", 11, nil}, // return limit, the local
		{"p/p.go", 15, nil}, // the parameter
		{"p/p.go", 21, nil}, // the closure's own sep
		{"p/p.go", 26, nil}, // a field key
		{"p/p.go", 30, []Declaration{{File: "p/p.go", Name: "limit", Start: 3, End: 3}, {File: "p/p.go", Name: "sep", Start: 5, End: 5}}},
		{"p/other.go", 4, []Declaration{{File: "p/p.go", Name: "limit", Start: 3, End: 3}}},
	} {
		if got := reads(c.file, c.line); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:%d reads %+v, want %+v", c.file, c.line, got, c.want)
		}
	}
}

// Declarations found through one parsed-file cache are reused while the
// package's files are unchanged and found again when one changes.
func TestDeclarationReadsFollowChangedFiles(t *testing.T) {
	root := writeDeclModule(t)
	files := parsed.New(0)
	if got := DeclarationReadsIn(root, files)("p/p.go", 17); len(got) != 1 || got[0].Name != "limit" {
		t.Fatalf("line 17 reads %+v, want limit", got)
	}
	parses := files.Parses()
	if got := DeclarationReadsIn(root, files)("p/p.go", 17); len(got) != 1 || files.Parses() != parses {
		t.Fatalf("unchanged package: reads %+v, parsed %d files again", got, files.Parses()-parses)
	}
	src, err := os.ReadFile(filepath.Join(root, "p", "p.go"))
	if err != nil {
		t.Fatal(err)
	}
	// Line 17 now reads a local named limit.
	changed := strings.Replace(string(src), "func Match(s string) bool {", "func Match(s string) bool { limit := 1", 1)
	if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := DeclarationReadsIn(root, files)("p/p.go", 17); got != nil {
		t.Errorf("after the change line 17 reads %+v, want none", got)
	}
}
