// Package exporttest builds a small localization on disk for the tests of
// the export formats: a module with a seeded fault, a hand-made spectrum
// whose test names hold commas, quotes, slashes and a line break, and a
// verified angelic fix on a line with non-ASCII text before the
// expression.
package exporttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Source is price/price.go of the module; line 10 holds the fault (the
// discount is subtracted only above 100, the test expects it from 100 on).
const Source = `package price

// Total sums the prices and takes the discount off a large order.
func Total(prices []int, réduction int) int {
	tötal := 0
	for _, p := range prices {
		tötal += p
	}
	if tötal > 100 {
		tötal -= réduction
	}
	return tötal
}
`

// FaultLine is the line of the seeded fault in price/price.go.
const FaultLine = 9

// TestNames are the leaf tests, failing ones first.
var TestNames = []string{
	`TestTotal/at_100,_discounted`,
	`TestTotal/"quoted"_name`,
	`TestTotal/small/order`,
	"TestTotal/large\norder",
	`TestEmpty`,
}

// Module writes the module under a temporary directory and returns the
// localization of its tests, combined with one verified fix.
func Module(t testing.TB) *localize.Localization {
	t.Helper()
	root := t.TempDir()
	write := func(rel, text string) {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/shop\n\ngo 1.22\n")
	write("price/price.go", Source)
	m := &spectra.Matrix{
		ModulePath: "example.com/shop",
		Root:       root,
		Blocks: []spectra.Block{
			{File: "price/price.go", Lines: []int{5, 6}}, // 0: entry
			{File: "price/price.go", Lines: []int{7}},    // 1: loop body
			{File: "price/price.go", Lines: []int{9}},    // 2: the condition
			{File: "price/price.go", Lines: []int{10}},   // 3: the discount
			{File: "price/price.go", Lines: []int{12}},   // 4: return
		},
		Tests: []spectra.TestRun{
			{Package: "example.com/shop/price", Name: TestNames[0], Verdict: spectra.Fail, Elapsed: 3 * time.Millisecond,
				FailSites: []spectra.Site{{File: "price/price_test.go", Line: 21}}, Hits: spectra.NewHits(0, 1, 2, 4)},
			{Package: "example.com/shop/price", Name: TestNames[1], Verdict: spectra.Panic, Elapsed: time.Millisecond, Hits: spectra.NewHits(0, 1, 2, 4)},
			{Package: "example.com/shop/price", Name: TestNames[2], Verdict: spectra.Pass, Elapsed: time.Millisecond, Hits: spectra.NewHits(0, 1, 2, 4)},
			{Package: "example.com/shop/price", Name: TestNames[3], Verdict: spectra.Pass, Elapsed: time.Millisecond, Hits: spectra.NewHits(0, 1, 2, 3, 4)},
			{Package: "example.com/shop/price", Name: TestNames[4], Verdict: spectra.Pass, Hits: spectra.NewHits(0, 2, 4)},
			{Package: "example.com/shop/price", Name: "TestSkipped", Verdict: spectra.Skip},
		},
	}
	r, err := localize.RankFormula(m, rank.Default())
	if err != nil {
		t.Fatal(err)
	}
	fix := analysis.Location{File: "price/price.go", Line: 9, Col: 5, EndLine: 9, EndCol: 17,
		Expr: "tötal > 100", Original: "false", Angelic: "true"}
	results := []analysis.TestResult{{Test: TestNames[0], Package: "example.com/shop/price",
		Candidates: []analysis.Candidate{{Verified: true, Locations: []analysis.Location{fix}}}}}
	return &localize.Localization{
		Matrix:  m,
		Ranking: localize.Combine(r, results),
		Angelic: &localize.Angelic{Failing: 2, Analyzed: 1, Fixes: []localize.Fix{{Test: TestNames[0], Package: "example.com/shop/price", Location: fix}},
			Notes: []string{"analysed the first 1 of 2 failing tests (-max-analyzed)"}},
	}
}
