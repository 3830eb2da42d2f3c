package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// A fault the formula cannot reach (a lookup keyed by a string whose key
// is not lower-cased) reaches the user through value replacement: fix
// prints the candidate on the faulty line and says how it was found, and
// rank puts that line first with its fix in the FIXES column and the JSON.
func TestReplacementReachesFixAndRank(t *testing.T) {
	dir := txtartest.Extract(t, filepath.Join("..", "..", "analysis", "testdata", "style.txtar"))
	store := t.TempDir()
	stdout, stderr, code := faultlineWithStore(t, dir, store, "fix")
	if code != 0 {
		t.Fatalf("fix: exit %d\n%s", code, stderr)
	}
	// The fix is shown as an edit of its source line.
	want := `style.go:16  key := strings.TrimSpace(level)  →  key := "error"`
	if !strings.Contains(stdout, "(verified, found by value replacement)") || !strings.Contains(stdout, want) {
		t.Errorf("fix does not show the replacement %s:\n%s", want, stdout)
	}
	stdout, stderr, code = faultlineWithStore(t, dir, store, "rank", "-json", "-order", "combined")
	if code != 0 {
		t.Fatalf("rank: exit %d\n%s", code, stderr)
	}
	var out struct {
		Lines []struct {
			File        string
			Line, Fixes int
		}
		Angelic struct {
			Fixes []struct {
				File  string
				Line  int
				Found string
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("rank -json: %v\n%s", err, stdout)
	}
	if len(out.Lines) == 0 || out.Lines[0].File != "style.go" || out.Lines[0].Line != 16 || out.Lines[0].Fixes != 1 {
		t.Errorf("first line %+v, want style.go:16 with one fix", out.Lines[:min(3, len(out.Lines))])
	}
	found := false
	for _, f := range out.Angelic.Fixes {
		found = found || f.File == "style.go" && f.Line == 16 && f.Found == "replacement"
	}
	if !found {
		t.Errorf("no fix at style.go:16 found by value replacement: %+v", out.Angelic.Fixes)
	}
	stdout, _, _ = faultlineWithStore(t, dir, store, "rank")
	if !strings.Contains(stdout, want+"  makes TestStyleUpper pass (found by value replacement)") {
		t.Errorf("rank does not show the fix as an edit and say how it was found:\n%s", stdout)
	}
}
