// Package spectra owns the per-test coverage spectra of a Go module: the
// coverage pass over the instrumented-build layer (a counter per basic
// block), one spectrum per leaf test, and an incremental on-disk store keyed
// by the layer's content keys, so that only tests whose binaries' inputs
// changed run again. It knows nothing of LSP.
package spectra

import (
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// Verdict is the outcome of one leaf test.
type Verdict = testbuild.Verdict

const (
	Pass       = testbuild.Pass
	Fail       = testbuild.Fail
	Skip       = testbuild.Skip
	Timeout    = testbuild.Timeout
	Panic      = testbuild.Panic
	Memory     = testbuild.Memory
	BuildError = testbuild.BuildError
)

// Block is one instrumented basic block of source: a straight run of
// statements that share one counter, so its lines always tie.
type Block struct {
	File  string // slash-separated path relative to the module root
	Start Pos    // first byte of the block
	End   Pos    // end of the block, exclusive
	Lines []int  // executable source lines the block owns, ascending
}

// Pos is a 1-based line and byte column.
type Pos struct{ Line, Col int }

// TestRun is the record of one leaf test.
type TestRun struct {
	Package string        // import path of the package under test
	Name    string        // full test name as go test prints it, e.g. TestX/case_3
	Verdict Verdict       //
	Elapsed time.Duration //
	Output  string        // what the test printed, for failure reports
	// FailSites are the file:line locations the test reported its failure at
	// (t.Error and friends, or the innermost module frame of a panic).
	FailSites []Site
	Hits      Hits // the blocks (indices into Matrix.Blocks) this test executed
}

// Site is a source location inside the module.
type Site struct {
	File string // relative to the module root
	Line int
}

// Matrix is the spectrum data of a module: which tests executed which blocks.
type Matrix struct {
	ModulePath string
	Root       string // absolute module root directory
	Blocks     []Block
	Tests      []TestRun
	// BuildErrors holds the compiler's message for each package whose test
	// binary did not build; such a package also has one test with the
	// BuildError verdict.
	BuildErrors map[string]string
	// Cached holds the packages whose results came from the store, their
	// inputs unchanged since they ran (go test's "(cached)"), by import path.
	Cached map[string]bool
	// FileHashes is the SHA-256 (hex) of each source file's content when it
	// was collected, by path relative to the root: an editor buffer whose
	// content differs must not show these lines unmapped.
	FileHashes map[string]string
	// Flow holds the control-flow graphs and each test's edge profile,
	// when every package was collected with edge counts; nil otherwise.
	Flow *Flow
}
