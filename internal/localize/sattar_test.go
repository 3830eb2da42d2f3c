//go:build cgo

package localize

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/specs"
	"github.com/faultline-go/faultline/spectra"
)

// moduleHere collects the spectra of a txtar module from testdata.
func moduleHere(t *testing.T, name string) (*Service, *spectra.Matrix) {
	t.Helper()
	return module(t, filepath.Join("..", "..", "internal", "localize", "testdata", name))
}

func needZ3(t *testing.T) {
	t.Helper()
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
}

// SAT-TAR's order puts minmax's fault first with the bonus of its core,
// explains the line, and takes the cores from the cache the second time.
func TestSatTarOrder(t *testing.T) {
	needZ3(t)
	s, m := moduleHere(t, "minmax1.txtar")
	loc, err := s.Localize(context.Background(), m, Options{SatTar: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if loc.SatTar == nil || len(loc.SatTar.Cores) != 1 || len(loc.SatTar.Cores[0].Suspects) == 0 {
		t.Fatalf("SAT-TAR's cores: %+v", loc.SatTar)
	}
	first := loc.Ranking.Lines[0]
	if loc.Ranking.Formula != specs.SatTarName || first.File != "minmax.go" || first.Line != 14 || first.Tie != [2]int{1, 1} {
		t.Errorf("%s puts %s:%d (ranks %v) first, want minmax.go:14 alone", loc.Ranking.Formula, first.File, first.Line, first.Tie)
	}
	if first.SatTar == nil || first.SatTar.Bonus != 1 || !slices.Contains(first.SatTar.Cores, "FuzzMinMax/seed#0") {
		t.Errorf("explanation of the first line: %+v", first.SatTar)
	}
	// The core is cached: a worker that fails shows it is not asked.
	s.worker = func(context.Context, workRequest, func(workReply)) error {
		t.Error("the worker was asked for a cached core")
		return nil
	}
	again, err := s.Localize(context.Background(), m, Options{SatTar: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := again.Ranking.Lines[0], loc.Ranking.Lines[0]; !reflect.DeepEqual(a, b) {
		t.Errorf("from the cache the first line is %+v %+v, was %+v %+v", a, a.SatTar, b, b.SatTar)
	}
}

// Suggest finds the failing input that avoids C3 (minmax.go:11), writes it
// to the seed corpus in Go's format, and the next collection runs it as a
// failing entry of the target; the second search comes from the cache.
func TestSuggestWritesTheCorpus(t *testing.T) {
	needZ3(t)
	s, m := moduleHere(t, "minmax1.txtar")
	opts := SuggestOptions{Search: specs.Options{Passing: -1, Rounds: 2}}
	out, err := s.Suggest(context.Background(), m, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Target != "FuzzMinMax" || out[0].Cached {
		t.Fatalf("suggestions %+v", out)
	}
	sg := out[0]
	if sg.Status != specs.Optimal || sg.SharedAfter != sg.SharedBefore-1 {
		t.Errorf("status %s, shared lines %d -> %d; want optimal with one fewer (notes %v)", sg.Status, sg.SharedBefore, sg.SharedAfter, sg.Notes)
	}
	i := slices.IndexFunc(sg.Inputs, func(in specs.Input) bool { return in.By == "sfo" })
	if i < 0 || sg.Inputs[i].Outcome != "fail" || !strings.Contains(sg.Inputs[i].Reason, "minmax.go:11") {
		t.Fatalf("no failing sfo input that avoids minmax.go:11: %+v", sg.Inputs)
	}
	if len(sg.Rankings) != 3 {
		t.Errorf("rankings compared: %+v", sg.Rankings)
	}
	opts.Write = true
	out, err = s.Suggest(context.Background(), m, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !out[0].Cached || len(out[0].Written) != len(sg.Inputs) {
		t.Fatalf("second search: cached %v, wrote %v", out[0].Cached, out[0].Written)
	}
	file := filepath.Join(s.ws.Root(), filepath.FromSlash(out[0].Written[i]))
	data, err := os.ReadFile(file)
	if err != nil || !strings.HasPrefix(string(data), "go test fuzz v1\n") {
		t.Fatalf("corpus file %s: %q, %v", file, data, err)
	}
	after, err := s.ws.Collect(context.Background(), spectra.CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	entry := "FuzzMinMax/" + filepath.Base(file)
	j := slices.IndexFunc(after.Tests, func(tr spectra.TestRun) bool { return tr.Name == entry })
	if j < 0 || !after.Tests[j].Verdict.Failing() {
		t.Fatalf("go test does not run %s as a failing entry", entry)
	}
}
