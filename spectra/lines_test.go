package spectra

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/spectra/rank"
)

// TestCountGroupsAgreesWithLineRuns checks the streaming count against
// counting the materialized runs, on random matrices whose blocks share
// lines and whose tests include uncounted ones.
func TestCountGroupsAgreesWithLineRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 50 {
		m := &Matrix{}
		for b := range 1 + r.IntN(40) {
			first := 1 + r.IntN(30)
			lines := slices.Compact([]int{first, first + r.IntN(3)})
			m.Blocks = append(m.Blocks, Block{File: []string{"a.go", "b.go"}[b%2], Lines: lines})
		}
		slices.Reverse(m.Blocks) // blocks in no code order
		verdicts := []Verdict{Pass, Fail, Skip}
		for ti := range r.IntN(30) {
			tr := TestRun{Name: "T" + string(rune('a'+ti%26)), Verdict: verdicts[r.IntN(len(verdicts))]}
			var hits []int
			for b := range m.Blocks {
				if r.IntN(3) == 0 {
					hits = append(hits, b)
				}
			}
			tr.Hits = NewHits(hits...)
			m.Tests = append(m.Tests, tr)
		}
		lines := m.Lines()
		want, err := rank.CountMatrix(len(lines), m.LineRuns(lines))
		if err != nil {
			t.Fatal(err)
		}
		self := make([]int32, len(lines))
		for i := range self {
			self[i] = int32(i)
		}
		got, _, _, err := m.CountGroups(lines, self, len(lines))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: CountGroups = %v, counting LineRuns = %v", trial, got, want)
		}
	}
}

// TestCountGroupsRejectsBadInput: a hit outside the blocks or a group out
// of range is an error, not a wrong count.
func TestCountGroupsRejectsBadInput(t *testing.T) {
	m := &Matrix{Blocks: []Block{{File: "a.go", Lines: []int{1}}}, Tests: []TestRun{{Name: "T", Verdict: Fail, Hits: NewHits(3)}}}
	lines := m.Lines()
	if _, _, _, err := m.CountGroups(lines, []int32{0}, 1); err == nil {
		t.Error("a hit outside the blocks was counted")
	}
	if _, _, _, err := m.CountGroups(lines, []int32{1}, 1); err == nil {
		t.Error("a group out of range was counted")
	}
}

// TestHitsRoundTrip: the packed set gives back its blocks through every
// encoding the matrix goes through.
func TestHitsRoundTrip(t *testing.T) {
	h := NewHits(300, 2, 0, 2, 70000, -1)
	if got, want := h.Slice(), []int{0, 2, 300, 70000}; !slices.Equal(got, want) || h.Len() != 4 {
		t.Fatalf("NewHits = %v (len %d), want %v", got, h.Len(), want)
	}
	if !h.Contains(300) || h.Contains(3) {
		t.Errorf("Contains(300), Contains(3) = %v, %v", h.Contains(300), h.Contains(3))
	}
	data, err := h.GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	var back Hits
	if err := back.GobDecode(data); err != nil || !slices.Equal(back.Slice(), h.Slice()) || back.Len() != 4 {
		t.Errorf("gob round trip = %v (len %d), %v", back, back.Len(), err)
	}
	if err := back.GobDecode([]byte{0x80}); err == nil {
		t.Error("a damaged set decoded")
	}
	js, err := h.MarshalJSON()
	if err != nil || string(js) != "[0,2,300,70000]" {
		t.Fatalf("MarshalJSON = %s, %v", js, err)
	}
	if err := back.UnmarshalJSON(js); err != nil || !slices.Equal(back.Slice(), h.Slice()) {
		t.Errorf("JSON round trip = %v, %v", back, err)
	}
}

// TestExecutingFailingAgreesWithExecuting: the failing tests a hover names
// are those Executing finds, on a matrix with panicking and skipped tests.
func TestExecutingFailingAgreesWithExecuting(t *testing.T) {
	m := &Matrix{Blocks: []Block{{File: "a.go", Lines: []int{1, 2}}, {File: "a.go", Lines: []int{3}}, {File: "b.go", Lines: []int{1}}}}
	for i, v := range []Verdict{Pass, Fail, Panic, Skip, Fail, Pass} {
		m.Tests = append(m.Tests, TestRun{Name: "T" + string(rune('a'+i)), Verdict: v, Hits: NewHits(i%3, (i+1)%3)})
	}
	for _, at := range []struct {
		file string
		line int
	}{{"a.go", 1}, {"a.go", 3}, {"b.go", 1}, {"b.go", 2}} {
		failing, _ := m.Executing(at.file, at.line)
		if got := m.ExecutingFailing(at.file, at.line); !slices.Equal(got, failing) {
			t.Errorf("%s:%d: ExecutingFailing %v, Executing's failing %v", at.file, at.line, got, failing)
		}
	}
	if got := m.ExecutingFailing("a.go", 3); !slices.Equal(got, []int{1, 4}) {
		t.Errorf("a.go:3: failing %v, want [1 4]", got)
	}
}
