package report

import (
	"fmt"
	"sort"
	"strings"
)

// diagnosability measures the suite and says what would raise each factor.
func (p *pageBuilder) diagnosability() diagnosabilityView {
	m := p.loc.Matrix
	d := Measure(m)
	v := diagnosabilityView{Diagnosability: d}
	if d.Tests == 0 || d.Components == 0 {
		v.Advice = append(v.Advice, advice{Text: "No counted test and block: nothing to measure."})
		return v
	}
	switch {
	case d.Density < 0.4:
		v.Advice = append(v.Advice, advicef("Density %.2f: each test executes few of the module's blocks. Tests that exercise more code each bring it toward the ideal 0.5.", d.Density))
	case d.Density > 0.6:
		v.Advice = append(v.Advice, advicef("Density %.2f: each test executes most of the module's blocks. Smaller, more focused tests bring it toward the ideal 0.5.", d.Density))
	}
	if d.Unexecuted > 0 {
		v.Advice = append(v.Advice, advicef("%d of %d blocks are executed by no test, so no ranking can point at them (%s). Tests that reach them raise uniqueness.",
			d.Unexecuted, d.Components, p.unexecutedFiles()))
	}
	if len(d.SameCoverage) > 0 {
		a := advice{Text: "Tests that execute exactly the same blocks cannot disagree about where a fault is; a test that takes another path raises diversity. The largest such groups:"}
		for _, g := range d.SameCoverage {
			var names []string
			for i, ti := range g {
				if i == 3 {
					names = append(names, fmt.Sprintf("and %d more", len(g)-3))
					break
				}
				names = append(names, m.Tests[ti].Name)
			}
			a.Items = append(a.Items, fmt.Sprintf("%d tests: %s", len(g), strings.Join(names, ", ")))
		}
		v.Advice = append(v.Advice, a)
	}
	if len(d.Ambiguous) > 0 {
		a := advice{Text: "Blocks that exactly the same tests execute cannot be told apart by any ranking; a test that runs some of them but not the others raises uniqueness. The largest such groups:"}
		for _, g := range d.Ambiguous {
			a.Items = append(a.Items, fmt.Sprintf("%d blocks: %s", len(g), p.blockSpans(g)))
		}
		v.Advice = append(v.Advice, a)
	}
	return v
}

// advice is one way to raise the suite's diagnosability, with examples.
type advice struct {
	Text  string
	Items []string
}

func advicef(format string, args ...any) advice { return advice{Text: fmt.Sprintf(format, args...)} }

// unexecutedFiles names the files with the most blocks no test executes.
func (p *pageBuilder) unexecutedFiles() string {
	executed := make([]bool, len(p.loc.Matrix.Blocks))
	for _, t := range p.loc.Matrix.Tests {
		if t.Verdict.Counted() {
			for b := range t.Hits.All() {
				executed[b] = true
			}
		}
	}
	count := map[string]int{}
	for b, blk := range p.loc.Matrix.Blocks {
		if !executed[b] {
			count[blk.File]++
		}
	}
	return topFiles(count, "blocks")
}

func topFiles(count map[string]int, unit string) string {
	files := make([]string, 0, len(count))
	for f := range count {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		if count[files[i]] != count[files[j]] {
			return count[files[i]] > count[files[j]]
		}
		return files[i] < files[j]
	})
	var parts []string
	for i, f := range files {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more files", len(files)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s: %d %s", f, count[f], unit))
	}
	return strings.Join(parts, ", ")
}

// blockSpans describes blocks by file and line range: "a.go:5-12 in F".
func (p *pageBuilder) blockSpans(blocks []int) string {
	type span struct {
		file       string
		start, end int
	}
	var spans []span
	for _, bi := range blocks {
		b := p.loc.Matrix.Blocks[bi]
		lo, hi := b.Start.Line, b.End.Line
		if len(b.Lines) > 0 {
			lo, hi = b.Lines[0], b.Lines[len(b.Lines)-1]
		}
		if n := len(spans); n > 0 && spans[n-1].file == b.File && lo <= spans[n-1].end+3 {
			spans[n-1].end = max(spans[n-1].end, hi)
			continue
		}
		spans = append(spans, span{b.File, lo, hi})
	}
	var parts []string
	for i, s := range spans {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more places", len(spans)-3))
			break
		}
		where := fmt.Sprintf("%s:%d", s.file, s.start)
		if s.end > s.start {
			where += fmt.Sprintf("-%d", s.end)
		}
		if fn := p.sources.File(s.file).Func(s.start); fn != "" {
			where += " in " + fn
		}
		parts = append(parts, where)
	}
	return strings.Join(parts, ", ")
}
