//go:build linux

package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// rankedLine is what rank -json and faultline/ranking both say of a line.
type rankedLine struct {
	File  string  `json:"file"`
	Line  int     `json:"line"`
	Score float64 `json:"score"`
	Rank  int     `json:"rank"`
	Tie   [2]int  `json:"tie"`
	EF    int     `json:"ef"`
	EP    int     `json:"ep"`
	NF    int     `json:"nf"`
	NP    int     `json:"np"`
	Fixes int     `json:"fixes"`
}

type rankedLines struct {
	Formula string       `json:"formula"`
	Order   string       `json:"order"`
	Failed  int          `json:"failed"`
	Passed  int          `json:"passed"`
	Lines   []rankedLine `json:"lines"`
}

// failingRun keeps the lines a failing test runs: the server lists only those.
func (r rankedLines) failingRun() rankedLines {
	var kept []rankedLine
	for _, l := range r.Lines {
		if l.EF > 0 {
			kept = append(kept, l)
		}
	}
	r.Lines = kept
	return r
}

func (r rankedLines) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s, %d failing, %d passing\n", r.Formula, r.Order, r.Failed, r.Passed)
	for _, l := range r.Lines {
		fmt.Fprintf(&b, "%d %s:%d %.4f tie %v ef %d ep %d fixes %d\n", l.Rank, l.File, l.Line, l.Score, l.Tie, l.EF, l.EP, l.Fixes)
	}
	return b.String()
}

// With default settings, the editor shows what faultline rank prints: the
// same lines in the same combined order, the first diagnostic on rank's
// first line, and the angelic values as hints and in the diagnostics.
func TestServeAgreesWithRank(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tests and the analysis of an example; skipped with -short")
	}
	dir := copyModule(t, "../../examples/booking")
	stdout, stderr, code := faultline(t, dir, "rank", "-json")
	if code != 0 {
		t.Fatalf("rank -json: exit %d\n%s", code, stderr)
	}
	var ranked rankedLines
	if err := json.Unmarshal([]byte(stdout), &ranked); err != nil {
		t.Fatalf("rank -json: %v\n%s", err, stdout)
	}
	want := ranked.failingRun()
	angelic := localize.AnalysisAvailable() == nil
	// fixed is the first line that hosts a verified fix: the editor shows
	// its angelic value.
	var fixed *rankedLine
	for i := range want.Lines {
		if fixed == nil && want.Lines[i].Fixes > 0 {
			fixed = &want.Lines[i]
		}
	}
	if angelic && (want.Order != localize.ShippedModel().Default || fixed == nil) {
		t.Fatalf("rank found no verified angelic fix or not in the default order:\n%s", want)
	}

	p := startServe(t, dir)
	p.initialize(dir, nil, trustingClient)
	var got rankedLines
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if err := json.Unmarshal(p.call("faultline/ranking", map[string]any{}), &got); err != nil {
			t.Fatal(err)
		}
		if got.String() == want.String() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("faultline/ranking never agreed with rank -json; last:\n%s\nwant:\n%s", got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The most suspicious diagnostic is on rank's first line; the first
	// line hosting a fix carries it in its diagnostic and as a hint.
	first := want.Lines[0]
	uri := func(l rankedLine) string { return "file://" + filepath.Join(dir, filepath.FromSlash(l.File)) }
	type diagnostic struct {
		Range struct {
			Start struct{ Line int }
		}
		Severity int
		Message  string
		Data     struct{ Rank int }
	}
	waitFor := func(l rankedLine, what string, ok func(d diagnostic) bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			var diags struct{ Diagnostics []diagnostic }
			params := p.lastNotification("textDocument/publishDiagnostics", uri(l))
			if params != nil {
				if err := json.Unmarshal(params, &diags); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range diags.Diagnostics {
				if d.Range.Start.Line == l.Line-1 && ok(d) {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s on %s:%d; last diagnostics of the file: %s", what, l.File, l.Line, params)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitFor(first, "rank-1 diagnostic", func(d diagnostic) bool { return d.Data.Rank == 1 })
	if !angelic {
		return
	}
	waitFor(*fixed, "diagnostic carrying its angelic fix", func(d diagnostic) bool {
		return d.Data.Rank == fixed.Rank && strings.Contains(d.Message, "\nangelic fix: ")
	})
	var hints []struct {
		Position struct{ Line int }
		Label    string
	}
	raw := p.call("textDocument/inlayHint", map[string]any{
		"textDocument": map[string]any{"uri": uri(*fixed)},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1000, "character": 0}},
	})
	if err := json.Unmarshal(raw, &hints); err != nil {
		t.Fatalf("inlay hints %s: %v", raw, err)
	}
	found := false
	for _, h := range hints {
		if h.Position.Line == fixed.Line-1 && strings.HasPrefix(h.Label, "⇒ ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no angelic value hinted on %s:%d; hints %s", fixed.File, fixed.Line, raw)
	}

	// The order setting at run time: the server's combined order is rank's,
	// made from what the server holds.
	stdout, stderr, code = faultline(t, dir, "rank", "-json", "-order", "combined")
	if code != 0 {
		t.Fatalf("rank -json -order combined: exit %d\n%s", code, stderr)
	}
	var combined rankedLines
	if err := json.Unmarshal([]byte(stdout), &combined); err != nil {
		t.Fatalf("rank -json -order combined: %v\n%s", err, stdout)
	}
	want = combined.failingRun()
	p.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"faultline": map[string]any{"order": "combined"}}})
	for deadline = time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if err := json.Unmarshal(p.call("faultline/ranking", map[string]any{}), &got); err != nil {
			t.Fatal(err)
		}
		if want.Order == localize.OrderCombined && got.String() == want.String() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("faultline/ranking under the combined order never agreed with rank -json -order combined; last:\n%s\nwant:\n%s", got, want)
		}
	}
}
