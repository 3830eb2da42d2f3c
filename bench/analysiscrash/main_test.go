package main

import (
	"errors"
	"strings"
	"testing"
)

// rankJSON is a rank -json output with three failing tests, two analysed.
func rankJSON(notes ...string) []byte {
	quoted := make([]string, len(notes))
	for i, n := range notes {
		quoted[i] = `"` + n + `"`
	}
	return []byte(`{"failed": 3, "passed": 5, "lines": [{"file": "a.go", "line": 3}],
  "angelic": {"failing": 3, "analyzed": 2, "fixes": [{"test": "TestA"}, {"test": "TestA"}],
  "notes": [` + strings.Join(quoted, ",") + `]}}`)
}

func TestScanCountsEveryKindOfFailure(t *testing.T) {
	stderr := "progress\nfaultline: internal bug (please report it): the width of *T, which is not a basic type (at sites.go:117)\n"
	s := scan(rankJSON(
		"TestA: not analysed: faultline failed on this test: interface conversion",
		"TestB: not analysed: the analysis ended abnormally: signal: killed",
		"TestC: not analysed: the analysis outlived its time bound and was stopped",
		"analysed the first 2 of 3 failing tests",
	), []byte(stderr), nil)
	if s.failing != 3 || s.analysed != 2 || s.found != 1 {
		t.Errorf("failing %d, analysed %d, with a fix %d; want 3, 2, 1", s.failing, s.analysed, s.found)
	}
	if s.panics != 1 || s.bugs != 1 || s.abnormal != 1 || s.lost != 1 || s.rankFailed {
		t.Errorf("panics %d, bugs %d, abnormal %d, lost %d, rank failed %v; want 1, 1, 1, 1, false",
			s.panics, s.bugs, s.abnormal, s.lost, s.rankFailed)
	}
	if len(s.evidence) != 3 {
		t.Errorf("evidence %q, want one line per failure", s.evidence)
	}
}

func TestScanCleanRun(t *testing.T) {
	s := scan(rankJSON(), []byte("collecting\n"), nil)
	if s.panics+s.bugs+s.abnormal+s.lost != 0 || s.rankFailed || len(s.evidence) != 0 {
		t.Errorf("a clean run scanned as %+v", s)
	}
}

func TestScanRankThatDidNotFinish(t *testing.T) {
	stderr := "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n"
	s := scan(nil, []byte(stderr), errors.New("exit status 2"))
	if !s.rankFailed || s.panics != 1 {
		t.Errorf("a crashed rank scanned as %+v, want a rank failure and a panic", s)
	}
	// No ranked line is a failure too: the formula must rank whatever the
	// analysis does.
	if s := scan([]byte(`{"failed": 1, "lines": []}`), nil, nil); !s.rankFailed {
		t.Errorf("an empty ranking scanned as %+v, want a rank failure", s)
	}
}

func TestPackageOf(t *testing.T) {
	for file, want := range map[string]string{
		"a.go":       "example.com/m",
		"sub/b.go":   "example.com/m/sub",
		"x/y/c.go":   "example.com/m/x/y",
		"./d.go":     "example.com/m",
		"sub/./e.go": "example.com/m/sub",
	} {
		if got := packageOf("example.com/m", file); got != want {
			t.Errorf("packageOf(%q) = %q, want %q", file, got, want)
		}
	}
}
