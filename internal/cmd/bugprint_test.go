package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/bug"
)

// A bug report reaches the command line's standard error on one line,
// with where it was made.
func TestPrintBug(t *testing.T) {
	var out bytes.Buffer
	var bugs bug.Bugs
	stop := bugs.Handle(printBug(&out, false))
	bugs.Reportf("the width of %s, which is not a basic type", "*T")
	stop()
	bugs.Reportf("after the command")
	got := out.String()
	if !strings.HasPrefix(got, "faultline: internal bug") || !strings.Contains(got, "the width of *T, which is not a basic type (at ") ||
		!strings.Contains(got, "bugprint_test.go:") {
		t.Errorf("printed %q, want the report and its location", got)
	}
	if strings.Count(got, "\n") != 1 {
		t.Errorf("printed %q, want one line for the one report made while handled", got)
	}
}

// Under FAULTLINE_DEBUG the report carries its stack.
func TestPrintBugWithStack(t *testing.T) {
	var out bytes.Buffer
	var bugs bug.Bugs
	defer bugs.Handle(printBug(&out, true))()
	bugs.Reportf("a bad state")
	if got := out.String(); !strings.Contains(got, "a bad state (at ") || !strings.Contains(got, "goroutine ") || !strings.Contains(got, "TestPrintBugWithStack") {
		t.Errorf("printed %q, want the report and its stack", got)
	}
}
