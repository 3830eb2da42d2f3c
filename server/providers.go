package server

import (
	"context"
	"sync"

	"faultline/spectra"
)

// Provider contributes analysis results on top of a ranking: angelic values
// (the value an expression would need for the failing tests to pass) and fix
// candidates. The angelic analysis plugs in here; the server itself derives
// nothing of the kind. Analyze runs in the background once per new result
// and may take long; it is cancelled when a newer result arrives.
type Provider interface {
	Name() string
	Analyze(ctx context.Context, in AnalysisInput) (Findings, error)
}

// AnalysisInput is one module's latest results.
type AnalysisInput struct {
	Root     string // absolute module root
	Matrix   *spectra.Matrix
	Ranking  *spectra.Ranking
	Suspects []spectra.RankedLine // the lines shown as suspicious, best first
}

// Findings are a provider's results. Positions refer to the source as it was
// collected (Matrix.FileHashes); the server maps them onto edited buffers and
// withdraws those whose line changed.
type Findings struct {
	Values []AngelicValue
	Fixes  []FixCandidate
}

// AngelicValue is a value an expression would need to take for the failing
// tests to pass.
type AngelicValue struct {
	File  string // relative to the module root, slash-separated
	Line  int    // 1-based
	Col   int    // 1-based byte column just after the expression
	Label string // e.g. "x = 3"
}

// FixCandidate is a source edit that makes the failing tests pass under the
// analysis, shown as a demonstration: the user decides.
type FixCandidate struct {
	Title    string
	File     string // file holding the suspicious line it fixes
	Line     int    // 1-based suspicious line it fixes
	Edits    []Edit
	Verified bool // the test suite was rerun with the edit and passed
}

// Edit replaces a byte range on one line span of a file.
type Edit struct {
	File                string
	StartLine, StartCol int // 1-based line and byte column
	EndLine, EndCol     int // exclusive end
	NewText             string
}

// findingsSlot holds the findings of all providers for one snapshot, filled
// in as they finish.
type findingsSlot struct {
	mu  sync.Mutex
	all []Findings
}

func (f *findingsSlot) add(x Findings) {
	f.mu.Lock()
	f.all = append(f.all, x)
	f.mu.Unlock()
}

// size counts the providers that have reported, to key caches.
func (f *findingsSlot) size() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.all)
}

// valuesIn returns the angelic values in one file.
func (f *findingsSlot) valuesIn(file string) []AngelicValue {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []AngelicValue
	for _, x := range f.all {
		for _, v := range x.Values {
			if v.File == file {
				out = append(out, v)
			}
		}
	}
	return out
}

// fixes returns the fix candidates for one file's collected line.
func (f *findingsSlot) fixes(file string, line int) []FixCandidate {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []FixCandidate
	for _, x := range f.all {
		for _, c := range x.Fixes {
			if c.File == file && c.Line == line {
				out = append(out, c)
			}
		}
	}
	return out
}

// count returns how many fix candidates concern the given lines.
func (f *findingsSlot) count(lines map[fileLine]bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, x := range f.all {
		for _, c := range x.Fixes {
			if lines[fileLine{c.File, c.Line}] {
				n++
			}
		}
	}
	return n
}
