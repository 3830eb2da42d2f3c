// Command export measures what faultline's exports cost beyond the ranking
// itself, on a generated module of 50,000 lines (bench/internal/genmod, the
// generator bench/server uses: 50 packages × 20 functions × 50 lines, 1,000
// tests, one failing). It collects the spectra once, then times, over
// several rounds, the ranking (spectra.RankLines) and each export written to
// a file as faultline writes it: the SARIF log (-top 20, the default, and
// every executed line), GZoltar's CSV triple and the HTML report.
//
//	go run ./bench/export [-runs 7] [-packages 50]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/genmod"
	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/export/gzoltar"
	"github.com/faultline-go/faultline/internal/export/sarif"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/report"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

func main() {
	runs := flag.Int("runs", 7, "timed rounds")
	packages := flag.Int("packages", 50, "generated packages of 1,000 lines each")
	keep := flag.Bool("keep", false, "keep the generated module and the outputs")
	flag.Parse()
	if err := run(*runs, *packages, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench/export:", err)
		os.Exit(1)
	}
}

func run(runs, packages int, keep bool) error {
	dir, err := os.MkdirTemp("", "faultline-bench-export-*")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	mod := filepath.Join(dir, "mod")
	_, lines, tests, err := genmod.Generate(mod, genmod.Size{Packages: packages, FuncsPerPackage: 20, LinesPerFunc: 50})
	if err != nil {
		return fmt.Errorf("generating the module: %w", err)
	}
	fmt.Printf("module: %d packages, %d lines of code, %d tests (%s)\n", packages, lines, tests, mod)
	fmt.Printf("load average before: %s\n", loadavg())

	ws, err := spectra.Open(mod, spectra.Options{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		return err
	}
	start := time.Now()
	m, err := ws.Collect(context.Background(), spectra.CollectOptions{Packages: []string{"./..."}})
	if err != nil {
		return err
	}
	fmt.Printf("collection: %s, %d blocks, %d tests\n", time.Since(start).Round(time.Millisecond), len(m.Blocks), len(m.Tests))

	out := filepath.Join(dir, "out")
	var ranking *localize.Ranking
	steps := []struct {
		name  string
		write func(loc *localize.Localization) error
		file  string
	}{
		{"SARIF, -top 20 (default)", func(loc *localize.Localization) error {
			return export.WriteFile(filepath.Join(out, "top.sarif"), func(w io.Writer) error { return sarif.Write(w, loc, sarif.Options{Top: 20}) })
		}, "top.sarif"},
		{"SARIF, every executed line", func(loc *localize.Localization) error {
			return export.WriteFile(filepath.Join(out, "all.sarif"), func(w io.Writer) error { return sarif.Write(w, loc, sarif.Options{}) })
		}, "all.sarif"},
		{"GZoltar CSV triple", func(loc *localize.Localization) error {
			return gzoltar.Write(filepath.Join(out, "gzoltar"), loc)
		}, "gzoltar"},
		{"HTML report", func(loc *localize.Localization) error {
			return export.WriteFile(filepath.Join(out, "report.html"), func(w io.Writer) error { return report.Write(w, loc, report.Options{}) })
		}, "report.html"},
	}
	times := make([][]time.Duration, len(steps)+1)
	for round := 0; round < runs; round++ {
		t0 := time.Now()
		ranking, err = localize.RankFormula(m, rank.Default())
		if err != nil {
			return err
		}
		times[0] = append(times[0], time.Since(t0))
		loc := &localize.Localization{Matrix: m, Ranking: ranking}
		for i, s := range steps {
			t0 := time.Now()
			if err := s.write(loc); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			times[i+1] = append(times[i+1], time.Since(t0))
		}
	}
	fmt.Printf("%d failing and %d passing tests, %d ranked lines\n\n", ranking.Failed, ranking.Passed, len(ranking.Lines))
	rankMedian := median(times[0])
	fmt.Printf("| step (%d rounds) | median | max | × ranking | output |\n|---|---|---|---|---|\n", runs)
	fmt.Printf("| ranking (RankLines) | %s | %s | 1 | |\n", ms(rankMedian), ms(slices.Max(times[0])))
	for i, s := range steps {
		med := median(times[i+1])
		fmt.Printf("| %s | %s | %s | %.2f | %s |\n", s.name, ms(med), ms(slices.Max(times[i+1])), float64(med)/float64(rankMedian), size(filepath.Join(out, s.file)))
	}
	fmt.Printf("\nload average after: %s\n", loadavg())
	return nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// size is the bytes written at path, a file or a directory of files.
func size(path string) string {
	var n int64
	filepath.Walk(path, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
