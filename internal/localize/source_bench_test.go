package localize

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/parsed"
)

// BenchmarkModuleSourceReaders runs the readers of the module's source one
// ranking has (the function of each line for the learned order, the
// declarations each line reads, the static and identity evidence, the
// function list of the output) over every line of this module's own
// non-test sources under a few directories, the way -bench figures in
// bench/README.md compare them: each reader parsing on its own, one cache
// for the ranking, and the same cache for the next ranking (the server's).
func BenchmarkModuleSourceReaders(b *testing.B) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	var lines []RankedLine
	for _, dir := range []string{"analysis", "internal/localize", "spectra", "regress"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, dir, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			for n := range bytes.Count(src, []byte("\n")) {
				lines = append(lines, RankedLine{File: path.Join(dir, e.Name()), Line: n + 1})
			}
		}
	}
	readAll := func(cacheFor func() *parsed.Cache) {
		functions := func() {
			of := FunctionsIn(export.NewSourcesIn(root, cacheFor()))
			for _, l := range lines {
				of(l.File, l.Line)
			}
		}
		functions()
		reads := DeclarationReadsIn(root, cacheFor())
		for _, l := range lines {
			reads(l.File, l.Line)
		}
		if err := staticEvidence(&evidenceInput{matrix: &Matrix{Root: root}, lines: lines, files: cacheFor()}, func(string, int, float64) {}); err != nil {
			b.Fatal(err)
		}
		if _, err := identityEvidenceIn(root, cacheFor(), []FailingTest{{Package: "github.com/faultline-go/faultline/analysis", Name: "TestX"}}, lines); err != nil {
			b.Fatal(err)
		}
		functions() // the output's function list
	}
	b.Run("cache-per-reader", func(b *testing.B) {
		for range b.N {
			readAll(func() *parsed.Cache { return parsed.New(0) })
		}
	})
	b.Run("one-cache", func(b *testing.B) {
		for range b.N {
			files := parsed.New(0)
			readAll(func() *parsed.Cache { return files })
		}
	})
	b.Run("one-cache-next-ranking", func(b *testing.B) {
		files := parsed.New(0)
		readAll(func() *parsed.Cache { return files })
		b.ResetTimer()
		for range b.N {
			readAll(func() *parsed.Cache { return files })
		}
	})
}
