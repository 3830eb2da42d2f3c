package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
)

// tableRow is one row of the text table, by column name.
type tableRow map[string]string

// parseRankTable reads the table of faultline rank's text output: the
// header row and the rows up to the first blank line, columns apart by two
// or more spaces.
func parseRankTable(t *testing.T, text string) []tableRow {
	t.Helper()
	split := regexp.MustCompile(`\s{2,}`)
	var header []string
	var rows []tableRow
	for _, line := range strings.Split(text, "\n") {
		if header == nil {
			if strings.HasPrefix(line, "RANK") {
				header = split.Split(strings.TrimSpace(line), -1)
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			break
		}
		cells := split.Split(strings.TrimSpace(line), -1)
		row := tableRow{}
		for i, name := range header {
			if i < len(cells) {
				row[name] = cells[i]
			}
		}
		rows = append(rows, row)
	}
	if header == nil {
		t.Fatalf("no table in:\n%s", text)
	}
	return rows
}

// tableLocalization is a small localization under each order: six lines
// whose formula order the learned model and the verified fixes overturn,
// two pairs of lines with the same counts.
func tableLocalization(t *testing.T, order string) *localize.Localization {
	t.Helper()
	formula := &localize.Ranking{Formula: "ochiai", Order: localize.OrderFormula, Failed: 2, Passed: 4}
	for i, s := range []struct {
		score  float64
		ef, ep int
		tie    [2]int
	}{{0.9, 2, 1, [2]int{1, 1}}, {0.8, 2, 2, [2]int{2, 3}}, {0.8, 2, 2, [2]int{2, 3}}, {0.6, 2, 3, [2]int{4, 5}}, {0.6, 2, 3, [2]int{4, 5}}, {0.4, 1, 3, [2]int{6, 6}}} {
		formula.Lines = append(formula.Lines, localize.RankedLine{File: "a.go", Line: i + 1, Score: s.score, Rank: i + 1, Tie: s.tie,
			EF: s.ef, EP: s.ep, NF: 2 - s.ef, NP: 4 - s.ep})
	}
	fix := func(line int) localize.Candidate {
		return localize.Candidate{Verified: true, Locations: []localize.Location{{File: "a.go", Line: line, EndLine: line}}}
	}
	results := []localize.TestResult{{Test: "T1", Candidates: []localize.Candidate{fix(5), fix(6)}}, {Test: "T2", Candidates: []localize.Candidate{fix(5)}}}
	loc := &localize.Localization{Matrix: &localize.Matrix{}, Formula: formula, Ranking: formula,
		Angelic: &localize.Angelic{Failing: 2, Analyzed: 2, Results: results}}
	switch order {
	case localize.OrderCombined:
		loc.Ranking = localize.Combine(formula, results)
	case localize.OrderLearned:
		// Lines 5 and 6 host fixes; 2 and 3 have the same evidence.
		ev := &localize.Evidence{Columns: map[string][]float64{
			"angelic.mcs":      {0, 0, 0, 0, 1, 0.5},
			"spectrum.ochiai":  {0.9, 0.8, 0.8, 0.6, 0.6, 0.4},
			"static.stackFunc": {0, 1, 1, 0, 0, 0},
		}}
		m := &localize.Model{Name: "test", Window: 5, Weights: map[string]float64{"angelic.mcs": 2, "spectrum.ochiai": 1, "static.stackFunc": 0.5}}
		learned, err := localize.Learned(formula, ev, m)
		if err != nil {
			t.Fatal(err)
		}
		loc.Ranking = learned
	}
	return loc
}

// TestRankTextTable: under each order SCORE is the order's own score, so
// it never rises as RANK grows; the formula's score has its own column
// when the order is another; rows share a TIED group exactly when the
// order gives them the same score; BECAUSE speaks plain words, each
// explained in the legend under the table.
func TestRankTextTable(t *testing.T) {
	for _, order := range []string{localize.OrderFormula, localize.OrderCombined, localize.OrderLearned} {
		t.Run(order, func(t *testing.T) {
			loc := tableLocalization(t, order)
			var buf bytes.Buffer
			if err := writeRankingText(&buf, loc, loc.Ranking.Lines, nil); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			rows := parseRankTable(t, text)
			if len(rows) != 6 {
				t.Fatalf("%d rows, want 6:\n%s", len(rows), text)
			}
			_, hasFormula := rows[0]["OCHIAI"]
			if hasFormula != (order != localize.OrderFormula) {
				t.Errorf("an OCHIAI column: %v under the %s order\n%s", hasFormula, order, text)
			}
			prev, unscored := 0.0, false
			for i, r := range rows {
				if r["RANK"] != strconv.Itoa(i+1) {
					t.Errorf("row %d has RANK %s", i+1, r["RANK"])
				}
				if r["SCORE"] == "-" {
					unscored = true
					continue
				}
				s, err := strconv.ParseFloat(r["SCORE"], 64)
				if err != nil {
					t.Fatalf("row %d: SCORE %q: %v", i+1, r["SCORE"], err)
				}
				if unscored || i > 0 && s > prev {
					t.Errorf("row %d: SCORE %s after %g: it must fall as RANK grows\n%s", i+1, r["SCORE"], prev, text)
				}
				prev = s
			}
			// TIED names each row's group; rows of one group and only
			// they have the same scores.
			for i, a := range rows {
				for j, b := range rows {
					if i == j {
						continue
					}
					sameGroup := a["TIED"] != "-" && a["TIED"] == b["TIED"]
					sameScores := a["SCORE"] != "-" && a["SCORE"] == b["SCORE"] && a["OCHIAI"] == b["OCHIAI"]
					if sameGroup != sameScores {
						t.Errorf("rows %d and %d: TIED %q and %q, scores %s/%s and %s/%s\n%s", i+1, j+1, a["TIED"], b["TIED"],
							a["SCORE"], a["OCHIAI"], b["SCORE"], b["OCHIAI"], text)
					}
				}
			}
			_, legend, ok := strings.Cut(text, "\n\nSCORE:")
			if !ok {
				t.Fatalf("no legend under the table:\n%s", text)
			}
			legend = "SCORE:" + legend
			for _, want := range []string{"SCORE:", "EF/EP:", "FIXES:", "TIED:"} {
				if !strings.Contains(legend, want) {
					t.Errorf("the legend under the table does not explain %s:\n%s", want, text)
				}
			}
			if order != localize.OrderLearned {
				return
			}
			for _, r := range rows {
				for _, term := range strings.Split(r["BECAUSE"], ", ") {
					if term == "" {
						continue
					}
					if strings.Contains(term, ".") {
						t.Errorf("BECAUSE names %q, an internal column name", term)
					}
					if !strings.Contains(legend, "\n  "+term+"  ") {
						t.Errorf("the legend does not explain %q:\n%s", term, text)
					}
				}
			}
		})
	}
}

// TestRankFunctionsOutput: rank's text output tables the functions under
// the lines, each placed by its best line, and -json gives them all in an
// added "functions" field, or the -functions most suspicious.
func TestRankFunctionsOutput(t *testing.T) {
	loc := tableLocalization(t, localize.OrderFormula)
	// Ranked lines 1-6: line 1 a package-level declaration, 2-4 in A, 5 in B, 6 in C,
	// block i holding line i+1. Only the failing tests run B, so B comes
	// first by its own spectrum, the other three tie.
	loc.Matrix = &localize.Matrix{Root: t.TempDir(), Tests: []localize.TestRun{
		{Name: "F1", Verdict: localize.VerdictFail, Hits: localize.NewHits(4)},
		{Name: "F2", Verdict: localize.VerdictFail, Hits: localize.NewHits(4)},
		{Name: "P1", Verdict: localize.VerdictPass, Hits: localize.NewHits(1, 2, 3)},
		{Name: "P2", Verdict: localize.VerdictPass, Hits: localize.NewHits(0, 5)},
	}}
	for line := 1; line <= 6; line++ {
		loc.Matrix.Blocks = append(loc.Matrix.Blocks, localize.Block{File: "a.go", Lines: []int{line}})
	}
	src := "package p\nfunc A() {\n\t_ = 1\n}\nfunc B() { _ = 2 }\nfunc C() {}\n"
	if err := os.WriteFile(filepath.Join(loc.Matrix.Root, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(format string, functions int) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), "out")
		out, err := newRankDestination(format, false, path, 0, functions)
		if err != nil {
			t.Fatal(err)
		}
		if err := out.write(rankResult{loc: loc}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	text := write("text", 0)
	_, after, ok := strings.Cut(text, "most suspicious functions")
	if !ok {
		t.Fatalf("no function table in:\n%s", text)
	}
	rows := parseRankTable(t, after)
	want := [][2]string{{"package-level declarations in a.go", "a.go"}, {"A", "a.go:2"}, {"B", "a.go:5"}, {"C", "a.go:6"}}
	if len(rows) != len(want) {
		t.Fatalf("%d function rows, want %d:\n%s", len(rows), len(want), text)
	}
	for i, w := range want {
		if rows[i]["RANK"] != strconv.Itoa(i+1) || rows[i]["FUNCTION"] != w[0] || rows[i]["DECLARED"] != w[1] {
			t.Errorf("function row %d: %v, want rank %d %s at %s", i+1, rows[i], i+1, w[0], w[1])
		}
	}
	if rows[1]["LINES"] != "3" || rows[1]["BEST LINE"] != "2 (rank 2)" {
		t.Errorf("A's row %v: want 3 lines, best line 2 at rank 2", rows[1])
	}
	if rows[2]["OWN SPECTRUM"] != "rank 1 (1.0000)" || rows[1]["OWN SPECTRUM"] != "rank 2-4 (0.0000)" {
		t.Errorf("own spectra: B %q, A %q; want rank 1 (1.0000) and rank 2-4 (0.0000)", rows[2]["OWN SPECTRUM"], rows[1]["OWN SPECTRUM"])
	}
	if lines := parseRankTable(t, text); len(lines) != 6 {
		t.Errorf("the line table has %d rows, want 6", len(lines))
	}

	var got struct {
		Lines     []localize.RankedLine     `json:"lines"`
		Functions []localize.RankedFunction `json:"functions"`
	}
	if err := json.Unmarshal([]byte(write("json", 0)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Lines) != 6 || len(got.Functions) != 4 || got.Functions[3].Name != "C" || got.Functions[1].Lines != 3 {
		t.Errorf("json: %d lines, functions %+v; want 6 lines and the four functions", len(got.Lines), got.Functions)
	} else if s := got.Functions[2].Spectrum; s == nil || s.Rank != 1 || s.EF != 2 || s.EP != 0 || s.Formula != "ochiai" {
		t.Errorf("json: B's spectrum %+v, want rank 1 by ochiai, EF 2, EP 0", s)
	}
	if err := json.Unmarshal([]byte(write("json", 2)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Functions) != 2 || got.Functions[1].Name != "A" {
		t.Errorf("json -functions 2: %+v", got.Functions)
	}
	if _, err := newRankDestination("text", false, "", 0, -1); err == nil {
		t.Error("-functions -1 accepted")
	}
}

// Under the shipped model, which orders the lines past its first ones
// function by function, the legend says so for the unscored lines; under
// another model it does not.
func TestRankLegendFunctionFirst(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  bool
	}{{localize.ShippedModel().Name, localize.ShippedModel().Functions != nil}, {"test", false}} {
		var buf bytes.Buffer
		writeRankingLegend(&buf, &localize.Ranking{Formula: "ochiai", Order: localize.OrderLearned, Model: tc.model}, "OCHIAI", true, nil)
		if got := strings.Contains(buf.String(), "function by function"); got != tc.want {
			t.Errorf("model %s: legend says function by function: %v, want %v\n%s", tc.model, got, tc.want, buf.String())
		}
		wantDecl := tc.model == localize.ShippedModel().Name && localize.ShippedModel().Declarations != nil
		if got := strings.Contains(buf.String(), "package-level declaration"); got != wantDecl {
			t.Errorf("model %s: legend tells of declarations: %v, want %v\n%s", tc.model, got, wantDecl, buf.String())
		}
	}
}

// Under the shipped model's learned order the function table says its
// order is the model's; under a formula, that each function is placed by
// its best line.
func TestRankFunctionsHeading(t *testing.T) {
	fns := []localize.RankedFunction{{Function: localize.Function{File: "a.go", Name: "A", Line: 1}, Rank: 1, Tie: [2]int{1, 1}, BestLine: 2, BestRank: 1, Lines: 1}}
	for _, tc := range []struct {
		r    *localize.Ranking
		want string
	}{
		{&localize.Ranking{Order: localize.OrderLearned, Model: localize.ShippedModel().Name}, "ordered by the learned model over their lines' evidence"},
		{&localize.Ranking{Order: localize.OrderFormula}, "each placed by its best line"},
	} {
		var b strings.Builder
		if err := writeFunctionsText(&b, tc.r, fns); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "most suspicious functions, "+tc.want) {
			t.Errorf("order %s: heading in\n%s\nwant %q", tc.r.Order, b.String(), tc.want)
		}
	}
}
