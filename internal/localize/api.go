package localize

import (
	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/regress"
	"github.com/faultline-go/faultline/specs"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// The service is the one door of the command line and the language server
// to the techniques and the build layer below it: what its callers read of
// them, they read here.

// What the service localizes: a module's collected spectra.
type (
	// Workspace is a module opened for collection (spectra.Workspace).
	Workspace = spectra.Workspace
	// WorkspaceOptions configure Open.
	WorkspaceOptions = spectra.Options
	// CollectOptions configure a collection.
	CollectOptions = spectra.CollectOptions
	// Progress is a collection's progress.
	Progress = spectra.Progress
	// Matrix is the collected spectra of a module's tests.
	Matrix = spectra.Matrix
	// TestRun is one test's verdict and coverage in a Matrix.
	TestRun = spectra.TestRun
	// Hits is the set of blocks a TestRun executed.
	Hits = spectra.Hits
	// Block is one basic block of a Matrix, the lines a coverage counter
	// owns.
	Block = spectra.Block
	// Verdict is how a test ended.
	Verdict = testbuild.Verdict
	// PatternError says which package patterns matched nothing.
	PatternError = testbuild.PatternError
)

// Verdicts of a test, named for the type: the service has other passes,
// timeouts and memory bounds.
const (
	VerdictPass       = testbuild.Pass
	VerdictFail       = testbuild.Fail
	VerdictSkip       = testbuild.Skip
	VerdictTimeout    = testbuild.Timeout
	VerdictPanic      = testbuild.Panic
	VerdictMemory     = testbuild.Memory
	VerdictBuildError = testbuild.BuildError
)

// Defaults of collection.
const (
	// DefaultTimeout is how long a leaf test may run.
	DefaultTimeout = spectra.DefaultTimeout
	// MaxDefaultTestMemory bounds the default memory of one test's
	// processes.
	MaxDefaultTestMemory = testbuild.MaxDefaultTestMemory
)

// NewHits returns the set of the given block indices, as a TestRun holds
// them.
func NewHits(blocks ...int) Hits { return spectra.NewHits(blocks...) }

// Open opens the module containing dir for collection.
func Open(dir string, opts WorkspaceOptions) (*Workspace, error) { return spectra.Open(dir, opts) }

// What the angelic analysis reports.
type (
	// Target is a failing test, the unit of analysis.
	Target = testbuild.Target
	// TestResult is the analysis of one failing test.
	TestResult = analysis.TestResult
	// Candidate is an angelic value or fix the analysis found.
	Candidate = analysis.Candidate
	// Location is where a candidate's value goes.
	Location = analysis.Location
	// Verification is a candidate's run with its values forced.
	Verification = analysis.Verification
	// Suspect is a line of an unsat core.
	Suspect = analysis.Suspect
	// SourceLines reads a file's lines as collected.
	SourceLines = analysis.SourceLines
	// LineEdit is a candidate's edit of one line.
	LineEdit = analysis.LineEdit
	// AnalysisReport is the JSON form of analyses (faultline fix -json).
	AnalysisReport = analysis.Report
)

// FoundBySolver names candidates the solver found.
const FoundBySolver = analysis.FoundBySolver

// AnalysisAvailable says why the angelic analysis cannot run here (no
// Z3), or nil.
func AnalysisAvailable() error { return analysis.Available() }

// FileLines reads the files of the module at root.
func FileLines(root string) SourceLines { return analysis.FileLines(root) }

// FoundWords says how a candidate was found, for a reader.
func FoundWords(found string) string { return analysis.FoundWords(found) }

// Edits are the source edits of a candidate's locations.
func Edits(locs []Location, src SourceLines) []LineEdit { return analysis.Edits(locs, src) }

// Effect says what a candidate does to its test.
func Effect(test string, avoids bool) string { return analysis.Effect(test, avoids) }

// Writable reports whether a value can be written into source as it is.
func Writable(value string) bool { return analysis.Writable(value) }

// NewAnalysisReport is the JSON form of results.
func NewAnalysisReport(results []TestResult) AnalysisReport { return analysis.NewReport(results) }

// What the explanation from the git history reports.
type (
	// Explanation explains one failing test from the history.
	Explanation = regress.Explanation
	// Change is one change an explanation names.
	Change = regress.Change
)

// What the search for inputs reports.
type (
	// SearchOptions bound the search of one fuzz target.
	SearchOptions = specs.Options
	// SearchResult is the search of one fuzz target.
	SearchResult = specs.Result
)

// How a search ended.
const (
	SearchOptimal  = specs.Optimal
	SearchImproved = specs.Improved
)

// Formula is a formula of the spectra's four counts.
type Formula = rank.Formula

// ParseFormula returns the formula of the four counts a name asks for, as
// ParseTechnique takes it, but neither BlockRank nor SAT-TAR.
func ParseFormula(name string) (Formula, error) { return rank.Lookup(name) }

// DefaultFormula is the formula used when none is asked for (Ochiai).
func DefaultFormula() Formula { return rank.Default() }

// FormulaScore is a line's score under one formula.
type FormulaScore struct {
	Formula string
	Score   float64
}

// FormulaScores scores a line's counts under every registered formula, in
// the order of Techniques.
func FormulaScores(ef, ep, nf, np int) []FormulaScore {
	counts := rank.Counts{EF: ef, EP: ep, NF: nf, NP: np}
	var out []FormulaScore
	for _, t := range Techniques() {
		if t.Formula != nil {
			out = append(out, FormulaScore{t.Name, t.Formula.Score(counts)})
		}
	}
	return out
}
