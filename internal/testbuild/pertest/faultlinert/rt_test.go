package faultlinert

import (
	"os"
	"strings"
	"testing"
)

// A boundary reports the counters of the ranges this binary registered, in
// increasing order whatever order they registered in, scanning them a word
// (two counters) at a time.
func TestBoundaryScansRegisteredRanges(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	words := make([]uint64, 5)
	s := &state{words: words, counters: halves(words, 10), out: w}
	s.link(6, 8)
	s.link(1, 3)
	s.link(6, 8) // registered again
	// Counter 4 belongs to no registered range: a binary that does not
	// link that package never counts it, and the scan does not look.
	for _, i := range []int{7, 1, 4, 2, 5} { // 5 shares a word with 4 and 6
		s.counters[i] = 1
	}
	s.boundary("exit", "TestX", "-")
	w.Close()
	buf := make([]byte, 100)
	n, _ := r.Read(buf)
	if got, want := strings.TrimSpace(string(buf[:n])), `exit "TestX" - 1 2 7`; got != want {
		t.Errorf("record %q, want %q", got, want)
	}
	if want := [][2]int{{1, 3}, {6, 8}}; len(s.linked) != 2 || s.linked[0] != want[0] || s.linked[1] != want[1] {
		t.Errorf("linked ranges %v, want %v", s.linked, want)
	}
}
