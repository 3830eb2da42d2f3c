package rank

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// minmax is the coverage matrix of the minmax example (Landsberg, Sun and
// Kroening, FASE 2018, Example 2): rows are tests t1..t10, columns the units
// C1..C5; t1..t3 fail. C4 is the fault.
var minmax = []struct {
	covers  [5]bool
	failing bool
}{
	{[5]bool{true, false, true, true, false}, true},
	{[5]bool{true, false, false, true, true}, true},
	{[5]bool{true, false, false, true, false}, true},
	{[5]bool{true, true, false, false, false}, false},
	{[5]bool{true, false, true, false, false}, false},
	{[5]bool{true, false, false, false, true}, false},
	{[5]bool{true, false, false, true, true}, false},
	{[5]bool{true, false, false, false, false}, false},
	{[5]bool{true, true, false, false, true}, false},
	{[5]bool{true, true, true, false, false}, false},
}

// minmaxCounts are the spectra of C1..C5 as the paper's Example 6 gives them.
var minmaxCounts = []Counts{
	{EF: 3, NF: 0, EP: 7, NP: 0},
	{EF: 0, NF: 3, EP: 3, NP: 4},
	{EF: 1, NF: 2, EP: 2, NP: 5},
	{EF: 3, NF: 0, EP: 1, NP: 6},
	{EF: 1, NF: 2, EP: 3, NP: 4},
}

func minmaxRuns() []Run {
	runs := make([]Run, len(minmax))
	for k, t := range minmax {
		runs[k].Failing = t.failing
		for i, c := range t.covers {
			if c {
				runs[k].Hits = append(runs[k].Hits, int32(i))
			}
		}
	}
	return runs
}

func lookup(t *testing.T, name string) Formula {
	t.Helper()
	f, err := Lookup(name)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", name, err)
	}
	return f
}

// approx reports whether got matches a hand-computed value printed to four
// decimals, or exactly (relative 1e-9) for values too small to print so.
func approx(got, want float64) bool {
	if math.Abs(want) < 1e-3 {
		return math.Abs(got-want) <= 1e-9*math.Max(math.Abs(want), 1e-300)
	}
	return math.Abs(got-want) <= 5e-5
}

func TestMinMaxFixture(t *testing.T) {
	// Values hand-computed in the notes for the minmax spectra (§8).
	table := map[string][5]float64{
		"ochiai":        {0.5477, 0, 0.3333, 0.8660, 0.2887},
		"tarantula":     {0.5000, 0, 0.5385, 0.8750, 0.4375},
		"jaccard":       {0.3000, 0, 0.2000, 0.7500, 0.1667},
		"dstar":         {1.2857, 0, 0.2500, 9.0000, 0.2000},
		"op2":           {2.125, -0.375, 0.75, 2.875, 0.625},
		"naish2":        {2.125, -0.375, 0.75, 2.875, 0.625},
		"barinel":       {0.3000, 0, 0.3333, 0.7500, 0.2500},
		"naish1":        {0, -1, -1, 6, -1},
		"kulczynski2":   {0.6500, 0, 0.3333, 0.8750, 0.2917},
		"ochiai2":       {0, 0, 0.2227, 1.2247, 0.1633},
		"zoltar":        {0.3000, 0, 1.0 / 40005, 0.7500, 1.0 / 60006},
		"anderberg":     {0.1765, 0, 0.1111, 0.6000, 0.0909},
		"sorensen-dice": {0.4615, 0, 0.3333, 0.8571, 0.2857},
		"russell-rao":   {0.3000, 0, 0.1000, 0.3000, 0.1000},
		"wong1":         {3, 0, 1, 3, 1},
		"gp13":          {3.1765, 0, 1.2000, 3.6000, 1.1429},
	}
	if len(table) != len(Names()) {
		t.Fatalf("fixture covers %d formulas, registry has %d", len(table), len(Names()))
	}
	for name, want := range table {
		f := lookup(t, name)
		for i, c := range minmaxCounts {
			if got := f.Score(c); !approx(got, want[i]) {
				t.Errorf("%s(C%d %+v) = %.6g, want %.6g", name, i+1, c, got, want[i])
			}
		}
	}
}

