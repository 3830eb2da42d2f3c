package spectra

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The instrumented build works in modules declaring a Go older than its
// runtime's source needs, or none at all.
func TestCollectOldLanguageVersions(t *testing.T) {
	for _, directive := range []string{"go 1.11", ""} {
		t.Run(strings.ReplaceAll(directive, " ", ""), func(t *testing.T) {
			ws, _ := workspace(t, "oldgo.txtar")
			writeFile(t, filepath.Join(ws.Root(), "go.mod"), "module example.com/oldgo\n\n"+directive+"\n")
			m, _ := collect(t, ws, time.Minute)
			if len(m.BuildErrors) != 0 {
				t.Fatalf("build errors: %v", m.BuildErrors)
			}
			if len(m.Tests) != 4 {
				t.Fatalf("%d tests, want 4: %+v", len(m.Tests), m.Tests)
			}
			for _, test := range m.Tests {
				if test.Verdict != Pass || len(executedLines(m, test, "old.go")) == 0 {
					t.Errorf("%s: %v, executed %v of old.go", test.Name, test.Verdict, executedLines(m, test, "old.go"))
				}
			}
		})
	}
}
