package server

import (
	"context"
	"slices"
	"sync"
	"time"

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
	Verified bool   // the failing test was rerun with the edit's values and passed
	Test     string // the failing test it makes pass
	// ID names the candidate to its provider's VerifyFix; "" when the
	// provider cannot verify it.
	ID string
}

// Edit replaces a byte range on one line span of a file.
type Edit struct {
	File                string
	StartLine, StartCol int // 1-based line and byte column
	EndLine, EndCol     int // exclusive end
	NewText             string
	// For explanations: the expression replaced and the value it had in
	// the failing run ("" when unknown).
	Expr, Original string
}

// exprText is the replaced expression, quoted for a message.
func (e Edit) exprText() string {
	if e.Expr == "" {
		return "the expression"
	}
	return "`" + e.Expr + "`"
}

// FixVerifier is implemented by providers that can check one of their fix
// candidates again on request: run its failing test with the candidate's
// values forced. It refuses (with an error) when the sources changed since
// the candidate was computed.
type FixVerifier interface {
	VerifyFix(ctx context.Context, root, id string) (FixVerification, error)
}

// FixVerification is the outcome of one verifying run.
type FixVerification struct {
	Test     string
	Passed   bool
	Duration time.Duration
	Output   string // the end of the test's output
}

// findingsSlot holds the findings of all providers for one snapshot, filled
// in as they finish.
type findingsSlot struct {
	mu   sync.Mutex
	all  []Findings
	from []Provider // the provider of each of all
}

func (f *findingsSlot) add(p Provider, x Findings) {
	f.mu.Lock()
	f.all = append(f.all, x)
	f.from = append(f.from, p)
	f.mu.Unlock()
}

// fix returns the fix candidate with the given ID and its provider.
func (f *findingsSlot) fix(id string) (FixCandidate, Provider, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.all {
		for _, c := range x.Fixes {
			if c.ID != "" && c.ID == id {
				return c, f.from[i], true
			}
		}
	}
	return FixCandidate{}, nil, false
}

// verifier returns the provider of fix id if it can verify it.
func (f *findingsSlot) verifier(id string) (FixVerifier, bool) {
	_, p, ok := f.fix(id)
	if !ok {
		return nil, false
	}
	v, ok := p.(FixVerifier)
	return v, ok
}

// fixesTouching returns the fix candidates with an edit on one file's
// collected line.
func (f *findingsSlot) fixesTouching(file string, line int) []FixCandidate {
	return f.fixesWhere(func(c FixCandidate) bool {
		return slices.ContainsFunc(c.Edits, func(e Edit) bool {
			return e.File == file && e.StartLine <= line && line <= e.EndLine
		})
	})
}

// fixesWhere returns the fix candidates that keep says to.
func (f *findingsSlot) fixesWhere(keep func(FixCandidate) bool) []FixCandidate {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []FixCandidate
	for _, x := range f.all {
		for _, c := range x.Fixes {
			if keep(c) {
				out = append(out, c)
			}
		}
	}
	return out
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
	return f.fixesWhere(func(c FixCandidate) bool { return c.File == file && c.Line == line })
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
