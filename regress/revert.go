package regress

import (
	"slices"
	"strings"
)

// origin says where a line of a partly reverted file comes from: a line
// of the working tree (hunk -1), or the base text of a reverted hunk.
type origin struct {
	newLine int // the working tree's line number, when hunk is -1
	hunk    int
}

// compose returns the file's content with the hunks reverted reports
// reverted, whether the file exists then, and where each line comes from.
func (f *fileChange) compose(reverted func(id int) bool) (string, bool, []origin) {
	var hs []*Hunk
	for _, h := range f.Hunks {
		if reverted(h.ID) {
			hs = append(hs, h)
		}
	}
	if len(hs) == len(f.Hunks) && !f.HasOld {
		return "", false, nil // added since the base: reverted whole
	}
	if len(hs) == 0 && !f.HasNew {
		return "", false, nil // deleted since the base, not restored
	}
	lines := splitLines(f.New)
	var b strings.Builder
	var from []origin
	next := 1 // the next working-tree line to copy
	copyTo := func(last int) {
		for ; next <= last && next <= len(lines); next++ {
			b.WriteString(lines[next-1])
			from = append(from, origin{newLine: next, hunk: -1})
		}
	}
	slices.SortStableFunc(hs, func(a, b *Hunk) int {
		if a.NewStart != b.NewStart {
			return a.NewStart - b.NewStart
		}
		return a.OldStart - b.OldStart
	})
	for _, h := range hs {
		if h.NewCount == 0 {
			copyTo(h.NewStart)
		} else {
			copyTo(h.NewStart - 1)
			next = h.NewStart + h.NewCount
		}
		for _, l := range h.Old {
			b.WriteString(l)
			from = append(from, origin{hunk: h.ID})
		}
	}
	copyTo(len(lines))
	return b.String(), true, from
}

// setOf turns hunk IDs into a membership test.
func setOf(ids []int) func(int) bool {
	in := make(map[int]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	return func(id int) bool { return in[id] }
}
