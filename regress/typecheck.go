package regress

import (
	"context"
	"crypto/sha256"
	"fmt"
	"go/ast"
	gobuild "go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// Checking reverts in process: most reverts the search for auxiliary
// changes asks about do not compile, and each go test -c of one costs
// the go command's start, the package's compile and, when it compiles, a
// link. A revert is type-checked here instead, against the export data of
// the dependencies it leaves as they are (compiled once): a revert with
// type errors does not compile, without a build; one that type-checks is
// built when it is to be run. A revert of the module's other packages
// that the test depends on checks them from source too, and every package
// of the module between them and the test's, in import order: a changed
// API's callers elsewhere are what such a revert breaks.

// maxTypeErrors is how many errors a check reports, as the compiler does.
const maxTypeErrors = 10

// typeChecker type-checks the test's package, its in-package tests and
// its external tests with some files replaced.
type typeChecker struct {
	pkg       *testbuild.Package
	fset      *token.FileSet
	imp       types.Importer
	goVersion string
	sizes     types.Sizes
	// files are the package's and its tests' files by absolute path, and
	// which of the two packages each belongs to.
	files map[string]bool // true: the external test package
	// parsed caches each file's syntax by path and content hash.
	parsed map[parsedKey]*ast.File
	// deps are the module's packages the test depends on (not the test's
	// own), by import path; depFiles maps each of their Go files to its
	// package's import path.
	deps     map[string]*testbuild.Package
	depFiles map[string]string
	// dirs maps the directory of the test's package and of each of deps
	// to its import path, for files a revert brings back.
	dirs map[string]string
	// build matches a brought-back file's name and build constraints.
	build gobuild.Context
}

// newTypeChecker prepares checks of pkg, or returns nil when its reverts
// cannot be checked alone: cgo, or dependencies go test recompiles for
// the package's tests.
func newTypeChecker(ctx context.Context, mod *testbuild.Module, pkg *testbuild.Package) (*typeChecker, error) {
	if len(pkg.CgoFiles) > 0 {
		return nil, nil
	}
	ex, err := mod.ExportData(ctx, pkg)
	if err != nil {
		return nil, err
	}
	if len(ex.Recompiled) > 0 {
		return nil, nil
	}
	fset := token.NewFileSet()
	lookup := func(path string) (io.ReadCloser, error) {
		f, ok := ex.Files[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	}
	tc := &typeChecker{pkg: pkg, fset: fset, imp: importer.ForCompiler(fset, "gc", lookup),
		sizes: types.SizesFor("gc", ex.GOARCH), files: map[string]bool{}, parsed: map[parsedKey]*ast.File{}}
	if v := mod.GoVersion; v != "" {
		tc.goVersion = "go" + v
	}
	for _, names := range [][]string{pkg.GoFiles, pkg.TestGoFiles} {
		for _, n := range names {
			tc.files[filepath.Join(pkg.Dir, n)] = false
		}
	}
	for _, n := range pkg.XTestGoFiles {
		tc.files[filepath.Join(pkg.Dir, n)] = true
	}
	tc.deps, tc.depFiles, tc.dirs = map[string]*testbuild.Package{}, map[string]string{}, map[string]string{pkg.Dir: pkg.ImportPath}
	tc.build = gobuild.Default
	tc.build.GOARCH = ex.GOARCH
	if goos := mod.Getenv("GOOS"); goos != "" {
		tc.build.GOOS = goos
	}
	if listing, err := mod.List(ctx); err == nil {
		for _, p := range listing.All {
			if _, dep := ex.Files[p.ImportPath]; !dep || p.ImportPath == pkg.ImportPath || len(p.CgoFiles) > 0 {
				continue
			}
			tc.deps[p.ImportPath] = p
			tc.dirs[p.Dir] = p.ImportPath
			for _, n := range p.GoFiles {
				tc.depFiles[filepath.Join(p.Dir, n)] = p.ImportPath
			}
		}
	}
	return tc, nil
}

// affected returns the module's packages a revert of files changes, in
// import order (dependencies first): the packages holding files outside
// the test's own, and the module's packages the test depends on that
// import one of them, directly or not. restored are the files the revert
// brings back (deleted since the base) that the build would compile, by
// import path. ok is false when a file belongs to no package the check
// knows, or is a brought-back test file.
func (tc *typeChecker) affected(files map[string]replacement) (order []string, restored map[string][]string, ok bool) {
	changed := map[string]bool{}
	restored = map[string][]string{}
	for p, r := range files {
		if _, own := tc.files[p]; own {
			continue
		}
		path, dep := tc.depFiles[p]
		if !dep {
			dir, name := filepath.Split(p)
			if path, dep = tc.dirs[filepath.Clean(dir)]; !dep || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				return nil, nil, false
			}
			if !r.present || !tc.compiled(p, r.data) {
				continue
			}
			restored[path] = append(restored[path], p)
		}
		changed[path] = true
	}
	for _, ps := range restored {
		slices.Sort(ps)
	}
	if len(restored[tc.pkg.ImportPath]) > 0 {
		changed[tc.pkg.ImportPath] = true
	}
	for p := range files {
		if test, own := tc.files[p]; own && !test && !strings.HasSuffix(p, "_test.go") {
			changed[tc.pkg.ImportPath] = true
		}
	}
	if len(changed) == 0 || len(changed) == 1 && changed[tc.pkg.ImportPath] && !tc.imported() {
		return nil, restored, true
	}
	// A package is affected when it is changed or imports an affected one.
	state := map[string]int{} // 1: visiting, 2: affected, 3: not
	var visit func(string) bool
	visit = func(path string) bool {
		switch state[path] {
		case 1, 3:
			return false
		case 2:
			return true
		}
		p := tc.deps[path]
		if path == tc.pkg.ImportPath {
			// A package of the module the test depends on imports the
			// package itself (a helper of its external tests): it sees
			// the package as the revert leaves it.
			p = tc.pkg
		}
		if p == nil {
			state[path] = 3
			return false
		}
		state[path] = 1
		hit := changed[path]
		for _, imp := range p.Imports {
			if visit(imp) {
				hit = true
			}
		}
		if hit {
			state[path] = 2
			order = append(order, path) // after its affected imports
		} else {
			state[path] = 3
		}
		return hit
	}
	for _, path := range slices.Sorted(maps.Keys(tc.deps)) {
		visit(path)
	}
	return order, restored, true
}

// imported reports whether a package of the module the test depends on
// imports the test's package.
func (tc *typeChecker) imported() bool {
	for _, p := range tc.deps {
		if slices.Contains(p.Imports, tc.pkg.ImportPath) {
			return true
		}
	}
	return false
}

// compiled reports whether the build compiles a file of this content
// brought back by a revert: its name and build constraints match.
func (tc *typeChecker) compiled(path, data string) bool {
	ctxt := tc.build
	ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }
	ok, err := ctxt.MatchFile(filepath.Dir(path), filepath.Base(path))
	return err == nil && ok
}

