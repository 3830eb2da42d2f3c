package main

import (
	"errors"
	"strings"
	"testing"
)

// rankJSON is a rank -json output with five failing tests, four with a
// result.
func rankJSON(notes ...string) []byte {
	quoted := make([]string, len(notes))
	for i, n := range notes {
		quoted[i] = `"` + n + `"`
	}
	return []byte(`{"failed": 3, "passed": 5, "lines": [{"file": "a.go", "line": 3}],
  "angelic": {"failing": 5, "analyzed": 4, "fixes": [{"test": "TestA"}, {"test": "TestA"}],
  "notes": [` + strings.Join(quoted, ",") + `]}}`)
}

func TestScanCountsEveryKindOfFailure(t *testing.T) {
	stderr := "progress\nfaultline: internal bug (please report it): the width of *T, which is not a basic type (at sites.go:117)\n" +
		"faultline: TestA: not analysed: faultline failed on this test: interface conversion\n" // a note, repeated
	s := scan(rankJSON(
		"TestA: not analysed: faultline failed on this test: interface conversion",
		"TestB: not analysed: the analysis ended abnormally: signal: killed",
		"TestC: not analysed: the analysis outlived its time bound and was stopped",
		"TestD: not analysed: reading the value summary: bufio.Scanner: token too long",
		"analysed the first 2 of 3 failing tests",
	), []byte(stderr), nil)
	// Five failing tests, four results, all four notes; the fifth has no
	// result, which counts as stopped by the whole analysis's time bound.
	if s.failing != 5 || s.ended != 0 || s.found != 1 || s.bounded != 2 {
		t.Errorf("failing %d, ended %d, with a fix %d, bounded %d; want 5, 0, 1, 2", s.failing, s.ended, s.found, s.bounded)
	}
	if s.errors != 1 || s.panics != 1 || s.bugs != 1 || s.abnormal != 1 || s.rankFailed {
		t.Errorf("errors %d, panics %d, bugs %d, abnormal %d, rank failed %v; want 1, 1, 1, 1, false",
			s.errors, s.panics, s.bugs, s.abnormal, s.rankFailed)
	}
	if len(s.evidence) != 4 || len(s.boundNotes) != 1 {
		t.Errorf("evidence %q, bounds %q: want one line per failure, the bound apart", s.evidence, s.boundNotes)
	}
}

// A test whose analysis the ranking's time kept from starting is bounded,
// not an error.
func TestScanRankingTimeBound(t *testing.T) {
	s := scan(rankJSON("TestE: not analysed: the time for this ranking's analyses ran out before it started; it is analysed next time"), nil, nil)
	if s.errors != 0 || s.bounded != 2 || s.ended != 3 {
		t.Errorf("errors %d, bounded %d, ended %d; want 0, 2, 3", s.errors, s.bounded, s.ended)
	}
}

func TestScanCleanRun(t *testing.T) {
	s := scan(rankJSON(), []byte("collecting\n"), nil)
	if s.errors+s.panics+s.bugs+s.abnormal != 0 || s.bounded != 1 || s.ended != 4 || s.rankFailed || len(s.evidence) != 0 {
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
