package cmd

import "testing"

// TestNameMatcherLevels checks -run matching level by level, as go test
// does.
func TestNameMatcherLevels(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"TestA", "TestA", true},
		{"TestA", "TestAB/sub", true}, // unanchored, subtests follow
		{"^TestA$", "TestAB", false},
		{"^TestA$/^x$", "TestA/x", true},
		{"^TestA$/^x$", "TestA/y", false},
		{"^TestA$/^x$", "TestA", true}, // fewer levels: its subtests may match
		{"^TestA$/^x$", "TestA/x/deeper", true},
		{"Test[/]A", "Test/A", false}, // the slash in brackets is the name's, not a level
		{"(A|B)/c", "B/c", true},
		{"(A|B)/c", "B/d", false},
	} {
		match, err := testNameMatcher(c.pattern)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if got := match(c.name); got != c.want {
			t.Errorf("pattern %q, name %q: %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
	if _, err := testNameMatcher("(unclosed"); err == nil {
		t.Error("an invalid pattern gave no error")
	}
}
