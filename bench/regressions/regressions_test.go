package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

func TestMigrateTestMovesTheTestWithWhatItNeeds(t *testing.T) {
	fix := []byte(`package p

import (
	"strings"
	"testing"
)

var cases = []string{"a", "b"}

func helper(s string) string { return strings.ToUpper(s) }

// TestA is the fix's version.
func TestA(t *testing.T) {
	for _, c := range cases {
		if helper(c) == "" {
			t.Fatal(c)
		}
	}
}

func TestNew(t *testing.T) { t.Log(NewAPI()) }
`)
	old := []byte(`package p

import (
	"bytes"
	"fmt"
	"testing"
)

func TestA(t *testing.T) {
	if bytes.Equal(nil, nil) {
		t.Log("old")
	}
}

func TestB(t *testing.T) { fmt.Println("kept") }
`)
	got, err := migrateTest([][]byte{fix}, old, "TestA", map[string]bool{}, "example.com/p", "example.com/p")
	if err != nil {
		t.Fatal(err)
	}
	src := string(got)
	for _, want := range []string{`"strings"`, `"fmt"`, "func helper(", "var cases", "// TestA is the fix's version.", "func TestB("} {
		if !strings.Contains(src, want) {
			t.Errorf("migrated file lacks %s:\n%s", want, src)
		}
	}
	for _, unwanted := range []string{`"bytes"`, `t.Log("old")`, "TestNew", "NewAPI"} {
		if strings.Contains(src, unwanted) {
			t.Errorf("migrated file keeps %s:\n%s", unwanted, src)
		}
	}
	if n := strings.Count(src, "func TestA("); n != 1 {
		t.Errorf("TestA declared %d times:\n%s", n, src)
	}
}

func TestMigrateTestKeepsOlderHelpersAndRewritesTheModulePath(t *testing.T) {
	fix := []byte(`package p_test

import (
	"testing"

	"example.com/m/v2/sub"
)

func helper() int { return 2 }

func TestA(t *testing.T) {
	if sub.F() != helper() {
		t.Fatal()
	}
}
`)
	// The package's other test file declares helper at the old commit:
	// the older one is kept, not declared twice.
	got, err := migrateTest([][]byte{fix}, nil, "TestA", map[string]bool{"helper": true}, "example.com/m/v2", "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	src := string(got)
	if !strings.Contains(src, `"example.com/m/sub"`) || strings.Contains(src, "/v2") {
		t.Errorf("import not rewritten to the old module path:\n%s", src)
	}
	if strings.Contains(src, "func helper(") {
		t.Errorf("helper the old package declares was moved too:\n%s", src)
	}
	if !strings.HasPrefix(src, "package p_test") {
		t.Errorf("new file's package clause is not the fix's:\n%s", src)
	}
}

func TestMigrateTestBringsMethodsAnOlderTypeLacks(t *testing.T) {
	fix := []byte(`package p

import "testing"

func (n *node) lines() int { return 1 }

func TestA(t *testing.T) {
	var n node
	if n.lines() != 1 {
		t.Fatal()
	}
}
`)
	got, err := migrateTest([][]byte{fix}, nil, "TestA", map[string]bool{"node": true}, "m", "m")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "func (n *node) lines() int") {
		t.Errorf("the method the test calls was not moved:\n%s", got)
	}
}

func TestMigrateTestWithoutTheTest(t *testing.T) {
	if _, err := migrateTest([][]byte{[]byte("package p\n")}, nil, "TestA", nil, "m", "m"); err == nil {
		t.Error("no error for a fix file lacking the test")
	}
}

