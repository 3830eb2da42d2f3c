package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// progressLines match the plain progress lines faultline prints on a
// standard error that is not a terminal.
var progressLines = regexp.MustCompile(`(?m)^faultline: \d\d:\d\d:\d\d .*\n`)

// withoutProgress is a standard error without its progress lines.
func withoutProgress(stderr string) string {
	return progressLines.ReplaceAllString(stderr, "")
}

// brokenModule is a module whose only package does not compile.
func brokenModule(t *testing.T) string {
	return writeModule(t, map[string]string{
		"go.mod":         "module example.com/broken\n\ngo 1.22\n",
		"broken.go":      "package broken\n\nfunc One() int { return undefinedName }\n",
		"broken_test.go": "package broken\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) { One() }\n",
	})
}

// Every command that runs tests shows the compiler's message and exits 1
// on a module that does not build, as go test does.
func TestBuildFailureExitsOneEverywhere(t *testing.T) {
	dir := brokenModule(t)
	txtartest.Git(t, dir, "init", "-q") // for explain
	store := t.TempDir()
	for _, args := range [][]string{
		{"rank"}, {"rank", "-format", "json"}, {"fix"}, {"explain"}, {"suggest"}, {"report", "-o", t.TempDir() + "/r.html"}, {"test"},
	} {
		stdout, stderr, code := faultlineWithStore(t, dir, store, args...)
		out := stderr
		if args[0] == "test" {
			out = stdout // go test's place for it
		}
		if code != 1 || !strings.Contains(out, "broken.go:3:25: undefined: undefinedName") || !strings.Contains(out, "FAIL\texample.com/broken [build failed]") {
			t.Errorf("faultline %s: exit %d, stdout %q, stderr %q; want exit 1 and the compiler's message", strings.Join(args, " "), code, stdout, stderr)
		}
		if strings.Contains(stdout, "no failing tests") {
			t.Errorf("faultline %s: says there are no failing tests of a module that does not build:\n%s", strings.Join(args, " "), stdout)
		}
	}
}

// Patterns and flags are checked as go test checks them: a pattern that
// selects no package of the module is an error, a test name given as a
// package gets a hint, a -run that matches no test is only a warning, and
// a usage error exits 2.
func TestExitCodesFollowGoTest(t *testing.T) {
	dir := copyModule(t, "../../examples/minmax")
	txtartest.Git(t, dir, "init", "-q") // for explain
	store := t.TempDir()
	for _, c := range []struct {
		args   []string
		code   int
		stderr []string
		stdout string
	}{
		{args: []string{"rank", "./nosuch/..."}, code: 1, stderr: []string{"faultline rank: pattern ./nosuch/...: lstat ./nosuch/: no such file or directory"}},
		{args: []string{"test", "./nosuch"}, code: 1, stderr: []string{"faultline test: pattern ./nosuch: ", "directory not found"}},
		{args: []string{"fix", "TestMax"}, code: 1, stderr: []string{"faultline fix: pattern TestMax: ", "TestMax looks like a test name, not a package: select tests with -run, as in faultline fix -run '^TestMax$'"}},
		{args: []string{"explain", "TestMax"}, code: 1, stderr: []string{"faultline explain: pattern TestMax: ", "select tests with -run"}},
		{args: []string{"rank", "-run", "NoSuchTest"}, code: 0, stderr: []string{`faultline: warning: no tests to run: -run "NoSuchTest" matches no test`}, stdout: "no tests to run: nothing to localize"},
		{args: []string{"rank", "-nosuchflag"}, code: 2, stderr: []string{"flag provided but not defined: -nosuchflag", "usage: faultline rank"}},
		{args: []string{"fix", "-max-size", "many"}, code: 2, stderr: []string{`invalid value "many" for flag -max-size`}},
		{args: []string{"rank", "-format", "yaml"}, code: 2, stderr: []string{`faultline rank: unknown -format "yaml"`, "Run 'faultline rank -h' for usage."}},
		{args: []string{"explain", "-strategy", "guess"}, code: 2, stderr: []string{"-strategy is after or ddmin"}},
		{args: []string{"nosuchcommand"}, code: 2, stderr: []string{`unknown command "nosuchcommand"`}},
		{args: []string{"version", "extra"}, code: 2, stderr: []string{"faultline version: takes no arguments"}},
		{args: []string{"rank", "-h"}, code: 0, stderr: []string{"usage: faultline rank"}},
	} {
		stdout, stderr, code := faultlineWithStore(t, dir, store, c.args...)
		name := "faultline " + strings.Join(c.args, " ")
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, c.code, stderr)
		}
		for _, want := range c.stderr {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", name, want, stderr)
			}
		}
		if c.stdout != "" && strings.TrimSpace(stdout) != c.stdout {
			t.Errorf("%s: stdout %q, want %q", name, stdout, c.stdout)
		}
	}
}

// faultline version and -version print the module version from the build
// information and the Go version, as gopls version does.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "-version", "--version"} {
		stdout, stderr, code := faultline(t, t.TempDir(), arg)
		if code != 0 || !regexp.MustCompile(`^faultline \S+ go1\.\d+\S*\n$`).MatchString(stdout) {
			t.Errorf("faultline %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}

// A second faultline test reuses the stored results and says so as go
// test does, with "(cached)" where the time was.
func TestTestCommandMarksCachedResults(t *testing.T) {
	dir := copyModule(t, "../../examples/minmax")
	store := t.TempDir()
	first, _, _ := faultlineWithStore(t, dir, store, "test")
	if strings.Contains(first, "(cached)") {
		t.Errorf("the first run is marked cached:\n%s", first)
	}
	second, _, code := faultlineWithStore(t, dir, store, "test")
	if code != 1 || !regexp.MustCompile(`(?m)^FAIL\texample\.com/minmax\t\(cached\)$`).MatchString(second) {
		t.Errorf("exit %d; the second run does not mark its reused result (cached):\n%s", code, second)
	}
}

// With standard error piped, as in CI, rank prints a plain line at each
// phase of the collection instead of staying silent until it ends.
func TestRankShowsProgressWhenPiped(t *testing.T) {
	_, stderr, code := faultline(t, copyModule(t, "../../examples/minmax"), "rank", "-angelic=false")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, phase := range []string{"building test binaries: 1 package, 0 unchanged", "running tests: ", "tests done: 1 package, 0 from the cache; tests run "} {
		if !regexp.MustCompile(`(?m)^faultline: \d\d:\d\d:\d\d ` + regexp.QuoteMeta(phase)).MatchString(stderr) {
			t.Errorf("stderr lacks the progress line %q:\n%s", phase, stderr)
		}
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "\x1b[") {
		t.Errorf("terminal control characters in a piped standard error: %q", stderr)
	}
}
