package mutation

import (
	"context"
	"embed"
	"fmt"
	"go/ast"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"

	"golang.org/x/tools/go/packages"
)

// Loc is a source line, its file relative to the module root.
type Loc struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

//go:embed faultlinemut
var runtimeFS embed.FS

// runtimeName is the runtime package's name and its directory under the
// module's internal/.
const runtimeName = "faultlinemut"

// schemataVersion is the language version the edited files need: generic
// helpers, whose type arguments are inferred from untyped constant
// operands in any position.
const schemataVersion = "go1.21"

func mutationRuntime() testbuild.Runtime {
	files, err := fs.Sub(runtimeFS, runtimeName)
	if err != nil {
		panic(err) // the embedded directory is part of this package
	}
	return testbuild.Runtime{Name: runtimeName, Files: files, Lang: schemataVersion}
}

// Schemata is the mutants of a set of lines, compiled into one overlay:
// every package's test binary built through it carries all of them.
type Schemata struct {
	Mutants []Mutant
	Overlay *testbuild.Overlay
	mod     *testbuild.Module
}

// Generate writes the mutants of lines (most suspicious first) into an
// overlay of mod: the lines are taken in order while their mutants fit in
// max, and likewise for the fix-only mutants within max/fixOnlyShare more.
// Only the module's non-test, non-generated files are mutated.
func Generate(mod *testbuild.Module, lines []Loc, max int) (*Schemata, error) {
	byDir := map[string]bool{}
	for _, l := range lines {
		byDir[filepath.Dir(filepath.Join(mod.Root, filepath.FromSlash(l.File)))] = true
	}
	var patterns []string
	for d := range byDir {
		patterns = append(patterns, d)
	}
	slices.Sort(patterns)
	s := &Schemata{mod: mod}
	if len(patterns) == 0 {
		return s, nil
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedModule,
		Dir: mod.Root,
		Env: mod.Env(),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading the packages to mutate: %w", err)
	}
	type unit struct {
		p    *packages.Package
		f    *ast.File
		path string
		rel  string
		src  []byte
	}
	var units []unit
	var sources [][]byte
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("loading %s: %v", p.PkgPath, p.Errors[0])
		}
		for i, f := range p.Syntax {
			path := p.CompiledGoFiles[i]
			rel, err := filepath.Rel(mod.Root, path)
			if err != nil || strings.HasPrefix(rel, "..") || strings.HasSuffix(path, "_test.go") || ast.IsGenerated(f) {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", path, err)
			}
			units = append(units, unit{p, f, path, filepath.ToSlash(rel), src})
			sources = append(sources, src)
		}
	}
	rt := testbuild.UnusedName(runtimeName, sources...)
	mutator := func(u unit, wanted, wantedFix map[int]bool, next *int) *fileMutator {
		m := &fileMutator{fset: u.p.Fset, tf: u.p.Fset.File(u.f.Pos()), info: u.p.TypesInfo, src: u.src, rel: u.rel,
			rt: rt, lines: wanted, fixLines: wantedFix, next: next}
		m.run(u.f)
		return m
	}
	// A first pass counts each line's mutants, so that the budget goes to
	// the most suspicious lines whole.
	perLine, perLineFix := map[Loc]int{}, map[Loc]int{}
	all := map[int]bool{}
	for _, l := range lines {
		all[l.Line] = true
	}
	for _, u := range units {
		next := 0
		for _, mu := range mutator(u, all, all, &next).muts {
			if mu.FixOnly {
				perLineFix[Loc{mu.File, mu.Line}]++
			} else {
				perLine[Loc{mu.File, mu.Line}]++
			}
		}
	}
	chosen, total := choose(lines, perLine, max)
	chosenFix, totalFix := choose(lines, perLineFix, max/fixOnlyShare)
	if total+totalFix == 0 {
		return s, nil
	}
	s.Overlay, err = mod.NewOverlay()
	if err != nil {
		return nil, err
	}
	runtimePath, err := s.Overlay.AddRuntime(mutationRuntime())
	if err != nil {
		return nil, err
	}
	next := 0
	for _, u := range units {
		if chosen[u.rel] == nil && chosenFix[u.rel] == nil {
			continue
		}
		m := mutator(u, chosen[u.rel], chosenFix[u.rel], &next)
		if len(m.muts) == 0 {
			continue
		}
		for i := range m.muts {
			m.muts[i].Edited = editedLine(u.src, m.muts[i].edit)
		}
		s.Mutants = append(s.Mutants, m.muts...)
		edits := append(m.edits, pertest.ImportEdit(u.p.Fset, u.f, rt, runtimePath))
		if err := s.Overlay.Edit(u.path, u.src, edits, schemataVersion); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// fixOnlyShare bounds the fix-only mutants: a fraction 1/fixOnlyShare of
// the scored ones' bound, on top of it.
const fixOnlyShare = 4

// choose takes lines in order while their mutants (counts) fit in max,
// giving the chosen lines by file and their mutants in all.
func choose(lines []Loc, counts map[Loc]int, max int) (map[string]map[int]bool, int) {
	chosen := map[string]map[int]bool{}
	total := 0
	for _, l := range lines {
		n := counts[l]
		if n == 0 || total+n > max || chosen[l.File][l.Line] {
			continue
		}
		total += n
		if chosen[l.File] == nil {
			chosen[l.File] = map[int]bool{}
		}
		chosen[l.File][l.Line] = true
	}
	return chosen, total
}

// editedLine is the line holding edit e after it is applied, trimmed.
func editedLine(src []byte, e testbuild.Edit) string {
	start := strings.LastIndexByte(string(src[:e.Off]), '\n') + 1
	end := e.Off + e.Del
	if i := strings.IndexByte(string(src[end:]), '\n'); i >= 0 {
		end += i
	} else {
		end = len(src)
	}
	out := string(src[start:e.Off]) + e.Text + string(src[e.Off+e.Del:end])
	return strings.TrimSpace(out)
}

// Build builds the test binary of package pkg (an import path) with every
// mutant compiled in.
func (s *Schemata) Build(ctx context.Context, pkg string) (*testbuild.Binary, error) {
	_, p, keys, err := s.mod.ListPackageKeys(ctx, pkg)
	if err != nil {
		return nil, err
	}
	defer s.mod.Hasher().Save()
	bin, err := s.mod.BuildTest(ctx, s.Overlay, p, nil, keys.TestBinary(p))
	if err != nil {
		return nil, fmt.Errorf("building the mutant schemata of %s: %w", pkg, err)
	}
	return bin, nil
}
