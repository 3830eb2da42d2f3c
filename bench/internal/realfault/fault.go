package realfault

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
)

// Project is one repository the benchmark mines, with the kind of code it
// holds.
type Project struct {
	Repo   string `json:"repo"`   // owner/name on GitHub
	Domain string `json:"domain"` // parser, encoder, cli, server, data structure, numeric, ...
	// TestFiles are path patterns (path.Match) of test inputs a project
	// keeps outside _test.go files and testdata directories.
	TestFiles []string `json:"testFiles,omitempty"`
	// Env are variables (NAME=value) the project's tests run with when
	// mined and ranked, such as goldmark's multiplier of its timed tests'
	// limits, which a loaded machine exceeds.
	Env []string `json:"env,omitempty"`
}

// IsTest says whether a repository file belongs to the project's tests: a
// _test.go file, anything under a testdata directory, or a file matching
// one of TestFiles.
func (p Project) IsTest(file string) bool {
	if strings.HasSuffix(file, "_test.go") || strings.HasPrefix(file, "testdata/") || strings.Contains(file, "/testdata/") {
		return true
	}
	for _, pat := range p.TestFiles {
		if ok, _ := path.Match(pat, file); ok {
			return true
		}
	}
	return false
}

// Name is the short name faults of the project are called by.
func (p Project) Name() string { return p.Repo[strings.LastIndex(p.Repo, "/")+1:] }

// Fault is one real fault: the fixing commit of a repository, the faulty
// version being that commit's tree with the non-test files the fix changed
// put back as they were in its parent.
type Fault struct {
	ID      string `json:"id"`
	Repo    string `json:"repo"`
	Domain  string `json:"domain"`
	Module  string `json:"module"` // module path in go.mod at the fixing commit
	Fix     string `json:"fix"`    // the fixing commit
	Parent  string `json:"parent"` // its parent: the non-test files of the faulty version
	Date    string `json:"date"`   // commit date of the fix, YYYY-MM-DD
	Subject string `json:"subject"`
	// Reverted are the non-test files the fix changed, module-relative:
	// the faulty version has them as in Parent (absent when the fix added
	// them).
	Reverted []string `json:"reverted"`
	// Packages are the module-relative package directories tested:
	// those of every Go file the fix changed.
	Packages []string `json:"packages"`
	// Faulty are the lines of the faulty version the fix changed or
	// deleted (code lines only), and, for a pure insertion, the code lines
	// around it.
	Faulty []FaultyFile `json:"faulty"`
	// Size is one-line, one-hunk or multi-hunk.
	Size string `json:"size"`
	// Failing are the leaf tests that fail on the faulty version and pass
	// on the fixed one; every other test keeps its verdict. Passing counts
	// the leaf tests that pass on both.
	Failing []gocmd.TestID `json:"failing"`
	Passing int            `json:"passing"`
}

// FaultyFile is the faulty lines of one file.
type FaultyFile struct {
	File  string `json:"file"`
	Lines []int  `json:"lines"` // changed or deleted by the fix
	// Around are code lines next to a pure insertion (the convention for
	// faults fixed by adding code): the nearest code line above and below.
	Around []int `json:"around,omitempty"`
}

// Holds reports whether file:line is a faulty line.
func (f *Fault) Holds(file string, line int) bool {
	for _, ff := range f.Faulty {
		if ff.File == file && (slices.Contains(ff.Lines, line) || slices.Contains(ff.Around, line)) {
			return true
		}
	}
	return false
}

// Sizes are the fault size classes, smallest first.
var Sizes = []string{"one-line", "one-hunk", "multi-hunk"}

// Benchmark is the file that defines the benchmark.
type Benchmark struct {
	// Convention says how faults were mined and faulty lines chosen.
	Convention string    `json:"convention"`
	Projects   []Project `json:"projects"`
	Faults     []Fault   `json:"faults"`
}

// LoadBenchmark reads the benchmark file.
func LoadBenchmark(path string) (*Benchmark, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("benchmark: %w", err)
	}
	var b Benchmark
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("benchmark %s: %w", path, err)
	}
	return &b, nil
}

// Save writes the benchmark file whole, replacing it only once written.
func (b *Benchmark) Save(path string) error { return SaveJSON(path, b) }

// SaveJSON writes v as indented JSON into path, replacing it only once
// written.
func SaveJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// Fault returns the fault with the given id.
func (b *Benchmark) Fault(id string) (*Fault, error) {
	for i := range b.Faults {
		if b.Faults[i].ID == id {
			return &b.Faults[i], nil
		}
	}
	return nil, fmt.Errorf("no fault %q in the benchmark", id)
}

// Project returns the project of a repository.
func (b *Benchmark) Project(repo string) (Project, bool) {
	i := slices.IndexFunc(b.Projects, func(p Project) bool { return p.Repo == repo })
	if i < 0 {
		return Project{}, false
	}
	return b.Projects[i], true
}

// WriteFileAtomic writes a file whole, replacing it only once written.
func WriteFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
