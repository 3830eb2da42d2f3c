package regress

import (
	"context"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Hunk is one change between the base and the working tree: a
// zero-context diff hunk, split at statement boundaries.
type Hunk struct {
	ID   int
	File string // slash path relative to the module root
	// OldStart..OldStart+OldCount-1 are its lines at the base and
	// NewStart..NewStart+NewCount-1 in the working tree; a count of 0
	// means the hunk only adds (or only deletes) text after line Start.
	OldStart, OldCount int
	NewStart, NewCount int
	Old, New           []string // the lines, each with its line ending
}

// Lines returns the hunk's lines in the working tree, first and last
// (inclusive); for a hunk that only deletes, last = first-1 and first is
// the line the deleted text stood before.
func (h *Hunk) Lines() (first, last int) {
	if h.NewCount == 0 {
		return h.NewStart + 1, h.NewStart
	}
	return h.NewStart, h.NewStart + h.NewCount - 1
}

// touches reports whether lines first..last of the working tree overlap
// the hunk; a hunk that only deletes touches the lines on both sides of
// where its text stood.
func (h *Hunk) touches(first, last int) bool {
	if h.NewCount == 0 {
		return first <= h.NewStart+1 && h.NewStart <= last
	}
	return first <= h.NewStart+h.NewCount-1 && h.NewStart <= last
}

// fileChange is one file that differs between the base and the working
// tree.
type fileChange struct {
	Rel            string // relative to the module root, slash-separated
	Abs            string
	Old, New       []byte
	HasOld, HasNew bool
	Hunks          []*Hunk
}

// changeSet is every change between the base and the working tree inside
// the module.
type changeSet struct {
	files []*fileChange // files whose hunks are candidates
	hunks []*Hunk       // the candidates, by ID
	// kept are the other changed files (tests, test data, other files),
	// which stay as they are in the working tree: the test is the input.
	kept []string
}

// candidate reports whether a changed file's hunks are candidates: Go
// files other than tests and test data, and the module's requirements.
func candidate(rel string) bool {
	if rel == "go.mod" || rel == "go.sum" {
		return true
	}
	if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
		return false
	}
	dir := path.Dir(rel)
	if dir == "." {
		return true
	}
	for _, elem := range strings.Split(dir, "/") {
		if elem == "testdata" || strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
			return false
		}
	}
	return true
}

// collectChanges diffs the module (modRel, relative to the top level, at
// modRoot on disk) between base and the working tree.
func collectChanges(ctx context.Context, r *repo, base, modRoot, modRel string) (*changeSet, error) {
	statuses, err := r.changed(ctx, base, modRel)
	if err != nil {
		return nil, err
	}
	nested := nestedModules{root: modRoot, known: map[string]bool{}}
	cs := &changeSet{}
	var tracked []string
	byTop := map[string]*fileChange{}
	for _, st := range statuses {
		rel := st.Path
		if modRel != "" {
			rel = strings.TrimPrefix(st.Path, modRel+"/")
		}
		if nested.inside(rel) {
			continue
		}
		if !candidate(rel) {
			cs.kept = append(cs.kept, rel)
			continue
		}
		f := &fileChange{Rel: rel, Abs: filepath.Join(modRoot, filepath.FromSlash(rel))}
		if f.Old, f.HasOld, err = r.blob(ctx, base, st.Path); err != nil {
			return nil, err
		}
		if f.New, f.HasNew, err = r.readWork(st.Path); err != nil {
			return nil, err
		}
		if f.HasOld && f.HasNew && string(f.Old) == string(f.New) {
			continue // only the mode or the index differs
		}
		cs.files = append(cs.files, f)
		if f.HasOld && f.HasNew {
			tracked = append(tracked, st.Path)
			byTop[st.Path] = f
		}
	}
	ranges, err := r.diffRanges(ctx, base, tracked)
	if err != nil {
		return nil, err
	}
	for _, f := range cs.files {
		oldLines, newLines := splitLines(f.Old), splitLines(f.New)
		var rs []hunkRange
		if f.HasOld && f.HasNew {
			for top, g := range byTop {
				if g == f {
					rs = ranges[top]
				}
			}
			if len(rs) == 0 { // a diff git would not show as text
				rs = []hunkRange{{1, len(oldLines), 1, len(newLines)}}
			}
		} else {
			rs = []hunkRange{{0, 0, 0, 0}}
			if f.HasOld {
				rs[0].oldStart, rs[0].oldCount = 1, len(oldLines)
			}
			if f.HasNew {
				rs[0].newStart, rs[0].newCount = 1, len(newLines)
			}
		}
		var split splitter
		if strings.HasSuffix(f.Rel, ".go") {
			split = newSplitter(f.Old, f.New)
		}
		for _, hr := range rs {
			h := &Hunk{File: f.Rel, OldStart: hr.oldStart, OldCount: hr.oldCount, NewStart: hr.newStart, NewCount: hr.newCount}
			if hr.oldCount > 0 {
				h.Old = slices.Clone(sliceLines(oldLines, hr.oldStart, hr.oldCount))
			}
			if hr.newCount > 0 {
				h.New = slices.Clone(sliceLines(newLines, hr.newStart, hr.newCount))
			}
			f.Hunks = append(f.Hunks, split.split(h)...)
		}
	}
	slices.SortFunc(cs.files, func(a, b *fileChange) int { return strings.Compare(a.Rel, b.Rel) })
	for _, f := range cs.files {
		slices.SortStableFunc(f.Hunks, func(a, b *Hunk) int {
			if a.NewStart != b.NewStart {
				return a.NewStart - b.NewStart
			}
			return a.OldStart - b.OldStart
		})
		for _, h := range f.Hunks {
			h.ID = len(cs.hunks)
			cs.hunks = append(cs.hunks, h)
		}
	}
	return cs, nil
}