func TestDStarExponent(t *testing.T) {
	f := lookup(t, "DStar3")
	if f.Name() != "dstar3" {
		t.Errorf("name %q, want dstar3", f.Name())
	}
	// C4: 3^3 / (1+0); C1: 27/7.
	for i, want := range map[int]float64{3: 27, 0: 27.0 / 7} {
		if got := f.Score(minmaxCounts[i]); got != want {
			t.Errorf("dstar3(C%d) = %v, want %v", i+1, got, want)
		}
	}
	for _, bad := range []int{0, -2, MaxStar + 1} {
		if _, err := DStar(bad); err == nil {
			t.Errorf("DStar(%d) accepted", bad)
		}
	}
}

func TestOptWrapper(t *testing.T) {
	f := lookup(t, "opt-ochiai")
	if f.Name() != "opt-ochiai" || f.Bounded() {
		t.Errorf("name %q bounded %v, want opt-ochiai, false", f.Name(), f.Bounded())
	}
	ochiai := Default()
	// C1 and C4 are executed by every failing test: np+2.
	want := []float64{2, ochiai.Score(minmaxCounts[1]), ochiai.Score(minmaxCounts[2]), 8, ochiai.Score(minmaxCounts[4])}
	for i, c := range minmaxCounts {
		if got := f.Score(c); got != want[i] {
			t.Errorf("opt-ochiai(C%d) = %v, want %v", i+1, got, want[i])
		}
	}
	for _, unbounded := range []string{"opt-dstar", "opt-op2", "opt-naish1", "opt-opt-ochiai"} {
		if _, err := Lookup(unbounded); err == nil || !strings.Contains(err.Error(), "not bounded") {
			t.Errorf("Lookup(%q) error = %v, want not bounded", unbounded, err)
		}
	}
	if _, err := Opt(nil); err == nil {
		t.Error("Opt(nil) accepted")
	}
}

// TestSingleFaultOptimality checks Naish's two conditions on random spectra
// of one suite for the formulas that are single-fault optimal: every Opt
// wrapper, Naish1 and Op2.
func TestSingleFaultOptimality(t *testing.T) {
	var optimal []Formula
	for _, name := range Names() {
		if f := lookup(t, name); f.Bounded() {
			optimal = append(optimal, lookup(t, "opt-"+name))
		}
	}
	optimal = append(optimal, lookup(t, "naish1"), lookup(t, "op2"), lookup(t, "naish2"))
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		failed, passed := 1+rng.IntN(6), rng.IntN(8)
		spectrum := func() Counts {
			ef, ep := rng.IntN(failed+1), rng.IntN(passed+1)
			return Counts{EF: ef, EP: ep, NF: failed - ef, NP: passed - ep}
		}
		a, b := spectrum(), spectrum()
		for _, f := range optimal {
			sa, sb := f.Score(a), f.Score(b)
			// Condition 1: covered by all failing tests beats not covered by all.
			if b.NF == 0 && a.NF > 0 && !(sb > sa) {
				t.Errorf("%s: %+v scores %v, not above %+v at %v", f.Name(), b, sb, a, sa)
			}
			// Condition 2: among those, fewer passing covers ranks higher.
			if a.NF == 0 && b.NF == 0 && b.EP < a.EP && !(sb > sa) {
				t.Errorf("%s: %+v scores %v, not above %+v at %v", f.Name(), b, sb, a, sa)
			}
		}
	}
}

