package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
)

// fix prints each note once with the tests it concerns, in the order the
// analysis made them, with the flag that lets it go further; a test whose
// failing check compares strings kept concrete is pointed to -strings.
func TestFixNotesOnceWithNextStep(t *testing.T) {
	noFix := "no fix of at most 2 locations: the failing check does not depend on modelled values, or needs more locations"
	fellBack := "fell back to predicate switching: one recorded Boolean flipped per run"
	cut := "predicate switching cut by the run or time bound"
	results := []localize.TestResult{
		{Test: "TestA", Package: "p", Notes: []string{noFix}, StringsConcrete: true},
		{Test: "TestB", Package: "p", Notes: []string{noFix}, StringsConcrete: true},
		{Test: "TestC", Package: "p", Notes: []string{cut}},
		{Test: "TestD", Package: "p", Notes: []string{noFix, fellBack, cut}},
		// A test with a verified fix needs no next step for its bound.
		{Test: "TestE", Package: "p", Notes: []string{"run bound (150) reached"}, StringsConcrete: true,
			Candidates: []localize.Candidate{{Verified: true, Found: localize.FoundBySolver}}},
	}
	var out bytes.Buffer
	writeFixText(&out, results, nil)
	text := out.String()
	for _, note := range []string{noFix, fellBack, cut} {
		if n := strings.Count(text, note); n != 1 {
			t.Errorf("%q printed %d times, want once:\n%s", note, n, text)
		}
	}
	for _, want := range []string{
		noFix + " (TestA, TestB, TestD)\n    next: rerun with -max-size 3 to search larger fixes\n",
		fellBack + " (TestD)\n",
		cut + " (TestC, TestD)\n    next: rerun with a larger -max-runs or -budget\n",
		stringsNote + " (TestA, TestB)\n    next: rerun with -strings to model them (slower)\n",
		"run bound (150) reached (TestE)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "run bound (150) reached (TestE)\n    next:") {
		t.Errorf("a next step for a test that has a verified fix:\n%s", text)
	}
	if strings.Index(text, stringsNote) > strings.Index(text, fellBack) {
		t.Errorf("the strings note is not beside the formula's no-fix note:\n%s", text)
	}
	// TestC noted the cut alone; TestD says the fallback came first.
	if strings.Index(text, fellBack) > strings.Index(text, cut) {
		t.Errorf("the cut is noted before the fallback it cut:\n%s", text)
	}
}

// rank and fix say a per-test note of the service once, with its tests,
// and how to analyse every failing test when only the first were.
func TestServiceNotesOnce(t *testing.T) {
	var out bytes.Buffer
	writeServiceNotes(&out, []string{
		"analysed the first 2 of 5 failing tests",
		"TestA: not analysed: the package does not build instrumented",
		"TestB: not analysed: the package does not build instrumented",
	})
	want := "faultline: analysed the first 2 of 5 failing tests; -max-analyzed 5 analyses them all\n" +
		"faultline: not analysed: the package does not build instrumented (TestA, TestB)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
