package sarif

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/export/exporttest"
	"github.com/faultline-go/faultline/internal/localize"
)

// BenchmarkWriteEveryLine writes a log of 45,000 ranked lines over 45
// files of 1,000 lines, the size of bench/export's generated module.
func BenchmarkWriteEveryLine(b *testing.B) {
	loc := exporttest.Module(b)
	var lines []localize.RankedLine
	for f := 0; f < 45; f++ {
		var src strings.Builder
		fmt.Fprintf(&src, "package p%d\n\nfunc F() {\n", f)
		for n := 4; n <= 1000; n++ {
			fmt.Fprintf(&src, "\tx%d := y + %d\n", n, n)
		}
		src.WriteString("}\n")
		name := fmt.Sprintf("p%d/p.go", f)
		if err := os.MkdirAll(filepath.Join(loc.Matrix.Root, filepath.Dir(name)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(loc.Matrix.Root, name), []byte(src.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		for n := 1; n <= 1000; n++ {
			r := len(lines) + 1
			lines = append(lines, localize.RankedLine{File: name, Line: n, Score: 1 / float64(r), Rank: r, Tie: [2]int{r, r}, EF: 1, EP: r % 1000, NP: 1000 - r%1000})
		}
	}
	loc.Ranking.Lines = lines
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Write(io.Discard, loc, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