// check type-checks the test with files replaced. It returns the errors
// as the compiler prints them ("" when it type-checks), and decided false
// when the check cannot tell: a replaced file outside the package's, or
// an import without export data.
func (tc *typeChecker) check(files map[string]replacement) (msg string, decided bool) {
	order, restored, ok := tc.affected(files)
	if !ok {
		return "", false
	}
	var internal, external []*ast.File
	var errs []string
	undecided := false
	conf := func() *types.Config {
		return &types.Config{GoVersion: tc.goVersion, Sizes: tc.sizes, Error: func(err error) {
			te, ok := err.(types.Error)
			if ok && strings.Contains(te.Msg, "could not import") {
				undecided = true
			}
			if len(errs) < maxTypeErrors {
				errs = append(errs, err.Error())
			}
		}}
	}
	imp := fromSource{checked: map[string]*types.Package{}, imp: tc.imp}
	own := tc.pkg.ImportPath
	for _, path := range order {
		p := tc.deps[path]
		if path == own {
			if len(tc.pkg.TestGoFiles) > 0 {
				return "", false // go test compiles its importers against the package with its tests
			}
			p = tc.pkg
		}
		var syntax []*ast.File
		var paths []string
		for _, n := range p.GoFiles {
			paths = append(paths, filepath.Join(p.Dir, n))
		}
		for _, file := range append(paths, restored[path]...) {
			f, ok, perr := tc.load(file, files)
			if !ok {
				return "", false
			}
			if perr != nil {
				return perr.Error(), true
			}
			if f != nil {
				syntax = append(syntax, f)
			}
		}
		c := conf()
		c.Importer = imp
		checked, _ := c.Check(path, tc.fset, syntax, nil)
		if undecided {
			return "", false
		}
		if len(errs) > 0 {
			return strings.Join(errs, "\n"), true
		}
		imp.checked[path] = checked
	}
	paths := slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(tc.files)), restored[own]...))) // the errors in the compiler's order
	checked, ownChecked := imp.checked[own]
	for _, p := range paths {
		if ownChecked && !tc.files[p] {
			continue // checked in import order
		}
		f, ok, perr := tc.load(p, files)
		if !ok {
			return "", false
		}
		if perr != nil {
			errs = append(errs, perr.Error())
			continue
		}
		if f == nil {
			continue
		}
		if tc.files[p] {
			external = append(external, f)
		} else {
			internal = append(internal, f)
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return strings.Join(errs, "\n"), true
	}
	if !ownChecked {
		c := conf()
		c.Importer = imp
		checked, _ = c.Check(own, tc.fset, internal, nil)
	}
	if len(errs) == 0 && len(external) > 0 {
		c := conf()
		c.Importer = withPackage{checked, imp}
		c.Check(own+"_test", tc.fset, external, nil)
	}
	if undecided {
		return "", false
	}
	return strings.Join(errs, "\n"), true
}

