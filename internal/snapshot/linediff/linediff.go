// Package linediff maps the lines of one version of a text onto another, so
// that results computed against the first version can be shown on the
// second, and withdrawn where the line itself was edited.
package linediff

import "hash/maphash"

// MaxEdits bounds the work spent on one comparison. When the two versions
// differ by more line insertions and deletions than this (after common
// leading and trailing lines are set aside), the lines in between are
// reported as changed: withdrawing a result is always safe, showing it on
// the wrong line is not.
const MaxEdits = 1000

// Map returns, for each line of old, the line of new holding it unchanged:
// m[i] is the 0-based index in new of old line i, or -1 when that line was
// edited or deleted.
func Map(old, new [][]byte) []int {
	m := make([]int, len(old))
	for i := range m {
		m[i] = -1
	}
	prefix := 0
	for prefix < len(old) && prefix < len(new) && string(old[prefix]) == string(new[prefix]) {
		m[prefix] = prefix
		prefix++
	}
	suffix := 0
	for suffix < len(old)-prefix && suffix < len(new)-prefix &&
		string(old[len(old)-1-suffix]) == string(new[len(new)-1-suffix]) {
		m[len(old)-1-suffix] = len(new) - 1 - suffix
		suffix++
	}
	a, b := ids(old[prefix:len(old)-suffix], new[prefix:len(new)-suffix])
	for _, p := range matches(a, b, MaxEdits) {
		m[prefix+p[0]] = prefix + p[1]
	}
	return m
}

// ids replaces lines by small integers, equal lines by equal integers, so
// the comparison below compares words instead of byte strings.
func ids(a, b [][]byte) ([]int, []int) {
	seed := maphash.MakeSeed()
	byHash := make(map[uint64][]int) // hash -> ids of distinct lines with it
	var texts [][]byte
	id := func(line []byte) int {
		h := maphash.Bytes(seed, line)
		for _, cand := range byHash[h] {
			if string(texts[cand]) == string(line) {
				return cand
			}
		}
		texts = append(texts, line)
		n := len(texts) - 1
		byHash[h] = append(byHash[h], n)
		return n
	}
	ai, bi := make([]int, len(a)), make([]int, len(b))
	for i, l := range a {
		ai[i] = id(l)
	}
	for i, l := range b {
		bi[i] = id(l)
	}
	return ai, bi
}

// matches returns the pairs (i, j) with a[i] == b[j] on a shortest edit
// script from a to b (Myers' O(ND) greedy algorithm), or nil when more than
// maxD edits are needed.
func matches(a, b []int, maxD int) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	// trace[d][k+d] is the furthest x reached on diagonal k with d edits.
	var trace [][]int
	prevAt := func(d, k int) int { // furthest x on diagonal k after d edits
		if d < 0 {
			return 0
		}
		return trace[d][k+d]
	}
	for d := 0; d <= maxD && d <= n+m; d++ {
		v := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			switch {
			case d == 0:
				x = 0
			case k == -d || (k != d && prevAt(d-1, k-1) < prevAt(d-1, k+1)):
				x = prevAt(d-1, k+1) // insertion: y advances
			default:
				x = prevAt(d-1, k-1) + 1 // deletion: x advances
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[k+d] = x
			if x >= n && y >= m {
				trace = append(trace, v)
				return backtrack(trace, a, b, d)
			}
		}
		trace = append(trace, v)
	}
	return nil
}

// backtrack walks the trace from the end back to the start, collecting the
// diagonal (unchanged) steps.
func backtrack(trace [][]int, a, b []int, d int) [][2]int {
	var pairs [][2]int
	x, y := len(a), len(b)
	for ; d > 0; d-- {
		k := x - y
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		var startX int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			startX = at(k + 1) // came down from diagonal k+1
		} else {
			startX = at(k-1) + 1 // came right from diagonal k-1
		}
		startY := startX - k
		for x > startX && y > startY {
			x--
			y--
			pairs = append(pairs, [2]int{x, y})
		}
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			x, y = at(k+1), at(k+1)-(k+1)
		} else {
			x, y = at(k-1), at(k-1)-(k-1)
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		pairs = append(pairs, [2]int{x, y})
	}
	return pairs
}
