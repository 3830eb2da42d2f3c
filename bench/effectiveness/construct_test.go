package main

import (
	"github.com/faultline-go/faultline/bench/internal/mutation"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const constructSrc = `package sub

import (
	"errors"
	"strconv"
)

type counter struct{ n int }

var errShort = errors.New("short")

func F(a, b int, x float64, s string, xs []int, m map[string]int, c *counter, ok bool, err error) (int, error) {
	if a < b {
		a = a + 1
	}
	y := x * 2.5
	_ = y
	if len(s) > 3 {
		return 0, errShort
	}
	v := xs[a+1]
	m["k"] += 2
	c.n = c.n - 1
	if ok && a > 0 {
		v++
	}
	if len(s) >= 9 || ok {
		v--
	}
	if err != nil {
		return 0, err
	}
	n, _ := strconv.Atoi(s)
	return g(a*2) + n + v, nil
}

func g(k int) int { return k }
`

// TestClassify checks the construct of a mutated token in each kind of
// code, and of a known fault's line.
func TestClassify(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/sub\n\ngo 1.22\n", "sub.go": constructSrc} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := newClassifier(root)
	if err != nil {
		t.Fatal(err)
	}
	// Each case: a unique snippet, the token in it that is mutated.
	cases := []struct{ snippet, token, want string }{
		{"a < b", "<", constructInt},
		{"a + 1", "+", constructInt},
		{"x * 2.5", "*", constructFloat},
		{"len(s) > 3", ">", constructString},
		{"len(s) > 3", "3", constructString},
		{"xs[a+1]", "1", constructSlice},
		{`m["k"] += 2`, "+=", constructMap},
		{"c.n - 1", "-", constructField},
		{"ok && a > 0", "&&", constructBool},
		{"len(s) >= 9 || ok", "||", constructBool},
		{"ok && a > 0", ">", constructInt},
		{"err != nil", "!=", constructError},
		{"g(a*2)", "*", constructCall},
		{"v++", "++", constructInt},
	}
	for _, tc := range cases {
		at := strings.Index(constructSrc, tc.snippet)
		if at < 0 || strings.Count(constructSrc, tc.snippet) != 1 {
			t.Fatalf("snippet %q not unique", tc.snippet)
		}
		off := at + strings.Index(tc.snippet, tc.token)
		site := &mutation.Site{File: "sub.go", Offset: off, Old: tc.token}
		if got := c.classify(site, Fault{File: "sub.go"}); got != tc.want {
			t.Errorf("%s in %q: %s, want %s", tc.token, tc.snippet, got, tc.want)
		}
	}
	line := strings.Count(constructSrc[:strings.Index(constructSrc, "return 0, errShort")], "\n") + 1
	if got := c.classify(nil, Fault{File: "sub.go", Lines: []int{line}}); got != constructError {
		t.Errorf("known fault on line %d (return 0, errShort): %s, want %s", line, got, constructError)
	}
	if got := c.classify(nil, Fault{File: "missing.go", Lines: []int{1}}); got != constructOther {
		t.Errorf("a file the module lacks: %s", got)
	}
}