// sliceLines returns count lines from the 1-based start, clamped.
func sliceLines(lines []string, start, count int) []string {
	lo := min(max(start-1, 0), len(lines))
	hi := min(lo+count, len(lines))
	return lines[lo:hi]
}

// splitLines splits text into lines that keep their line endings.
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// nestedModules recognises files of modules nested in the module.
type nestedModules struct {
	root  string
	known map[string]bool // directory -> holds a go.mod below the root
}

func (n nestedModules) inside(rel string) bool {
	dir := path.Dir(rel)
	for dir != "." && dir != "/" {
		has, ok := n.known[dir]
		if !ok {
			_, err := os.Stat(filepath.Join(n.root, filepath.FromSlash(dir), "go.mod"))
			has = err == nil
			n.known[dir] = has
		}
		if has {
			return true
		}
		dir = path.Dir(dir)
	}
	return false
}

// splitter splits the hunks of one Go file at statement boundaries.
type splitter struct {
	old, new []span // the statement-like nodes of each side; nil when it does not parse
	parsed   bool
}

// span is the lines of one statement, declaration, spec, field or case.
type span struct{ first, last int }

func newSplitter(oldSrc, newSrc []byte) splitter {
	return splitter{old: nodeSpans(oldSrc), new: nodeSpans(newSrc), parsed: true}
}

// split divides a hunk into one hunk per statement: the statements of
// its two sides are aligned in order by their similarity, a pair becoming
// a replacement and a statement left alone an addition or a deletion. The
// statements of a side are the outermost ones lying wholly inside its
// lines, so that an if added or deleted whole stays one hunk. A hunk with
// at most one statement a side stays whole.
func (s splitter) split(h *Hunk) []*Hunk {
	// The last line of a file without a line ending cannot move to the
	// middle of a partly reverted file: such a hunk stays whole.
	if !s.parsed || !endsLine(h.Old) || !endsLine(h.New) {
		return []*Hunk{h}
	}
	oldSegs := segments(s.old, h.OldStart, h.OldCount)
	newSegs := segments(s.new, h.NewStart, h.NewCount)
	if len(oldSegs) <= 1 && len(newSegs) <= 1 {
		return []*Hunk{h}
	}
	oldText := func(sp span) []string { return h.Old[sp.first-h.OldStart : sp.last-h.OldStart+1] }
	newText := func(sp span) []string { return h.New[sp.first-h.NewStart : sp.last-h.NewStart+1] }
	ops := align(len(oldSegs), len(newSegs), func(i, j int) float64 {
		return similarity(strings.Join(oldText(oldSegs[i]), ""), strings.Join(newText(newSegs[j]), ""))
	})
	var out []*Hunk
	oldAt, newAt := h.OldStart-1, h.NewStart-1 // the last line of each side placed so far
	if h.OldCount == 0 {
		oldAt = h.OldStart
	}
	if h.NewCount == 0 {
		newAt = h.NewStart
	}
	for _, op := range ops {
		sub := &Hunk{File: h.File, OldStart: oldAt, NewStart: newAt}
		if op.old >= 0 {
			sp := oldSegs[op.old]
			sub.OldStart, sub.OldCount, sub.Old = sp.first, sp.last-sp.first+1, oldText(sp)
			oldAt = sp.last
		}
		if op.new >= 0 {
			sp := newSegs[op.new]
			sub.NewStart, sub.NewCount, sub.New = sp.first, sp.last-sp.first+1, newText(sp)
			newAt = sp.last
		}
		out = append(out, sub)
	}
	return out
}

