package main

import "github.com/faultline-go/faultline/bench/internal/realfault"

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
