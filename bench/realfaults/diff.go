package main

import (
	"go/scanner"
	"go/token"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// codeLines returns the lines of a Go source that hold a token other than
// a comment.
func codeLines(src []byte) map[int]bool {
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

// faultyLines turns one file's hunks into its faulty lines, given the code
// lines of the faulty (old) version: the code lines a realfault.Hunk changed or
// deleted, and around a pure insertion the nearest code line above and
// below. It also returns the hunks that touched code.
func faultyLines(hunks []realfault.Hunk, code map[int]bool, oldLines int) (changed, around []int, codeHunks []realfault.Hunk) {
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

// hunkGap is how many unchanged lines may separate two zero-context hunks
// that still count as one: git's default three lines of context on each
// side would show them as one hunk.
const hunkGap = 6

// sizeClass says how large a fix is: one-line (one line changed into at
// most one), one-realfault.Hunk, or multi-realfault.Hunk, counting hunks as git's default
// context would merge them.
func sizeClass(hunks []realfault.Hunk) string {
	merged := 0
	for i, h := range hunks {
		if i > 0 {
			p := hunks[i-1]
			if p.File == h.File && h.OldStart-(p.OldStart+p.OldCount) <= hunkGap {
				continue
			}
		}
		merged++
	}
	switch {
	case len(hunks) == 1 && hunks[0].OldCount <= 1 && hunks[0].NewCount <= 1:
		return "one-line"
	case merged == 1:
		return "one-hunk"
	}
	return "multi-hunk"
}
