package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// Regression is one real regression: a fault of bench/realfaults whose
// bug-introducing commit SZZ found and the fix's failing test confirmed.
type Regression struct {
	ID    string `json:"id"`              // project name and introducing commit
	Fault string `json:"fault,omitempty"` // the fault's id in bench/realfaults (source szz)
	// FaultsFile is the benchmark file holding Fault when it is not
	// bench/realfaults/faults.json: real faults mined the same way for
	// this benchmark only.
	FaultsFile string `json:"faultsFile,omitempty"`
	// Source says how the introducing commit was found: "szz" (blamed
	// for a real fault's lines) or "message" (named by the fix's commit
	// message, as NamedAs: an id or a pull request number).
	Source  string `json:"source"`
	NamedAs string `json:"namedAs,omitempty"`
	Repo    string `json:"repo"`
	Domain  string `json:"domain"`
	Fix     string `json:"fix"`
	// Failing is the fix's parent: the commit where the test fails.
	Failing string `json:"failing"`
	// Introducing is the bug-introducing commit, Base its parent.
	Introducing string `json:"introducing"`
	Date        string `json:"date"` // the introducing commit's author date
	Subject     string `json:"subject"`
	Base        string `json:"base"`
	// Test is the fix's failing leaf test and Dir its package's
	// directory, module-relative; TestFiles the test files of the fix,
	// written as at the fix over both versions.
	Test      string   `json:"test"`
	Dir       string   `json:"dir"`
	TestFiles []string `json:"testFiles"`
	// Migrated says that only the test's function (with the declarations
	// it needs) was moved into the older test file, the fix's whole test
	// files not compiling there; its test inputs are written whole.
	Migrated bool `json:"migrated,omitempty"`
	// ModFromFix names go.mod and go.sum when the introducing commit had
	// none and the fix's are put in (untracked, ignored by git).
	ModFromFix []string `json:"modFromFix,omitempty"`
	// GoModFrom is the commit those come from when the fix has none
	// either (the commit that added go.mod).
	GoModFrom string `json:"goModFrom,omitempty"`
	// PassedOver are the commits blamed first at whose parent the test
	// failed too, when the introducing commit was found by blaming the
	// lines again past them.
	PassedOver []string `json:"passedOver,omitempty"`
	// Truth are the introducing commit's hunks that hold lines the fix
	// deletes or changes.
	Truth []TruthHunk `json:"truth"`
	// Between counts the commits after the base up to the failing
	// commit (the introducing commit included).
	Between int `json:"between"`
	// Diff is the size of the introducing commit's change.
	Diff DiffSize `json:"diff"`
}

// TruthHunk is one hunk of the introducing commit's zero-context diff:
// lines Start..Start+Count-1 of the file at the introducing commit
// (Count 0: a deletion after line Start), of which Blamed are lines the
// fix deletes or changes.
type TruthHunk struct {
	File     string `json:"file"`
	Start    int    `json:"start"`
	Count    int    `json:"count"`
	OldStart int    `json:"oldStart"`
	OldCount int    `json:"oldCount"`
	Blamed   []int  `json:"blamed"`
}

// DiffSize measures the diff between the base and the introducing commit.
type DiffSize struct {
	Files   int `json:"files"`   // every changed file
	GoFiles int `json:"goFiles"` // non-test Go files
	Hunks   int `json:"hunks"`   // zero-context hunks of the non-test Go files
	Lines   int `json:"lines"`   // lines added and deleted in them
}

// Benchmark is the regressions file: the regressions and what mining
// them dropped.
type Benchmark struct {
	Convention string `json:"convention"`
	// Faults counts the faults mined; Dropped the faults (or, for the
	// test filters, the candidate introducing commits) each filter
	// dropped, by reason.
	Faults     int            `json:"faults"`
	Candidates int            `json:"candidates"`
	Dropped    map[string]int `json:"dropped"`
	// Named counts the fixes of the second source (commits whose message
	// names the breaking commit) tried, the commits they name, and what
	// each filter dropped.
	Named struct {
		Fixes      int            `json:"fixes"`
		Candidates int            `json:"candidates"`
		Dropped    map[string]int `json:"dropped"`
	} `json:"named"`
	Regressions []Regression `json:"regressions"`
}

const convention = "SZZ on bench/realfaults: the code lines each fix deletes or changes in non-test Go files are blamed with git blame -w at the fix's parent; " +
	"each blamed commit (most blamed lines first, at most -max-candidates per fault; root commits and merges dropped) is a candidate. " +
	"At the candidate the fix's test files are written as at the fix; if they do not compile there, only the failing test's function moves, with the declarations of the fix's test files it needs that the older ones lack, and the imports they use. " +
	"A commit without go.mod gets the fix's, with the module path its code imports itself by, tidied (untracked and ignored by git). " +
	"The candidate is kept when one of the fix's failing leaf tests (at most -max-tests) fails at it (go test -run, -timeout) and passes at its parent with the same test files. " +
	"Truth: the candidate's zero-context hunks holding a blamed line. " +
	"Second source (source \"message\"): commits outside the real faults whose message holds a regression word and names an earlier commit (an id, or a pull request number resolved to its squashed commit); " +
	"the tests the fix changed (at most 4) that pass at the fix and fail at its parent are its failing tests, and the named commit is the only candidate, tested and given its truth as above (its blamed lines: those blamed to it)."

func loadRegressions(path string) (*Benchmark, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("regressions: %w", err)
	}
	var b Benchmark
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("regressions %s: %w", path, err)
	}
	return &b, nil
}
