package localize

import (
	"go/ast"
	"go/scanner"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/faultline-go/faultline/internal/parsed"
)

// FunctionSpan is one declared function of a file: its first line (the
// header), its last (the closing brace) and the lines between that hold
// code, comments and blank lines left out.
type FunctionSpan struct {
	Start, End int
	Code       []int // in line order, Start and End among them
}

// FunctionSpans gives the declared functions of a file (relative to the
// module root, slash-separated), in line order; nil when it does not parse.
type FunctionSpans func(file string) []FunctionSpan

// SourceFunctionSpans reads the module's source files under root as they
// are asked for, each once.
func SourceFunctionSpans(root string) FunctionSpans {
	return FunctionSpansIn(root, parsed.New(0))
}

// FunctionSpansIn is SourceFunctionSpans through files, the parsed files
// its caller shares with the other readers of the same source.
func FunctionSpansIn(root string, files *parsed.Cache) FunctionSpans {
	var mu sync.Mutex
	spans := map[string][]FunctionSpan{}
	return func(file string) []FunctionSpan {
		mu.Lock()
		defer mu.Unlock()
		s, ok := spans[file]
		if !ok {
			v, err := files.DerivedFrom("unexecuted.spans", filepath.Join(root, filepath.FromSlash(file)), func(f *parsed.File) any {
				if f.Err != nil {
					return []FunctionSpan(nil)
				}
				return functionSpans(f)
			})
			if err == nil {
				s = v.([]FunctionSpan)
			}
			spans[file] = s
		}
		return s
	}
}

// functionSpans finds the declared functions of a parsed file.
func functionSpans(f *parsed.File) []FunctionSpan {
	// A line holds code when a token other than an inserted semicolon
	// starts on it; the scanner skips comments.
	code := map[int]bool{}
	var s scanner.Scanner
	sf := token.NewFileSet().AddFile(f.Path, -1, len(f.Src))
	s.Init(sf, f.Src, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		code[sf.Line(pos)] = true
	}
	var out []FunctionSpan
	for _, d := range f.AST.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		sp := FunctionSpan{Start: f.Line(fn.Pos()), End: f.Line(fn.Body.Rbrace)}
		for x := sp.Start; x <= sp.End; x++ {
			if code[x] {
				sp.Code = append(sp.Code, x)
			}
		}
		out = append(out, sp)
	}
	return out
}

// UnexecutedOptions says which lines no test runs WithUnexecuted places.
type UnexecutedOptions struct {
	// After is the first position they may follow: the lines above keep
	// their places.
	After int `json:"after"`
	// Distance is how many code lines away from a line a failing test
	// runs, in the same function, a line may be (1: its neighbours).
	Distance int `json:"distance"`
	// Reach, when positive, places only the neighbours of lines within
	// the first Reach positions.
	Reach int `json:"reach,omitempty"`
}

// EvidenceUnexecutedNextTo is the evidence column of the lines
// WithUnexecuted places: the rank of the executed line they are next to.
const EvidenceUnexecutedNextTo = "unexecuted.nextTo"

// WithUnexecuted places into the ranking the code lines no test runs that
// lie, within a declared function, at most opts.Distance code lines from a
// line a failing test runs: a function's header, the closing braces after
// its last executed statements, an else no test takes. Coverage holds none
// of them, yet a fault that is a header's wrong signature, or an omission
// whose fix goes next to executed code, is in such a line. Each follows
// the tie group of the best-ranked executed line it is near, but not
// above the tie group at position opts.After, nearer lines first.
func WithUnexecuted(r *Ranking, spans FunctionSpans, opts UnexecutedOptions) *Ranking {
	n := len(r.Lines)
	at := map[lineOf]int{} // a ranked line's index
	byFile := map[string]bool{}
	for i, l := range r.Lines {
		at[lineOf{l.File, l.Line}] = i
		if l.EF > 0 && (opts.Reach <= 0 || l.Tie[0] <= opts.Reach) {
			byFile[l.File] = true
		}
	}
	type placed struct {
		line     lineOf
		anchor   int // the index of the executed line it is near
		distance int
		after    int // the last position of the tie group it follows
	}
	var all []placed
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		for _, sp := range spans(file) {
			// anchors: the span's code lines a failing test runs, within reach.
			anchor := make([]int, len(sp.Code))
			for k, x := range sp.Code {
				anchor[k] = -1
				if i, ok := at[lineOf{file, x}]; ok && r.Lines[i].EF > 0 && (opts.Reach <= 0 || r.Lines[i].Tie[0] <= opts.Reach) {
					anchor[k] = i
				}
			}
			for k, x := range sp.Code {
				if _, ok := at[lineOf{file, x}]; ok {
					continue
				}
				best, dist := -1, 0
				for d := 1; d <= opts.Distance && best < 0; d++ {
					for _, j := range []int{k - d, k + d} {
						if j >= 0 && j < len(sp.Code) && anchor[j] >= 0 && (best < 0 || anchor[j] < best) {
							best, dist = anchor[j], d
						}
					}
				}
				if best < 0 {
					continue
				}
				after := max(r.Lines[best].Tie[1], opts.After)
				after = min(after, n)
				if after > 0 && after < n {
					after = r.Lines[after-1].Tie[1]
				}
				all = append(all, placed{lineOf{file, x}, best, dist, after})
			}
		}
	}
	if len(all) == 0 {
		return r
	}
	slices.SortFunc(all, func(a, b placed) int {
		if a.after != b.after {
			return a.after - b.after
		}
		if a.distance != b.distance {
			return a.distance - b.distance
		}
		if a.anchor != b.anchor {
			return a.anchor - b.anchor
		}
		if a.line.file != b.line.file {
			if a.line.file < b.line.file {
				return -1
			}
			return 1
		}
		return a.line.line - b.line.line
	})
	out := *r
	out.Lines = make([]RankedLine, 0, n+len(all))
	shift, next := 0, 0
	var placedAt, anchorOf []int
	emit := func(end int) {
		for ; next < len(all) && all[next].after == end; next++ {
			p := all[next]
			rank := len(out.Lines) + 1
			out.Lines = append(out.Lines, RankedLine{File: p.line.file, Line: p.line.line, Rank: rank,
				Tie: [2]int{rank, rank}, NF: r.Failed, NP: r.Passed})
			placedAt = append(placedAt, len(out.Lines)-1)
			anchorOf = append(anchorOf, p.anchor)
			shift++
		}
	}
	newIndex := make([]int, n)
	for i, l := range r.Lines {
		end := l.Tie[1]
		l.Rank += shift
		l.Tie = [2]int{l.Tie[0] + shift, l.Tie[1] + shift}
		newIndex[i] = len(out.Lines)
		out.Lines = append(out.Lines, l)
		if i+1 == end {
			emit(end)
		}
	}
	for k, i := range placedAt {
		next := float64(out.Lines[newIndex[anchorOf[k]]].Rank)
		out.Lines[i].Evidence = map[string]float64{EvidenceUnexecutedNextTo: next}
		out.Lines[i].Because = []Reason{{Evidence: EvidenceUnexecutedNextTo, Value: next}}
	}
	return &out
}