// load parses a file as the revert leaves it: nil when the revert
// removes it, the parser's error when it does not parse, and ok false
// when it cannot be read.
func (tc *typeChecker) load(path string, files map[string]replacement) (f *ast.File, ok bool, parseErr error) {
	src, present, err := tc.source(path, files)
	if err != nil {
		return nil, false, nil
	}
	if !present {
		return nil, true, nil
	}
	f, err = tc.parse(path, src)
	return f, true, err
}

// source is a file's content with files replaced, and whether it exists.
func (tc *typeChecker) source(path string, files map[string]replacement) (string, bool, error) {
	if r, ok := files[path]; ok {
		return r.data, r.present, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	return string(data), true, nil
}

// parse parses a file, or recalls it when its content is the same.
func (tc *typeChecker) parse(path, src string) (*ast.File, error) {
	k := parsedKey{path, sha256.Sum256([]byte(src))}
	if f, ok := tc.parsed[k]; ok {
		return f, nil
	}
	f, err := parser.ParseFile(tc.fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	tc.parsed[k] = f
	return f, nil
}

// parsedKey names a parse: a revert's file by its path and a hash of its
// content, so that the cache does not hold every version's text as a key.
type parsedKey struct {
	path string
	sum  [sha256.Size]byte
}

// withPackage imports one package as checked from source, the rest from
// export data: the external tests import the package with its
// in-package tests.
type withPackage struct {
	pkg *types.Package
	imp types.Importer
}

func (w withPackage) Import(path string) (*types.Package, error) {
	if w.pkg != nil && path == w.pkg.Path() {
		return w.pkg, nil
	}
	return w.imp.Import(path)
}

// fromSource imports the packages checked from source for one revert,
// the rest from export data: those the revert leaves as they are, whose
// export data therefore still holds.
type fromSource struct {
	checked map[string]*types.Package
	imp     types.Importer
}

func (f fromSource) Import(path string) (*types.Package, error) {
	if p, ok := f.checked[path]; ok {
		return p, nil
	}
	return f.imp.Import(path)
}
