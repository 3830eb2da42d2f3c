package main

import (
	"testing"

	"github.com/faultline-go/faultline/internal/localize"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// TestVariantRoundTrip: a variant's String form parses back to it, and
// bad specs are refused with an error.
func TestVariantRoundTrip(t *testing.T) {
	for _, v := range []variant{{"trained", 10, 0, "ochiai"}, {"shipped", 5, 3.5, "spread"}, {"trained", 20, 1000, "blend"}} {
		got, err := parseVariant(v.String())
		if err != nil || got != v {
			t.Errorf("parseVariant(%q) = %v, %v; want %v", v.String(), got, err, v)
		}
	}
	for _, bad := range []string{"head=mine", "window=0", "window=x", "tail=op2", "guard", "depth=3"} {
		if _, err := parseVariant(bad); err == nil {
			t.Errorf("parseVariant(%q) gave no error", bad)
		}
	}
}

// TestVariantModel: the guard adds to the formula's weight, the tail comes
// from the fixed weights or the spread model, and the learned models are
// left as they were.
func TestVariantModel(t *testing.T) {
	learned := trainedModels{
		head:   &localize.Model{Name: "h", Weights: map[string]float64{"spectrum.ochiai": 2, "angelic.fix": 1}},
		spread: &localize.Model{Name: "s", Weights: map[string]float64{"spectrum.passShare": -1}},
	}
	m := variant{"trained", 7, 3, "spread"}.model(learned)
	if m.Window != 7 || m.Weights["spectrum.ochiai"] != 5 || m.Weights["angelic.fix"] != 1 || m.Tail["spectrum.passShare"] != -1 {
		t.Errorf("model %+v", m)
	}
	if learned.head.Weights["spectrum.ochiai"] != 2 {
		t.Errorf("the guard changed the learned model: %v", learned.head.Weights)
	}
	if m := (variant{"trained", 7, 0, "tarantula"}).model(learned); len(m.Tail) != 1 || m.Tail["spectrum.tarantula"] != 1 {
		t.Errorf("tarantula tail %v", m.Tail)
	}
	if m := (variant{"trained", 7, 0, "ochiai"}).model(learned); m.Tail != nil {
		t.Errorf("ochiai tail %v, want none", m.Tail)
	}
}

// TestInnerFoldSplitsEachHalf: the inner folds split both halves of the
// benchmark's projects, not one fold per half.
func TestInnerFoldSplitsEachHalf(t *testing.T) {
	b, err := realfault.LoadBenchmark("faults.json")
	if err != nil {
		t.Fatal(err)
	}
	var seen [2][2]int
	for _, p := range b.Projects {
		h := 0
		if heldOutProject(p.Repo) {
			h = 1
		}
		seen[h][innerFold(p.Repo)]++
	}
	for h := range seen {
		if seen[h][0] < 10 || seen[h][1] < 10 {
			t.Errorf("half %d: inner folds hold %v projects", h, seen[h])
		}
	}
}
