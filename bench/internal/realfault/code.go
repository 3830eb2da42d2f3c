package realfault

import (
	"go/scanner"
	"go/token"
	"slices"
	"strings"
)

// CodeLines returns the lines of a Go source that hold a token other than
// a comment.
func CodeLines(src []byte) map[int]bool {
	lines := map[int]bool{}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) {}, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // an inserted semicolon is no code of its own
		}
		start := file.Line(pos)
		end := start
		if tok == token.STRING && strings.HasPrefix(lit, "`") {
			end += strings.Count(lit, "\n")
		}
		for l := start; l <= end; l++ {
			lines[l] = true
		}
	}
	return lines
}

// FaultyLines turns one file's hunks into its faulty lines, given the code
// lines of the faulty (old) version: the code lines a Hunk changed or
// deleted, and around a pure insertion the nearest code line above and
// below. It also returns the hunks that touched code.
func FaultyLines(hunks []Hunk, code map[int]bool, oldLines int) (changed, around []int, codeHunks []Hunk) {
	for _, h := range hunks {
		touched := false
		if h.OldCount > 0 {
			for l := h.OldStart; l < h.OldStart+h.OldCount; l++ {
				if code[l] {
					changed = append(changed, l)
					touched = true
				}
			}
		} else {
			for l := h.OldStart; l >= 1; l-- {
				if code[l] {
					around = append(around, l)
					break
				}
			}
			for l := h.OldStart + 1; l <= oldLines; l++ {
				if code[l] {
					around = append(around, l)
					break
				}
			}
			touched = true
		}
		if !touched && h.NewCount > 0 {
			// Comment or blank lines replaced by new lines that may be
			// code: treat as an insertion at that place.
			touched = true
			for l := h.OldStart - 1; l >= 1; l-- {
				if code[l] {
					around = append(around, l)
					break
				}
			}
			for l := h.OldStart + h.OldCount; l <= oldLines; l++ {
				if code[l] {
					around = append(around, l)
					break
				}
			}
		}
		if touched {
			codeHunks = append(codeHunks, h)
		}
	}
	slices.Sort(changed)
	slices.Sort(around)
	around = slices.Compact(around)
	around = slices.DeleteFunc(around, func(l int) bool { return slices.Contains(changed, l) })
	return changed, around, codeHunks
}
