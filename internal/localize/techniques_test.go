package localize

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/spectra/rank"
)

// Every registered formula, BlockRank and SAT-TAR is a technique, and
// each parses back from its name in any spelling the flag takes.
func TestTechniques(t *testing.T) {
	var names []string
	for _, tech := range Techniques() {
		names = append(names, tech.Name)
		for _, spelling := range []string{tech.Name, strings.ToUpper(tech.Name), strings.ReplaceAll(tech.Name, "-", "_")} {
			got, err := ParseTechnique(spelling)
			if err != nil {
				t.Errorf("ParseTechnique(%q): %v", spelling, err)
				continue
			}
			if got.Name != tech.Name || got.BlockRank() != tech.BlockRank() || got.SatTar() != tech.SatTar() || (got.Formula == nil) != (tech.Formula == nil) {
				t.Errorf("ParseTechnique(%q) = %+v, want %+v", spelling, got, tech)
			}
		}
	}
	if want := append(rank.Names(), BlockRankName, SatTarName); !slices.Equal(names, want) {
		t.Errorf("techniques %q, want %q", names, want)
	}
	for name, want := range map[string]string{"Block-Rank": "BlockRank", "SAT_TAR": "SAT-TAR", "dstar3": "dstar3", "opt-ochiai": "opt-ochiai"} {
		got, err := ParseTechnique(name)
		if err != nil || got.Title != want {
			t.Errorf("ParseTechnique(%q) = %+v, %v; want one titled %s", name, got, err, want)
		}
	}
	if _, err := ParseTechnique("nosuch"); err == nil || !strings.Contains(err.Error(), "unknown formula") {
		t.Errorf("ParseTechnique(nosuch): %v, want an unknown formula", err)
	}
}

// Options.Use sets exactly the fields of the technique it is given.
func TestOptionsUse(t *testing.T) {
	var o Options
	br, _ := ParseTechnique("blockrank")
	o.Use(br, 1)
	if o.BlockRank == nil || o.BlockRank.Mode != 1 || o.SatTar || o.Formula != nil {
		t.Errorf("blockrank: %+v", o)
	}
	st, _ := ParseTechnique("sattar")
	o.Use(st, 0)
	if o.BlockRank != nil || !o.SatTar || o.Formula != nil {
		t.Errorf("sattar: %+v", o)
	}
	f, _ := ParseTechnique("tarantula")
	o.Use(f, 0)
	if o.BlockRank != nil || o.SatTar || o.Formula == nil || o.Formula.Name() != "tarantula" {
		t.Errorf("tarantula: %+v", o)
	}
}

// The orders parse by their names alone, and Orders names them in order.
func TestOrders(t *testing.T) {
	for i, o := range AllOrders() {
		if Orders[i] != o.Name || o.Doc == "" {
			t.Errorf("order %d: %+v, Orders says %q", i, o, Orders[i])
		}
		if got, err := ParseOrder(o.Name); err != nil || got != o {
			t.Errorf("ParseOrder(%q) = %+v, %v", o.Name, got, err)
		}
	}
	if err := CheckOrder(""); err != nil {
		t.Errorf("the default order: %v", err)
	}
	if err := CheckOrder("Learned"); err == nil {
		t.Error("CheckOrder takes Learned")
	}
}
