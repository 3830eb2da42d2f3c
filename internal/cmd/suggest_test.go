package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/solver/z3"
)

// faultline suggest -write on examples/minmax adds the failing input that
// avoids a line every failing run executed, in Go's corpus format, so that
// go test then fails on it too; rank -formula sattar puts the fault first
// with the bonus of its core.
func TestSuggestWriteAndSatTar(t *testing.T) {
	if err := z3.Available(); err != nil {
		t.Skip(err)
	}
	dir := copyModule(t, "../../examples/minmax")
	store := t.TempDir()
	stdout, stderr, code := faultlineWithStore(t, dir, store, "suggest", "-json", "-write", "-passing", "-1", "-rounds", "2")
	if code != 0 {
		t.Fatalf("suggest: exit %d\n%s", code, stderr)
	}
	var out struct {
		Targets []struct {
			Target, Package, Status string
			Inputs                  []struct {
				Args                  []string
				Outcome, File, Reason string
			}
			Written []string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(out.Targets) != 1 || out.Targets[0].Target != "FuzzMinMax" || out.Targets[0].Status != "optimal" {
		t.Fatalf("targets %+v", out.Targets)
	}
	tg := out.Targets[0]
	var failing string
	for _, in := range tg.Inputs {
		if in.Outcome == "fail" && strings.Contains(in.Reason, "minmax.go:11") && len(in.Args) == 3 {
			failing = filepath.Base(in.File)
		}
	}
	if failing == "" || len(tg.Written) != len(tg.Inputs) {
		t.Fatalf("no failing input avoiding minmax.go:11 written: %+v", tg)
	}
	if _, err := os.Stat(filepath.Join(dir, "testdata", "fuzz", "FuzzMinMax", failing)); err != nil {
		t.Fatal(err)
	}
	gotest := exec.Command("go", "test", "-run", "FuzzMinMax/"+failing, ".")
	gotest.Dir = dir
	if out, err := gotest.CombinedOutput(); err == nil || !strings.Contains(string(out), "--- FAIL: FuzzMinMax/"+failing) {
		t.Errorf("go test does not fail on the written entry (%v):\n%s", err, out)
	}

	stdout, stderr, code = faultlineWithStore(t, dir, store, "rank", "-json", "-formula", "sattar", "-angelic=false")
	if code != 0 {
		t.Fatalf("rank: exit %d\n%s", code, stderr)
	}
	var r struct {
		Formula string
		Lines   []struct {
			File   string
			Line   int
			SatTar *struct{ Bonus float64 } `json:"sattar"`
		}
		SatTar *struct{ Cores []struct{ Test string } } `json:"sattar"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Formula != "sattar" || r.SatTar == nil || len(r.SatTar.Cores) != 2 {
		t.Fatalf("rank -formula sattar: %s, cores %+v (want the two failing entries')", r.Formula, r.SatTar)
	}
	if l := r.Lines[0]; l.File != "minmax.go" || l.Line != 14 || l.SatTar == nil || l.SatTar.Bonus != 1 {
		t.Errorf("first line %+v, want minmax.go:14 with the bonus", l)
	}
}
