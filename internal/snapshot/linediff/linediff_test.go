package linediff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func lines(s string) [][]byte {
	var out [][]byte
	for _, l := range strings.Split(s, "\n") {
		out = append(out, []byte(l))
	}
	return out
}

func TestMap(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []int
	}{
		{"identical", "a\nb\nc", "a\nb\nc", []int{0, 1, 2}},
		{"insert above", "a\nb\nc", "x\na\nb\nc", []int{1, 2, 3}},
		{"delete above", "a\nb\nc", "b\nc", []int{-1, 0, 1}},
		{"edit in place", "a\nb\nc", "a\nB\nc", []int{0, -1, 2}},
		{"edit and insert", "a\nb\nc\nd", "a\nB\nnew\nc\nd", []int{0, -1, 3, 4}},
		{"swap", "a\nb\nc", "b\na\nc", []int{-1, 0, 2}},
		{"repeated lines", "x\nx\ny\nx", "x\ny\nx\nx", []int{0, -1, 1, 3}},
		{"all new", "a\nb", "c\nd", []int{-1, -1}},
		{"to empty", "a\nb", "", []int{-1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Map(lines(tt.old), lines(tt.new))
			if len(got) != len(tt.want) {
				t.Fatalf("Map = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("Map = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestMapProperties checks on random edits that every mapped line is equal
// in both versions, that the mapping keeps order, and that the number of
// mapped lines is the length of a longest common subsequence.
func TestMapProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		a := randomLines(r, r.IntN(30))
		b := mutate(r, a)
		m := Map(a, b)
		last, mapped := -1, 0
		for i, j := range m {
			if j < 0 {
				continue
			}
			mapped++
			if string(a[i]) != string(b[j]) {
				t.Fatalf("line %d mapped to %d but differs: %q vs %q", i, j, a[i], b[j])
			}
			if j <= last {
				t.Fatalf("mapping not increasing at %d: %v", i, m)
			}
			last = j
		}
		if want := lcs(a, b); mapped != want {
			t.Fatalf("mapped %d lines, longest common subsequence has %d\na=%q\nb=%q\nm=%v", mapped, want, a, b, m)
		}
	}
}

func randomLines(r *rand.Rand, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte{byte('a' + r.IntN(4))}
	}
	return out
}

func mutate(r *rand.Rand, a [][]byte) [][]byte {
	b := append([][]byte(nil), a...)
	for e := r.IntN(6); e > 0; e-- {
		switch pos := r.IntN(len(b) + 1); r.IntN(3) {
		case 0:
			b = append(b[:pos], append([][]byte{{byte('a' + r.IntN(5))}}, b[pos:]...)...)
		case 1:
			if pos < len(b) {
				b = append(b[:pos], b[pos+1:]...)
			}
		default:
			if pos < len(b) {
				b[pos] = []byte{byte('a' + r.IntN(5))}
			}
		}
	}
	return b
}

func lcs(a, b [][]byte) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if string(a[i]) == string(b[j]) {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestMapGivesUpOnHugeRewrites(t *testing.T) {
	var a, b [][]byte
	for i := 0; i < 3*MaxEdits; i++ {
		a = append(a, []byte{'a', byte(i), byte(i >> 8)})
		b = append(b, []byte{'b', byte(i), byte(i >> 8)})
	}
	b = append(b, a[0])
	for i, j := range Map(a, b) {
		if j >= 0 && string(a[i]) != string(b[j]) {
			t.Fatalf("line %d mapped to a different line", i)
		}
	}
}

func BenchmarkMapOneLineEdit(b *testing.B) {
	var old [][]byte
	for i := 0; i < 10000; i++ {
		old = append(old, []byte(strings.Repeat("x", i%40)+"line"))
	}
	cur := append([][]byte(nil), old...)
	cur[5000] = []byte("edited")
	for b.Loop() {
		Map(old, cur)
	}
}
