package specs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/cover"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra"
)

// BlockRef is a block of the spectra matrix with its index there: what a
// run's coverage is read as, so that an input's spectrum joins the matrix's.
type BlockRef struct {
	Index int `json:"index"`
	spectra.Block
}

// coverBuild is the fuzz target's test binary built with Go's own coverage
// (go test -cover over the packages the binary is built from) and the
// argument substitution: it runs any input through the target's failing
// seed entry and reads which blocks of the matrix the input executed.
// Coverage of Go's own instrumentation rather than the spectra's keeps the
// build to one small edit in a test file, so every non-test file keeps
// its positions and the profile's blocks fall on the matrix's.
type coverBuild struct {
	mod     *testbuild.Module
	bin     *testbuild.Binary
	work    string
	timeout time.Duration
	byFile  map[string][]BlockRef // the matrix's blocks by module-relative file, in position order
	runs    int
}

// newCoverBuild builds the binary, reusing one built from the same sources.
func newCoverBuild(ctx context.Context, mod *testbuild.Module, listing *testbuild.Listing, keys *testbuild.Keys, pkg *testbuild.Package, t *FuzzTarget, blocks []BlockRef, work string) (*coverBuild, error) {
	o, err := mod.NewOverlay()
	if err != nil {
		return nil, err
	}
	if err := t.substitute(o, packageFiles(pkg), true); err != nil {
		return nil, err
	}
	closure := testbuild.SortedPaths(listing.Closure(pkg))
	flags := []string{"-cover", "-covermode=set", "-coverpkg=" + strings.Join(closure, ",")}
	bin, err := mod.BuildTest(ctx, o, pkg, flags, keys.TestBinary(pkg))
	if err != nil {
		return nil, err
	}
	c := &coverBuild{mod: mod, bin: bin, work: work, timeout: 10 * time.Second, byFile: map[string][]BlockRef{}}
	for _, b := range blocks {
		c.byFile[b.File] = append(c.byFile[b.File], b)
	}
	for _, list := range c.byFile {
		slices.SortFunc(list, func(a, b BlockRef) int { return comparePos(a.Start, b.Start) })
	}
	return c, nil
}

// packageFiles lists the absolute paths of a package's Go files, tests
// included.
func packageFiles(pkg *testbuild.Package) []string {
	var out []string
	for _, list := range [][]string{pkg.GoFiles, pkg.CgoFiles, pkg.TestGoFiles, pkg.XTestGoFiles} {
		for _, name := range list {
			out = append(out, filepath.Join(pkg.Dir, name))
		}
	}
	return out
}

func comparePos(a, b spectra.Pos) int {
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return a.Col - b.Col
}

// outcome is one run of the fuzz target.
type outcome struct {
	Verdict testbuild.Verdict
	Output  string
	Hits    []int         // matrix blocks the run executed, ascending; nil when the process died before writing them
	Args    map[int]Value // the arguments the fuzz function was entered with, by index
	Elapsed time.Duration
}

// Failing reports whether the run violated the specification.
func (o *outcome) Failing() bool { return o.Verdict.Failing() }

// run runs leaf (an entry of the fuzz target) with the arguments of input
// substituted (nil: as the entry has them).
func (c *coverBuild) run(ctx context.Context, leaf string, input map[int]Value) (*outcome, error) {
	c.runs++
	profile := filepath.Join(c.work, "cover.out")
	dump := filepath.Join(c.work, "args.txt")
	in := filepath.Join(c.work, "input.txt")
	os.Remove(profile)
	os.Remove(dump)
	env := []string{dumpEnv + "=" + dump}
	if input != nil {
		if err := os.WriteFile(in, encodeInputs(input), 0o644); err != nil {
			return nil, fmt.Errorf("writing the input: %w", err)
		}
		env = append(env, inputEnv+"="+in)
	}
	res, err := c.mod.RunTest(ctx, c.bin, leaf, c.timeout, env, "-test.coverprofile="+profile)
	if err != nil {
		return nil, err
	}
	if res.KilledOutside {
		// No outcome of the input's, and the search's result is cached.
		return nil, fmt.Errorf("running %s: the test process was killed from outside", leaf)
	}
	out := &outcome{Verdict: res.Verdict, Output: res.Output, Elapsed: res.Elapsed}
	if out.Verdict == testbuild.Fail && strings.Contains(res.Output, "faultline: the fuzz function panicked: ") {
		out.Verdict = testbuild.Panic
	}
	if data, err := os.ReadFile(dump); err == nil {
		if out.Args, err = decodeInputs(data); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(profile); err == nil {
		profiles, err := cover.ParseProfiles(profile)
		if err != nil {
			return nil, fmt.Errorf("reading the coverage profile: %w", err)
		}
		out.Hits = c.hits(profiles)
	}
	return out, nil
}

// hits reads the matrix blocks a profile shows executed: each matrix
// block is the profile block that holds its start (Go's blocks start at a
// body's brace, the spectra's just after it), or the first that starts
// inside it.
func (c *coverBuild) hits(profiles []*cover.Profile) []int {
	var out []int
	modPath := c.mod.Path
	for _, p := range profiles {
		rel, ok := strings.CutPrefix(p.FileName, modPath+"/")
		if !ok {
			continue
		}
		blocks := c.byFile[rel]
		if len(blocks) == 0 {
			continue
		}
		pb := p.Blocks // sorted by start
		for _, b := range blocks {
			i, found := slices.BinarySearchFunc(pb, b.Start, func(x cover.ProfileBlock, pos spectra.Pos) int {
				return comparePos(spectra.Pos{Line: x.StartLine, Col: x.StartCol}, pos)
			})
			// pb[i-1] starts at or before the block's start; it holds the
			// start when it ends after it.
			j := -1
			switch {
			case found:
				j = i
			case i > 0 && comparePos(spectra.Pos{Line: pb[i-1].EndLine, Col: pb[i-1].EndCol}, b.Start) > 0:
				j = i - 1
			case i < len(pb) && comparePos(spectra.Pos{Line: pb[i].StartLine, Col: pb[i].StartCol}, b.End) < 0:
				j = i
			}
			if j >= 0 && pb[j].Count > 0 {
				out = append(out, b.Index)
			}
		}
	}
	slices.Sort(out)
	return out
}
