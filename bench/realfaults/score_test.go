package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
)

func lines(ev ...map[string]float64) []localize.RankedLine {
	out := make([]localize.RankedLine, len(ev))
	for i, e := range ev {
		out[i] = localize.RankedLine{File: "a.go", Line: i + 1, EF: 1, NP: 1, Evidence: e}
	}
	return out
}

func TestFaultPosition(t *testing.T) {
	c := &scoredCase{Report: &localize.RankReport{Ranking: localize.Ranking{Lines: lines(nil, nil, nil, nil, nil)}},
		Faulty: map[lineKey]bool{{"a.go", 3}: true, {"a.go", 4}: true}}
	for _, tc := range []struct {
		ties [][2]int
		want float64
	}{
		{[][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, 3},
		// Four lines tied from 2 with two faulty: 2 + (4-2)/3.
		{[][2]int{{1, 1}, {2, 5}, {2, 5}, {2, 5}, {2, 5}}, 2 + 2.0/3},
		// The better of two groups.
		{[][2]int{{1, 2}, {1, 2}, {5, 5}, {3, 4}, {3, 4}}, 3.5},
	} {
		if got := faultPosition(c, tc.ties); got != tc.want {
			t.Errorf("faultPosition(%v) = %v, want %v", tc.ties, got, tc.want)
		}
	}
	c.Faulty = map[lineKey]bool{{"b.go", 1}: true}
	if got := faultPosition(c, [][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}); got != 0 {
		t.Errorf("unranked fault at %v, want 0", got)
	}
}

// A column that marks the faulty line of every training fault gets the
// largest weight, a column that marks a non-faulty line a negative one,
// and training twice gives the same model.
func TestTrainModel(t *testing.T) {
	var cases []*scoredCase
	for k := 0; k < 4; k++ {
		ev := []map[string]float64{{"noise": 0.5, "decoy": 1}, {"noise": 0.2}, {"marker": 1, "noise": float64(k) / 4}, {"noise": 1}}
		cases = append(cases, &scoredCase{
			Report: &localize.RankReport{Ranking: localize.Ranking{Lines: lines(ev...)}},
			Faulty: map[lineKey]bool{{"a.go", 3}: true},
		})
	}
	all := func(*scoredCase) bool { return true }
	m := trainModel(cases, all, "test", trainOptions{Window: learnedWindow, Negatives: trainNegatives})
	if m.Weights["marker"] <= 0 || m.Weights["decoy"] >= 0 {
		t.Fatalf("weights %v: want marker > 0 > decoy", m.Weights)
	}
	for k, w := range m.Weights {
		if k != "marker" && w >= m.Weights["marker"] {
			t.Errorf("weight of %s %v not below marker's %v", k, w, m.Weights["marker"])
		}
	}
	res, err := evaluate(cases, orders(m))
	if err != nil {
		t.Fatal(err)
	}
	learned := summarize(res, cases, len(orders(m))-1, all)
	if learned.Top[0] != len(cases) {
		t.Errorf("learned order puts %d of %d faults first", learned.Top[0], len(cases))
	}
	if again := trainModel(cases, all, "test", trainOptions{Window: learnedWindow, Negatives: trainNegatives}); !reflect.DeepEqual(again, m) {
		t.Errorf("training again gave %v, want %v", again.Weights, m.Weights)
	}
}

// The fault's function is placed by its best line under each order, a
// closure's lines counting in the function around it, and summaries give
// function-level Top-1 and Top-5 over the faults whose source is at hand.
func TestFunctionPosition(t *testing.T) {
	root := t.TempDir()
	src := "package p\n\nfunc A() {\n\ta()\n\tf := func() {\n\t\tb()\n\t}\n}\n\nfunc (t *T) B() {\n\tc()\n}\nfunc C() { d() }\n"
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	report := &localize.RankReport{Ranking: localize.Ranking{Lines: []localize.RankedLine{
		{File: "p.go", Line: 4}, {File: "p.go", Line: 6}, {File: "p.go", Line: 11}, {File: "p.go", Line: 13},
	}}}
	c := &scoredCase{Report: report, Faulty: map[lineKey]bool{{"p.go", 6}: true}, Funcs: localize.SourceFunctions(root)}
	// B's line first; A's first line tied with C's; the faulty closure line last.
	behind := [][2]int{{2, 3}, {4, 4}, {1, 1}, {2, 3}}
	if got := faultPosition(c, behind); got != 4 {
		t.Errorf("line position %v, want 4", got)
	}
	pos, n := functionPosition(c, behind)
	if want := 2 + 1.0/2; pos != want || n != 3 {
		t.Errorf("function position %v of %d functions, want %v of 3 (A tied with C behind B)", pos, n, want)
	}
	first := [][2]int{{2, 2}, {1, 1}, {3, 3}, {4, 4}}
	if pos, _ := functionPosition(c, first); pos != 1 {
		t.Errorf("function position %v with the closure line first, want 1", pos)
	}

	noSource := &scoredCase{Report: report, Faulty: c.Faulty}
	ords := []order{
		{name: "behind", rank: func(*scoredCase) ([][2]int, error) { return behind, nil }},
		{name: "first", rank: func(*scoredCase) ([][2]int, error) { return first, nil }},
	}
	cases := []*scoredCase{c, noSource}
	res, err := evaluate(cases, ords)
	if err != nil {
		t.Fatal(err)
	}
	all := func(*scoredCase) bool { return true }
	for k, want := range [][2]string{{"0/1 (0 %)", "1/1 (100 %)"}, {"1/1 (100 %)", "1/1 (100 %)"}} {
		s := summarize(res, cases, k, all)
		if s.Faults != 2 || s.FnFaults != 1 {
			t.Errorf("%s: %d faults, %d at function level; want 2 and 1", ords[k].name, s.Faults, s.FnFaults)
		}
		if top1, top5 := s.fnCells(); top1 != want[0] || top5 != want[1] {
			t.Errorf("%s: function Top-1 %s, Top-5 %s; want %s and %s", ords[k].name, top1, top5, want[0], want[1])
		}
	}
	s := summarize(res, cases, 0, func(c *scoredCase) bool { return c.Funcs == nil })
	if top1, top5 := s.fnCells(); top1 != "-" || top5 != "-" {
		t.Errorf("without source: %s, %s; want -", top1, top5)
	}
}

// Functions ranked by their own spectra place the fault's function by its
// tie group there; a ranking without them counts in no figure.
func TestOwnSpectrumPosition(t *testing.T) {
	root := t.TempDir()
	src := "package p\n\nfunc A() {\n\ta()\n}\n\nfunc B() {\n\tb()\n}\n\nfunc C() {\n\tc()\n}\n"
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fn := func(name string, line int, tie [2]int) string {
		return fmt.Sprintf(`{"file": "p.go", "name": %q, "line": %d, "spectrum": {"rank": %d, "tie": [%d, %d]}}`, name, line, tie[0], tie[0], tie[1])
	}
	withSpectra := filepath.Join(root, "with.json")
	body := `{"functions": [` + fn("B", 7, [2]int{1, 1}) + `, ` + fn("A", 3, [2]int{2, 3}) + `, ` + fn("C", 11, [2]int{2, 3}) + `]}`
	if err := os.WriteFile(withSpectra, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	without := filepath.Join(root, "without.json")
	if err := os.WriteFile(without, []byte(`{"functions": [{"file": "p.go", "name": "A", "line": 3}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	own, err := readOwnSpectra(withSpectra)
	if err != nil {
		t.Fatal(err)
	}
	old, err := readOwnSpectra(without)
	if err != nil || old != nil {
		t.Fatalf("a ranking without spectra: %v, %v; want none", old, err)
	}
	report := &localize.RankReport{Ranking: localize.Ranking{Lines: []localize.RankedLine{{File: "p.go", Line: 4}}}}
	c := &scoredCase{Report: report, Faulty: map[lineKey]bool{{"p.go", 4}: true}, Funcs: localize.SourceFunctions(root), OwnSpectra: own}
	if pos, ok := ownSpectrumPosition(c); !ok || pos != 2.5 {
		t.Errorf("position %v (%v), want 2.5: A tied with C behind B", pos, ok)
	}
	unscored := &scoredCase{Report: report, Faulty: c.Faulty, Funcs: c.Funcs}
	s := ownSpectrumSummary([]*scoredCase{c, unscored}, func(*scoredCase) bool { return true })
	if top1, top5 := s.fnCells(); top1 != "0/1 (0 %)" || top5 != "1/1 (100 %)" {
		t.Errorf("function Top-1 %s, Top-5 %s; want 0/1 and 1/1", top1, top5)
	}
}

// Spread pairs the faulty lines with non-faulty lines beyond the top ones:
// a column found only far down the ranking learns a weight only then.
func TestTrainSpread(t *testing.T) {
	var cases []*scoredCase
	for k := 0; k < 3; k++ {
		ev := []map[string]float64{{"marker": 1}, {"noise": 0.5}, {}, {}, {"far": 1}, {}}
		cases = append(cases, &scoredCase{
			Report: &localize.RankReport{Ranking: localize.Ranking{Lines: lines(ev...)}},
			Faulty: map[lineKey]bool{{"a.go", 1}: true},
		})
	}
	all := func(*scoredCase) bool { return true }
	top := trainModel(cases, all, "top", trainOptions{Negatives: 2})
	if w, ok := top.Weights["far"]; ok {
		t.Errorf("far weighs %v though no paired line has it", w)
	}
	spread := trainModel(cases, all, "spread", trainOptions{Negatives: 2, Spread: 4})
	if spread.Weights["far"] >= 0 {
		t.Errorf("weights %v: want far < 0 once the far lines are paired", spread.Weights)
	}
}

// Weighing projects equally gives a project of one fault as much say as
// one of many: its marker column weighs as much as the large project's.
func TestTrainEqualProjects(t *testing.T) {
	var cases []*scoredCase
	add := func(group, marker string) {
		ev := []map[string]float64{{marker: 1}, {"noise": 0.5}, {"noise": 1}}
		cases = append(cases, &scoredCase{
			Group:  group,
			Report: &localize.RankReport{Ranking: localize.Ranking{Lines: lines(ev...)}},
			Faulty: map[lineKey]bool{{"a.go", 1}: true},
		})
	}
	for k := 0; k < 6; k++ {
		add("large", "big")
	}
	add("small", "small")
	all := func(*scoredCase) bool { return true }
	byFault := trainModel(cases, all, "faults", trainOptions{Negatives: 10})
	if byFault.Weights["big"] <= byFault.Weights["small"] {
		t.Fatalf("weights %v: want the large project's column above the small one's when faults weigh equally", byFault.Weights)
	}
	equal := trainModel(cases, all, "projects", trainOptions{Negatives: 10, EqualProjects: true})
	if equal.Weights["big"] != equal.Weights["small"] {
		t.Errorf("weights %v: want the two projects' columns equal when projects weigh equally", equal.Weights)
	}
}

// A fault counts as worse than the base order when its faulty line is met
// later, an unranked one later than any; projects weigh equally in
// perGroup whatever their sizes.
func TestWorseThanAndPerGroup(t *testing.T) {
	a, b, c := &scoredCase{Group: "big"}, &scoredCase{Group: "big"}, &scoredCase{Group: "small"}
	res := map[*scoredCase][]outcome{
		a: {{pos: 2, lines: 10}, {pos: 1, lines: 10}},
		b: {{pos: 1, lines: 10}, {pos: 3, lines: 10}},
		c: {{pos: 4, lines: 10}, {pos: 0, lines: 10}},
	}
	cases := []*scoredCase{a, b, c}
	all := func(*scoredCase) bool { return true }
	if n := worseThan(res, cases, 1, 0, all); n != 2 {
		t.Errorf("worse than the base: %d, want 2 (b later, c unranked)", n)
	}
	top1, top5, exam := perGroup(res, cases, 1, all)
	if top1 != 25 || top5 != 50 || math.Abs(exam-0.6) > 1e-9 {
		t.Errorf("per group: Top-1 %v %%, Top-5 %v %%, EXAM %v; want 25, 50, 0.6 (big: 50 %%, 100 %%, 0.2; small: 0, 0, 1)", top1, top5, exam)
	}
}
