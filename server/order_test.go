package server

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/localize"
)

// switchFix is a verified fix of fakeModule's TestNextPositive on line 5,
// `x > 0` made false, found by predicate switching: the combined order puts
// line 5 above line 6, which Ochiai ranks first (line 6 runs in the failing
// test alone, line 5 in every test).
func switchFix(t testing.TB) localize.TestResult {
	t.Helper()
	r, err := analysis.UnmarshalResult([]byte(`{"Test":"TestNextPositive","Package":"example.com/fake","Candidates":[{"verified":true,"found":"switch",
		"locations":[{"file":"a.go","line":5,"col":5,"endLine":5,"endCol":10,"expr":"x > 0","original":"true","angelic":"false"}],
		"Force":[{"Site":1,"Act":1,"Local":1,"Value":0}],"Sources":{"a.go":"hash"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ranksOf reads the rank each diagnostic's data carries, by 0-based line.
func ranksOf(ds []protocol.Diagnostic) map[uint32]int {
	out := map[uint32]int{}
	for _, d := range ds {
		var data struct{ Rank int }
		if json.Unmarshal(d.Data, &data) == nil {
			out[d.Range.Start.Line] = data.Rank
		}
	}
	return out
}

func hasRanks(want map[uint32]int) func([]protocol.Diagnostic) bool {
	return func(ds []protocol.Diagnostic) bool { return fmt.Sprint(ranksOf(ds)) == fmt.Sprint(want) }
}

// The order setting reorders diagnostics, hints and the ranking at run
// time from the results and analyses the server holds (no new run, no new
// analysis), and the hover says in a sentence which order put a line where
// it is and on which evidence.
func TestOrderSettingAndWhy(t *testing.T) {
	loc := &fakeLocalizer{t: t, results: []localize.TestResult{switchFix(t)}}
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open, Localizer: loc.open})
	c.initialize(dir, `{"order":"combined"}`, protocol.ClientCapabilities{})
	src := uri.File(filepath.Join(dir, "a.go"))
	hover := func(line uint32) string {
		t.Helper()
		var h protocol.Hover
		c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, line), &h)
		return h.Contents.(*protocol.MarkupContent).Value
	}
	wantHover := func(line uint32, sentence string) {
		t.Helper()
		if text := hover(line); !strings.HasPrefix(text, "**faultline** · "+sentence+"\n") {
			t.Errorf("hover on line %d:\n%s\nwant it to start with\n%s", line+1, text, sentence)
		}
	}
	rankingNow := func() rankingResult {
		t.Helper()
		var r rankingResult
		c.mustCall(methodRanking, &rankingParams{}, &r)
		return r
	}

	// The combined order: the line hosting the fix first.
	c.waitDiagnostics("the combined order", src, hasRanks(map[uint32]int{4: 1, 5: 2}))
	wantHover(4, "Rank 1 of 3 under the combined order: it hosts a verified fix for the one analysed failing test (found by predicate switching), ochiai 0.577, executed by the one failing and all 2 passing tests.")
	wantHover(5, "Rank 2 of 3 under the combined order: it hosts no verified fix and comes after the line that does, ochiai 1, executed by the one failing and none of the 2 passing tests.")
	if r := rankingNow(); r.Order != "combined" || len(r.Lines) != 2 || r.Lines[0].Line != 5 || !strings.HasPrefix(r.Lines[0].Why, "Rank 1 of 3 under the combined order") {
		t.Errorf("faultline/ranking under the combined order: %+v", r)
	}
	collections, analyses := fake.collections(), loc.localizations()

	// The formula alone: Ochiai's order, the fix named but not weighed.
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"faultline":{"order":"formula"}}`)})
	c.waitDiagnostics("the formula's order", src, hasRanks(map[uint32]int{5: 1, 4: 2}))
	wantHover(4, "Rank 2 of 3 by ochiai alone: ochiai 0.577, it hosts a verified fix for the one analysed failing test, which this order does not weigh, executed by the one failing and all 2 passing tests.")
	if r := rankingNow(); r.Order != "formula" || r.Lines[0].Line != 6 {
		t.Errorf("faultline/ranking under the formula order: %+v", r)
	}

	// The learned order: the shipped model over every technique's
	// evidence, its strongest reasons named.
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"faultline":{"order":"learned"}}`)})
	model := localize.ShippedModel().Name
	var learned rankingResult
	c.waitFor("the learned order", func([]note) bool {
		learned = rankingNow()
		return learned.Order == "learned"
	})
	if learned.Model != model || len(learned.Lines) != 2 || len(learned.Lines[0].Because) == 0 {
		t.Fatalf("faultline/ranking under the learned order: %+v", learned)
	}
	top := learned.Lines[0]
	text := hover(uint32(top.Line - 1))
	t.Logf("under the learned order: %s", top.Why)
	// Of 5: the learned order adds Next's header and the if's closing
	// brace, which no test runs, next to the lines the failing test runs.
	prefix := fmt.Sprintf("**faultline** · Rank 1 of 5 under the learned order (model %s): weighed most by ", model)
	if !strings.HasPrefix(text, prefix) || !strings.Contains(text, "; executed by the one failing and ") || !strings.HasPrefix(text, "**faultline** · "+top.Why) {
		t.Errorf("hover on the learned order's first line:\n%s", text)
	}

	// Back to combined, and a value that is no order changes nothing.
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"faultline":{"order":"combined"}}`)})
	c.waitDiagnostics("the combined order again", src, hasRanks(map[uint32]int{4: 1, 5: 2}))
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"faultline":{"order":"best"}}`)})
	c.sync()
	if got := c.srv.currentSettings().Order; got != "combined" {
		t.Errorf("after an order that is none: %q", got)
	}
	if fake.collections() != collections || loc.localizations() != analyses {
		t.Errorf("changing the order ran the tests (%d → %d collections) or the analysis (%d → %d)", collections, fake.collections(), analyses, loc.localizations())
	}
	c.shutdown()
}