func TestZeroDenominators(t *testing.T) {
	// Exhaustive small spectra: finite everywhere, bounded formulas in [0,1].
	for _, name := range Names() {
		f := lookup(t, name)
		for ef := range 3 {
			for ep := range 3 {
				for nf := range 3 {
					for np := range 3 {
						c := Counts{ef, ep, nf, np}
						s := f.Score(c)
						if math.IsNaN(s) || math.IsInf(s, 0) || math.Abs(s) > DivergentScore {
							t.Errorf("%s(%+v) = %v, not finite", name, c, s)
						}
						if f.Bounded() && (s < 0 || s > 1) {
							t.Errorf("%s(%+v) = %v, outside [0,1]", name, c, s)
						}
					}
				}
			}
		}
	}
	cases := []struct {
		formula string
		c       Counts
		want    float64
	}{
		// No test at all: no evidence.
		{"ochiai", Counts{}, 0},
		{"tarantula", Counts{}, 0},
		{"russell-rao", Counts{}, 0},
		// Executed by no test: Barinel gives 0, not the 1 of 1 − 0/0.
		{"barinel", Counts{NF: 2, NP: 3}, 0},
		{"zoltar", Counts{NF: 2, NP: 3}, 0},
		{"gp13", Counts{NF: 2, NP: 3}, 0},
		// No passing test: ep/P = 0/0 = 0, so Tarantula is 1.
		{"tarantula", Counts{EF: 2}, 1},
		// Every failing and no passing test: x/0 with x > 0.
		{"dstar", Counts{EF: 2, NP: 3}, DivergentScore},
		{"ochiai2", Counts{EF: 2, NP: 3}, DivergentScore},
		// No failing test: Ochiai's F = 0.
		{"ochiai", Counts{EP: 2, NP: 1}, 0},
		{"kulczynski2", Counts{EP: 2}, 0},
		{"dstar", Counts{}, 0},
	}
	for _, tc := range cases {
		if got := lookup(t, tc.formula).Score(tc.c); got != tc.want {
			t.Errorf("%s(%+v) = %v, want %v", tc.formula, tc.c, got, tc.want)
		}
	}
	// The divergent score still orders above any score from real counts.
	if big := lookup(t, "dstar").Score(Counts{EF: 1 << 20, EP: 1}); !(big < DivergentScore) {
		t.Errorf("dstar of a large finite spectrum %v reaches DivergentScore", big)
	}
}

func TestRegistry(t *testing.T) {
	names := Names()
	if len(names) != 16 || names[0] != "ochiai" {
		t.Fatalf("Names() = %v, want 16 formulas, ochiai first", names)
	}
	for _, name := range names {
		f := lookup(t, name)
		if again := lookup(t, f.Name()); again.Name() != f.Name() {
			t.Errorf("Lookup(%q).Name() = %q", f.Name(), again.Name())
		}
	}
	aliases := map[string]string{
		"OCHIAI":        "ochiai",
		"Russell_Rao":   "russell-rao",
		"russellrao":    "russell-rao",
		"Sørensen–Dice": "sorensen-dice",
		"dice":          "sorensen-dice",
		"op1":           "naish1",
		"dstar":         "dstar2",
		"D*":            "dstar2",
		"dstar7":        "dstar7",
		"Opt-Tarantula": "opt-tarantula",
		"opt_jaccard":   "opt-jaccard",
	}
	for alias, want := range aliases {
		if got := lookup(t, alias).Name(); got != want {
			t.Errorf("Lookup(%q).Name() = %q, want %q", alias, got, want)
		}
	}
	for _, bad := range []string{"", "ochia", "dstarx", "dstar0", "opt-", "opt-nosuch"} {
		_, err := Lookup(bad)
		if err == nil {
			t.Errorf("Lookup(%q) accepted", bad)
		}
	}
	_, err := Lookup("nosuch")
	if err == nil || !strings.Contains(err.Error(), "ochiai, tarantula") || !strings.Contains(err.Error(), "gp13") {
		t.Errorf("unknown-name error does not list the formulas: %v", err)
	}
	if c := Confidence(); c.Score(Counts{EF: 1, NF: 3, EP: 3, NP: 1}) != 0.75 {
		t.Errorf("confidence = %v, want max(1/4, 3/4)", c.Score(Counts{EF: 1, NF: 3, EP: 3, NP: 1}))
	}
}
