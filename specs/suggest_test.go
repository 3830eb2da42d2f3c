package specs

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/txtartest"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// collected extracts a txtar module and collects its spectra.
func collected(t *testing.T, archive string) (*spectra.Workspace, *spectra.Matrix) {
	t.Helper()
	dir := txtartest.Extract(t, filepath.Join("testdata", archive))
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ws.Collect(context.Background(), spectra.CollectOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return ws, m
}

// request asks for a target's suggestions from a matrix.
func request(m *spectra.Matrix, pkg, target string) Request {
	req := Request{Package: pkg, Target: target}
	for _, tr := range m.Tests {
		if tr.Package == pkg && strings.HasPrefix(tr.Name, target+"/") && tr.Verdict.Counted() {
			req.Seeds = append(req.Seeds, Seed{Name: tr.Name, Failing: tr.Verdict.Failing()})
		}
	}
	for i, b := range m.Blocks {
		req.Blocks = append(req.Blocks, BlockRef{Index: i, Block: b})
	}
	return req
}

func needZ3(t *testing.T) {
	t.Helper()
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
}

// The lines of minmax.go the paper's units are: C1 is every line all runs
// execute (its first is least := in1), C2..C5 the guarded assignments.
const (
	c1 = 5
	c2 = 8
	c3 = 11
	c4 = 14 // the fault
	c5 = 17
)

// lineOf finds a line of minmax.go in a ranking.
func lineOf(t *testing.T, r *spectra.Scores, line int) spectra.LineScore {
	t.Helper()
	for _, l := range r.Lines {
		if l.File == "minmax.go" && l.Line == line {
			return l
		}
	}
	t.Fatalf("minmax.go:%d is not ranked", line)
	return spectra.LineScore{}
}

// The paper's ten tests as the fuzz target's seeds give the spectra and
// the Naish-I (Op2) scores of Example 4-6, and the ranking <4, 1, 3, 5, 2>.
func TestMinMaxSpectraOfThePaper(t *testing.T) {
	_, m := collected(t, "minmax.txtar")
	op2, err := rank.Lookup("op2")
	if err != nil {
		t.Fatal(err)
	}
	r, err := spectra.RankLines(m, op2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 3 || r.Passed != 7 {
		t.Fatalf("%d failing and %d passing runs, want 3 and 7", r.Failed, r.Passed)
	}
	want := []struct {
		line           int
		ef, nf, ep, np int
		naish          float64
	}{
		{c1, 3, 0, 7, 0, 2.125},
		{c2, 0, 3, 3, 4, -0.375},
		{c3, 1, 2, 2, 5, 0.75},
		{c4, 3, 0, 1, 6, 2.875},
		{c5, 1, 2, 3, 4, 0.625},
	}
	var order []int
	for _, w := range want {
		l := lineOf(t, r, w.line)
		if l.EF != w.ef || l.NF != w.nf || l.EP != w.ep || l.NP != w.np || math.Abs(l.Score-w.naish) > 1e-9 {
			t.Errorf("minmax.go:%d: <ef nf ep np> = <%d %d %d %d>, Naish-I %g; want <%d %d %d %d>, %g",
				w.line, l.EF, l.NF, l.EP, l.NP, l.Score, w.ef, w.nf, w.ep, w.np, w.naish)
		}
		order = append(order, l.Rank)
	}
	// C4 first, then C1, C3, C5, C2.
	if !(order[3] < order[0] && order[0] < order[2] && order[2] < order[4] && order[4] < order[1]) {
		t.Errorf("ranks of C1..C5 = %v, want the order C4, C1, C3, C5, C2", order)
	}
}

// Example 8 of the paper: from the failing data {t1}, whose runs all
// execute C1, C3 and C4, sfo adds a failing run that misses C3 (the paper
// picks t2), and then no failing run can miss C1 or C4: the data is
// single-fault optimal. On the failing runs alone Naish-I then gives C1 and
// C4 2.0 and C3 1.0.
func TestSfoAddsTheRunOfExample8(t *testing.T) {
	needZ3(t)
	ws, m := collected(t, "minmax.txtar")
	req := request(m, "example.com/minmax", "FuzzMinMax")
	req.Seeds = req.Seeds[:1] // t1 = <1, 0, 2>
	res, err := Suggest(context.Background(), ws.Module(), req, Options{Passing: -1, Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Optimal {
		t.Errorf("status %s, want %s (notes: %v)", res.Status, Optimal, res.Notes)
	}
	var sfo []Input
	for _, in := range res.Inputs {
		if in.By == "sfo" {
			sfo = append(sfo, in)
		}
	}
	if len(sfo) != 1 {
		t.Fatalf("sfo added %d inputs, want 1: %+v", len(sfo), res.Inputs)
	}
	added := sfo[0]
	covers := func(line int) bool {
		for _, b := range added.Hits {
			if m.Blocks[b].File == "minmax.go" && slices.Contains(m.Blocks[b].Lines, line) {
				return true
			}
		}
		return false
	}
	if added.Outcome != "fail" || covers(c3) || !covers(c4) || !covers(c1) {
		t.Errorf("sfo added %v (%s), covering C1 %v, C3 %v, C4 %v: want a failing run executing C1 and C4 but not C3",
			added.Args, added.Outcome, covers(c1), covers(c3), covers(c4))
	}
	if res.SharedAfter != res.SharedBefore-1 {
		t.Errorf("lines every failing run executes: %d before, %d after; want one fewer (C3)", res.SharedBefore, res.SharedAfter)
	}
	// Naish-I on the failing runs {t1, the added run}.
	failing := &spectra.Matrix{ModulePath: m.ModulePath, Root: m.Root, Blocks: m.Blocks}
	for _, tr := range m.Tests {
		if tr.Name == req.Seeds[0].Name {
			failing.Tests = append(failing.Tests, tr)
		}
	}
	failing.Tests = append(failing.Tests, spectra.TestRun{Package: "example.com/minmax", Name: "FuzzMinMax/added", Verdict: spectra.Fail, Hits: spectra.NewHits(added.Hits...)})
	op2, _ := rank.Lookup("op2")
	r, err := spectra.RankLines(failing, op2)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[int]float64{c1: 2, c4: 2, c3: 1} {
		if got := lineOf(t, r, line).Score; got != want {
			t.Errorf("Naish-I of minmax.go:%d on the failing runs = %g, want %g", line, got, want)
		}
	}
}

// The unsat core of t1's violated check holds the fault (C4), and SAT-TAR
// puts it first.
func TestSatTarCoreOfMinMax(t *testing.T) {
	needZ3(t)
	ws, m := collected(t, "minmax.txtar")
	req := request(m, "example.com/minmax", "FuzzMinMax")
	res, err := Suggest(context.Background(), ws.Module(), req, Options{Passing: -1, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	inCore := false
	for _, s := range res.Core {
		if s.File == "minmax.go" && s.Line == c4 {
			inCore = true
		}
		if strings.HasSuffix(s.File, "_test.go") {
			t.Errorf("the core holds test code: %+v", s)
		}
	}
	if !inCore {
		t.Fatalf("the core %+v does not hold C4 (minmax.go:%d)", res.Core, c4)
	}
	r, err := Rank(m, []analysis.CoreResult{{Package: req.Package, Test: res.Seed, Suspects: res.Core}})
	if err != nil {
		t.Fatal(err)
	}
	l := lineOf(t, r.Scores, c4)
	why := r.Lines[slices.IndexFunc(r.Scores.Lines, func(s spectra.LineScore) bool { return s == l })]
	if l.Rank != 1 || why == nil || why.Bonus != 1 {
		t.Errorf("C4 in SAT-TAR's order: rank %d, %+v; want first with the bonus", l.Rank, why)
	}
}

// The coverage an entry gets in the build with Go's coverage is the
// spectra's own, block for block.
func TestCoverBuildMatchesTheSpectra(t *testing.T) {
	ws, m := collected(t, "minmax.txtar")
	ctx := context.Background()
	cb := coverBuildOf(t, ws.Module(), "example.com/minmax", request(m, "example.com/minmax", "FuzzMinMax").Blocks)
	for _, tr := range m.Tests {
		out, err := cb.run(ctx, tr.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != tr.Verdict || !slices.Equal(out.Hits, tr.Hits.Slice()) {
			t.Errorf("%s: %s %v in the cover build, %s %v in the spectra", tr.Name, out.Verdict, out.Hits, tr.Verdict, tr.Hits.Slice())
		}
		if len(out.Args) != 3 || out.Args[1].Type != "int" {
			t.Errorf("%s: arguments %+v, want three ints", tr.Name, out.Args)
		}
	}
	// A substituted input runs through the entry.
	out, err := cb.run(ctx, "FuzzMinMax/seed#7", map[int]Value{1: {Type: "int", Bits: 1}, 2: {Type: "int", Bits: 0}, 3: {Type: "int", Bits: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Failing() || out.Args[1].Bits != 2 {
		t.Errorf("seed#7 <2,2,2> run as <1,0,2>: %s, entered with %+v; want a failure, entered with <2,2,2>", out.Verdict, out.Args)
	}
}
