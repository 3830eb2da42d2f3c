package sarif

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/faultline-go/faultline/internal/export/exporttest"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
)

// log is the part of a SARIF log the tests read.
type log struct {
	Version string
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string
				Rules []struct{ ID string }
			}
		}
		OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
		Results            *[]logResult
	}
}

type logResult struct {
	RuleID    string
	Level     string
	Message   struct{ Text string }
	Locations []struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI       string
				URIBaseID string `json:"uriBaseId"`
			}
			Region struct{ StartLine int }
		}
	}
	PartialFingerprints map[string]string
	Properties          map[string]any
	Fixes               []struct {
		Description     struct{ Text string }
		ArtifactChanges []struct {
			Replacements []struct {
				DeletedRegion   struct{ StartLine, StartColumn, EndLine, EndColumn int }
				InsertedContent struct{ Text string }
			}
		}
		Properties map[string]any
	}
}

func write(t *testing.T, loc *localize.Localization, opts Options) (log, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, loc, opts); err != nil {
		t.Fatal(err)
	}
	var l log
	if err := json.Unmarshal(buf.Bytes(), &l); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
	}
	return l, buf.Bytes()
}

// validate checks a written log against the SARIF schema.
func validate(t *testing.T, data []byte) {
	t.Helper()
	report, err := sarif.FromBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLogValidatesAgainstTheSchema(t *testing.T) {
	_, data := write(t, exporttest.Module(t), Options{})
	validate(t, data)
}

func TestFingerprintKeyNamesTheMember(t *testing.T) {
	field, _ := reflect.TypeOf(partialFingerprints{}).FieldByName("LineHash")
	if tag := field.Tag.Get("json"); tag != FingerprintKey {
		t.Errorf("partial fingerprint written as %q, documented as %q", tag, FingerprintKey)
	}
}

func TestResultsCarryTheRanking(t *testing.T) {
	loc := exporttest.Module(t)
	l, raw := write(t, loc, Options{Top: 3})
	if l.Version != "2.1.0" || len(l.Runs) != 1 || l.Runs[0].Tool.Driver.Name != "faultline" || l.Runs[0].Tool.Driver.Rules[0].ID != RuleID {
		t.Fatalf("log header: %s", raw[:400])
	}
	if base := l.Runs[0].OriginalURIBaseIDs[SourceRoot].URI; base != "file://"+filepath.ToSlash(loc.Matrix.Root)+"/" {
		t.Errorf("%s is %q", SourceRoot, base)
	}
	results := *l.Runs[0].Results
	if len(results) != 3 {
		t.Fatalf("%d results, want 3 (-top)", len(results))
	}
	first := results[0]
	loc0 := first.Locations[0].PhysicalLocation
	if loc0.ArtifactLocation.URI != "price/price.go" || loc0.ArtifactLocation.URIBaseID != SourceRoot || loc0.Region.StartLine != exporttest.FaultLine {
		t.Errorf("first result at %+v, want price/price.go:%d relative to %s", loc0, exporttest.FaultLine, SourceRoot)
	}
	want := loc.Ranking.Lines[0]
	for key, value := range map[string]any{"rank": 1.0, "score": want.Score, "ef": 2.0, "ep": 3.0, "nf": 0.0, "np": 0.0, "verifiedFixes": 1.0, "function": "Total", "formula": "ochiai", "order": "combined"} {
		if first.Properties[key] != value {
			t.Errorf("property %s = %v, want %v", key, first.Properties[key], value)
		}
	}
	if tie, _ := json.Marshal(first.Properties["tie"]); string(tie) != "[1,1]" {
		t.Errorf("tie %s", tie)
	}
	if !strings.Contains(first.Message.Text, "rank 1 of 6") || !strings.Contains(first.Message.Text, "makes TestTotal/at_100,_discounted pass") {
		t.Errorf("message %q", first.Message.Text)
	}
	// The second and third lines tie with others: the message says so.
	if tie := loc.Ranking.Lines[2].Tie; tie[0] == tie[1] || !strings.Contains(results[2].Message.Text, "tied at ranks") {
		t.Errorf("tie %v, message %q", tie, results[2].Message.Text)
	}
}

// A verified angelic value is a fix that replaces its source line by the
// line with the value written over the expression, its columns counted in
// Unicode code points as the log declares; the fix and the result's
// message show that edit.
func TestAngelicValuesAreFixes(t *testing.T) {
	l, _ := write(t, exporttest.Module(t), Options{})
	results := *l.Runs[0].Results
	if len(results[0].Fixes) != 1 {
		t.Fatalf("fixes %+v", results[0].Fixes)
	}
	fix := results[0].Fixes[0]
	repl := fix.ArtifactChanges[0].Replacements[0]
	// "\tif tötal > 100 {": 18 bytes, 17 code points.
	if r := repl.DeletedRegion; r.StartLine != 9 || r.StartColumn != 1 || r.EndLine != 9 || r.EndColumn != 18 {
		t.Errorf("deleted region %+v, want 9:1-9:18", r)
	}
	if repl.InsertedContent.Text != "\tif true {" || fix.Properties["test"] != exporttest.TestNames[0] || fix.Properties["original"] != "false" {
		t.Errorf("fix %+v", fix)
	}
	edit := "price/price.go:9  if tötal > 100 {  →  if true {  makes " + exporttest.TestNames[0] + " pass"
	if !strings.Contains(fix.Description.Text, edit) {
		t.Errorf("fix description %q does not show the edit %q", fix.Description.Text, edit)
	}
	if !strings.Contains(results[0].Message.Text, edit) {
		t.Errorf("message %q does not show the edit %q", results[0].Message.Text, edit)
	}
	for _, r := range results[1:] {
		if len(r.Fixes) != 0 {
			t.Errorf("a fix on line %d", r.Locations[0].PhysicalLocation.Region.StartLine)
		}
	}
}

// A line keeps its fingerprint when lines above it move, and loses it when
// it is edited.
func TestFingerprintsFollowTheText(t *testing.T) {
	loc := exporttest.Module(t)
	fingerprints := func(source string) map[string]string {
		l, _ := write(t, loc, Options{})
		out := map[string]string{}
		for _, r := range *l.Runs[0].Results {
			text := strings.Split(source, "\n")[r.Locations[0].PhysicalLocation.Region.StartLine-1]
			out[strings.TrimSpace(text)] = r.PartialFingerprints[FingerprintKey]
		}
		return out
	}
	before := fingerprints(exporttest.Source)
	if len(before) != 6 {
		t.Fatalf("fingerprints %v", before)
	}
	seen := map[string]bool{}
	for _, fp := range before {
		if seen[fp] {
			t.Errorf("two lines share the fingerprint %s", fp)
		}
		seen[fp] = true
	}
	path := filepath.Join(loc.Matrix.Root, "price", "price.go")
	shifted := strings.Replace(exporttest.Source, "// Total", "// Package note.\n\n// Total", 1)
	if err := os.WriteFile(path, []byte(shifted), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range loc.Ranking.Lines {
		loc.Ranking.Lines[i].Line += 2
	}
	after := fingerprints(shifted)
	for text, fp := range before {
		if after[text] != fp {
			t.Errorf("%q: fingerprint %s became %s after moving two lines down", text, fp, after[text])
		}
	}
	edited := strings.Replace(shifted, "tötal > 100", "tötal >= 100", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if fp := fingerprints(edited)["if tötal >= 100 {"]; fp == "" || fp == before["if tötal > 100 {"] {
		t.Errorf("the edited line kept its fingerprint %s", fp)
	}
}

// No failing test: a valid log whose results are an empty list, so that
// an upload step has something to take.
func TestNoFailureGivesAnEmptyLog(t *testing.T) {
	loc := exporttest.Module(t)
	for i := range loc.Matrix.Tests {
		if loc.Matrix.Tests[i].Verdict.Failing() {
			loc.Matrix.Tests[i].Verdict = spectra.Pass
		}
	}
	r, err := localize.RankFormula(loc.Matrix, nil)
	if err != nil {
		t.Fatal(err)
	}
	loc.Ranking, loc.Angelic = r, nil
	l, raw := write(t, loc, Options{})
	if l.Runs[0].Results == nil || len(*l.Runs[0].Results) != 0 {
		t.Errorf("results: %s", raw)
	}
	validate(t, raw)
}

// Inside a repository, URIs are relative to its root, where code scanning
// resolves them.
func TestURIsRelativeToTheRepository(t *testing.T) {
	loc := exporttest.Module(t)
	repo := t.TempDir()
	module := filepath.Join(repo, "services", "shop")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(module), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(loc.Matrix.Root, module); err != nil {
		t.Fatal(err)
	}
	loc.Matrix.Root = module
	l, _ := write(t, loc, Options{})
	if uri := (*l.Runs[0].Results)[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "services/shop/price/price.go" {
		t.Errorf("URI %q, want services/shop/price/price.go", uri)
	}
}

func TestPrune(t *testing.T) {
	in := `{"a":{"index":-1,"x":"\"index\":-1,","arr":[],"results":[],"n":[1],"byteOffset":-10},"index":-1,"tail":[]}`
	want := `{"a":{"x":"\"index\":-1,","results":[],"n":[1],"byteOffset":-10}}`
	if got := string(prune([]byte(in))); got != want {
		t.Errorf("prune:\n got %s\nwant %s", got, want)
	}
}

// A verified operator fix is a fix of its line after the indentation; a
// removed statement's deletes the whole line.
func TestOperatorFixesAreFixes(t *testing.T) {
	for _, c := range []struct {
		name          string
		fix           localize.OperatorFix
		deleted       [4]int // start line, column, end line, column
		inserted, say string
	}{
		// "\tif tötal > 100 {": the tab kept, up to code point 18.
		{"swap", localize.OperatorFix{File: "price/price.go", Line: 9, Operator: "boundary", Change: "> → >=", Edited: "if tötal >= 100 {", Fixed: 1},
			[4]int{9, 2, 9, 18}, "if tötal >= 100 {", "Operator fix: price/price.go:9  if tötal >= 100 {"},
		{"removal", localize.OperatorFix{File: "price/price.go", Line: 9, Operator: "removal", Change: "removed", Fixed: 1},
			[4]int{9, 1, 10, 1}, "", "Operator fix: price/price.go:9  (the statement removed"},
	} {
		loc := exporttest.Module(t)
		loc.Mutation = &localize.Mutation{Fixes: []localize.OperatorFix{c.fix}}
		l, _ := write(t, loc, Options{})
		results := *l.Runs[0].Results
		fixes := results[0].Fixes
		if len(fixes) != 2 {
			t.Fatalf("%s: fixes %+v", c.name, fixes)
		}
		repl := fixes[1].ArtifactChanges[0].Replacements[0]
		if r := repl.DeletedRegion; [4]int{r.StartLine, r.StartColumn, r.EndLine, r.EndColumn} != c.deleted {
			t.Errorf("%s: deleted region %+v, want %v", c.name, r, c.deleted)
		}
		if repl.InsertedContent.Text != c.inserted || fixes[1].Properties["change"] != c.fix.Change {
			t.Errorf("%s: operator fix %+v", c.name, fixes[1])
		}
		if !strings.Contains(results[0].Message.Text, c.say) {
			t.Errorf("%s: message %q does not show the operator fix", c.name, results[0].Message.Text)
		}
	}
}