func endsLine(lines []string) bool {
	return len(lines) == 0 || strings.HasSuffix(lines[len(lines)-1], "\n")
}

// alignOp is one step of an alignment: a pair, or a segment of one side
// alone (-1 on the other).
type alignOp struct{ old, new int }

// minSimilarity is how alike two statements must be to pair them.
const minSimilarity = 0.3

// align pairs n old and m new segments in order, maximising the summed
// similarity of the pairs; unpaired segments are additions or deletions.
// Two sides of one segment each always pair.
func align(n, m int, sim func(i, j int) float64) []alignOp {
	if n == 1 && m == 1 {
		return []alignOp{{0, 0}}
	}
	best := make([][]float64, n+1)
	for i := range best {
		best[i] = make([]float64, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			b := max(best[i+1][j], best[i][j+1])
			if s := sim(i, j); s >= minSimilarity {
				b = max(b, s+best[i+1][j+1])
			}
			best[i][j] = b
		}
	}
	var ops []alignOp
	i, j := 0, 0
	for i < n && j < m {
		if s := sim(i, j); s >= minSimilarity && best[i][j] == s+best[i+1][j+1] {
			ops = append(ops, alignOp{i, j})
			i, j = i+1, j+1
		} else if best[i][j] == best[i+1][j] {
			ops = append(ops, alignOp{i, -1})
			i++
		} else {
			ops = append(ops, alignOp{-1, j})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, alignOp{i, -1})
	}
	for ; j < m; j++ {
		ops = append(ops, alignOp{-1, j})
	}
	return ops
}

// similarity is the Jaccard index of the two texts' Go tokens.
func similarity(a, b string) float64 {
	ta, tb := tokens(a), tokens(b)
	if len(ta) == 0 && len(tb) == 0 {
		return 1
	}
	inter := 0
	for t := range ta {
		if tb[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(ta)+len(tb)-inter)
}

func tokens(src string) map[string]bool {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	sc.Init(f, []byte(src), nil, 0)
	out := map[string]bool{}
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			return out
		}
		if lit == "" {
			lit = tok.String()
		}
		if tok != token.SEMICOLON || lit == ";" {
			out[lit] = true
		}
	}
}

// segments divides lines start..start+count-1 at the outermost statements
// lying wholly inside them: each segment is one such statement, with the
// lines before it that belong to none (blank lines, comments, braces);
// lines after the last statement join it. Fewer than two such
// statements give one segment.
func segments(spans []span, start, count int) []span {
	if count == 0 {
		return nil
	}
	last := start + count - 1
	var inside []span
	for _, sp := range spans {
		if sp.first >= start && sp.last <= last {
			inside = append(inside, sp)
		}
	}
	// Outermost: not within another of them.
	slices.SortFunc(inside, func(a, b span) int {
		if a.first != b.first {
			return a.first - b.first
		}
		return b.last - a.last
	})
	var outer []span
	for _, sp := range inside {
		if len(outer) > 0 && sp.first <= outer[len(outer)-1].last {
			continue
		}
		outer = append(outer, sp)
	}
	if len(outer) < 2 {
		return []span{{start, last}}
	}
	// Lines between two statements (blank lines, a doc comment) go with
	// the statement after them.
	outer[0].first = start
	for i := 1; i < len(outer); i++ {
		outer[i].first = outer[i-1].last + 1
	}
	outer[len(outer)-1].last = last
	return outer
}

// nodeSpans lists the lines of every statement-like node of a Go source:
// statements (not blocks), declarations, specs, fields and case clauses.
// Nil when the source does not parse.
func nodeSpans(src []byte) []span {
	if src == nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil || f == nil {
		return nil
	}
	var out []span
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case nil, *ast.BlockStmt, *ast.File:
		case ast.Stmt, ast.Decl, ast.Spec, *ast.Field:
			a, b := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
			out = append(out, span{a, b})
		}
		return true
	})
	return out
}