func TestJudge(t *testing.T) {
	r := Regression{Truth: []TruthHunk{{File: "a.go", Start: 10, Count: 3}, {File: "b.go", Start: 5, Count: 1}}}
	for _, c := range []struct {
		name         string
		roots        []Span
		want         score
		contains, on bool
	}{
		{"none", nil, score{0, 0, 2, 0}, false, false},
		{"exact", []Span{{"a.go", 11, 11}}, score{1, 1, 2, 1}, true, true},
		{"both and a stray", []Span{{"a.go", 12, 14}, {"b.go", 5, 5}, {"b.go", 7, 8}}, score{3, 2, 2, 2}, true, false},
		{"other file", []Span{{"c.go", 11, 11}}, score{1, 0, 2, 0}, false, false},
		{"deletion at the hunk's end", []Span{{"a.go", 13, 12}}, score{1, 1, 2, 1}, true, true},
		{"deletion after it", []Span{{"a.go", 14, 13}}, score{1, 0, 2, 0}, false, false},
	} {
		got := judge(r, Measurement{Roots: c.roots})
		if got != c.want || got.contains() != c.contains || got.only() != c.on {
			t.Errorf("%s: got %+v (contains %v, only %v), want %+v (%v, %v)", c.name, got, got.contains(), got.only(), c.want, c.contains, c.on)
		}
	}
}

func TestRunPatternSelectsOneLeaf(t *testing.T) {
	if got, want := runPattern("TestX/a+b_(1)"), `^TestX$/^a\+b_\(1\)$`; got != want {
		t.Errorf("runPattern = %s, want %s", got, want)
	}
}

func TestRanges(t *testing.T) {
	if got, want := ranges([]int{3, 4, 5, 9, 11, 12}), [][2]int{{3, 5}, {9, 9}, {11, 12}}; !slices.Equal(got, want) {
		t.Errorf("ranges = %v, want %v", got, want)
	}
}

func TestHalfIsStable(t *testing.T) {
	// The split is FNV-1a of the name: a project's half never changes
	// between runs or machines, so the figures of each half stay comparable.
	if got := half("goccy/go-yaml"); got != "held-out" {
		t.Fatalf("half(goccy/go-yaml) = %s, want held-out", got)
	}
	seen := map[string]bool{}
	for _, r := range []string{"goccy/go-yaml", "itchyny/gojq", "labstack/echo", "gin-gonic/gin", "google/go-cmp", "miekg/dns"} {
		seen[half(r)] = true
	}
	if !seen["tuning"] || !seen["held-out"] {
		t.Errorf("six projects all fall in one half: %v", seen)
	}
}

// TestBlameEarlierPassesOverACommitThatOnlyTouchedTheLine checks the SZZ
// refinement: the faulty line, written by one commit and then only
// re-indented with a changed comment by another, is blamed on the second,
// and again past it on the first.
func TestBlameEarlierPassesOverACommitThatOnlyTouchedTheLine(t *testing.T) {
	dir, git := testRepo(t)
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package a\n\nfunc F() int {\n\treturn 1\n}\n")
	git("add", "a.go")
	git("commit", "-qm", "root")
	write("package a\n\nfunc F() int {\n\treturn 2 // wrong\n}\n")
	git("commit", "-qam", "introduces the fault")
	intro := git("rev-parse", "HEAD")
	write("package a\n\nfunc F() int {\n\treturn 2 // the answer\n}\n")
	git("commit", "-qam", "touches the line")
	touch := git("rev-parse", "HEAD")
	g := realfault.Repo{Dir: filepath.Join(dir, ".git")}
	f := realfault.Fault{Parent: touch, Faulty: []realfault.FaultyFile{{File: "a.go", Lines: []int{4}}}}
	blamed, changed, err := blameFaulty(context.Background(), g, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := byBlame(blamed); changed != 1 || !slices.Equal(got, []string{touch}) {
		t.Fatalf("blamed %v (%d lines), want the touching commit %s", got, changed, touch)
	}
	m := &miner{}
	earlier, err := m.blameEarlier(context.Background(), g, f, blamed, []string{touch}, []string{touch})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(earlier, []string{intro}) || len(blamed[intro]) != 1 || blamed[intro][0].line != 4 {
		t.Errorf("blamed again: %v with lines %+v, want %s line 4", earlier, blamed[intro], intro)
	}
}

// testRepo makes an empty git repository and returns its directory and a
// function that runs git in it, giving its trimmed output.
func testRepo(t *testing.T) (string, func(args ...string) string) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-C", dir}, args...)...)
		// Fixed dates make the commits' ids the same in every run: an id
		// written in a message is found only when it has a letter and a
		// digit, which a clock-dependent id lacks now and then.
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2024-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2024-01-02T03:04:05Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	return dir, git
}
