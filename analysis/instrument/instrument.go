package instrument

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"

	"golang.org/x/tools/go/packages"
)

// program is one instrumented build of a package's test binary.
type Program struct {
	root       string
	modulePath string
	Fset       *token.FileSet
	Sites      []*Site            // by id
	LeafOf     map[ast.Expr]int32 // wrapped operand -> leaf site
	Funcs      map[string]*Function
	Overlay    *testbuild.Overlay
	diffs      map[*types.Var]*ast.CallExpr // d in if d := cmp.Diff(x, y); ...
	resultOf   map[*ast.CallExpr]bool       // calls wrapped in a kindResult site
	pkgDir     string                       // directory of the package under test
	rt         string                       // import name of the runtime in instrumented files
	tuple      string                       // prefix of the tuple helpers declared in instrumented files
	Sentinels  *sentinelTable               // error codes of sentinels (errors_is.go)
	sortRanges bool                         // ranges over maps run in key order (sortrange.go)
}

// LoadProgram loads pkgPath with its tests and the module packages its test
// binary is built from (roots, pkgPath among them), and instruments every
// file of them into an overlay of mod. Only those are loaded from source;
// every other package's types come from its export data, which keeps the
// standard library's syntax out of memory.
func LoadProgram(mod *testbuild.Module, pkgPath string, roots []string) (*Program, error) {
	return LoadProgramContext(context.Background(), mod, pkgPath, roots)
}

// LoadProgramContext is LoadProgram stopped when ctx is done: the go
// command it lists with is killed, and type checking and instrumenting
// stop between packages and files, so that a caller past its deadline
// leaves nothing working on in the background.
func LoadProgramContext(ctx context.Context, mod *testbuild.Module, pkgPath string, roots []string) (*Program, error) {
	root := mod.Root
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir:     root,
		Env:     mod.Env(),
		Tests:   true,
		Context: ctx,
	}
	pkgs, err := packages.Load(cfg, roots...)
	if ctx.Err() != nil {
		// packages.Load may end early with what it loaded, or with the
		// go command's failure as text.
		err = ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", pkgPath, err)
	}
	// Only the module's own files are the analysis's concern (the test main
	// the go command generates is not): other code that does not compile
	// stops the build with its own message.
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Module == nil || !p.Module.Main {
			return
		}
		for _, e := range p.Errors {
			if e.Pos == "" || strings.HasPrefix(e.Pos, root+string(filepath.Separator)) {
				errs = append(errs, e.Error())
			}
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading %s: %s", pkgPath, strings.Join(errs, "; "))
	}
	overlay, err := mod.NewOverlay()
	if err != nil {
		return nil, err
	}
	prog := &Program{root: root, LeafOf: map[ast.Expr]int32{}, Funcs: map[string]*Function{}, Overlay: overlay,
		diffs: map[*types.Var]*ast.CallExpr{}, resultOf: map[*ast.CallExpr]bool{}, sortRanges: canSortRanges(mod)}
	// Every module package in the graph; test variants first, since they
	// hold the package's test files and type the other files identically.
	var inModule []*packages.Package
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Module != nil && p.Module.Main && (p.PkgPath == pkgPath || p.ID == p.PkgPath) {
			if p.PkgPath == pkgPath && prog.pkgDir == "" && len(p.GoFiles) > 0 {
				prog.pkgDir = filepath.Dir(p.GoFiles[0])
			}
			inModule = append(inModule, p)
			prog.modulePath = p.Module.Path
			if prog.Fset == nil {
				prog.Fset = p.Fset
			}
		}
	})
	if len(inModule) == 0 {
		return nil, fmt.Errorf("%s: no package of the main module", pkgPath)
	}
	sort.SliceStable(inModule, func(i, j int) bool {
		return (inModule[i].ID != inModule[i].PkgPath) && (inModule[j].ID == inModule[j].PkgPath)
	})
	type unit struct {
		p    *packages.Package
		file *ast.File
		path string
		src  []byte
	}
	var units []unit
	var sources [][]byte
	seen := map[string]bool{}
	for _, p := range inModule {
		for i, f := range p.Syntax {
			if i >= len(p.CompiledGoFiles) {
				break
			}
			path := p.CompiledGoFiles[i]
			if seen[path] || !strings.HasSuffix(path, ".go") || !strings.HasPrefix(path, root) {
				continue
			}
			seen[path] = true
			src, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", path, err)
			}
			units = append(units, unit{p, f, path, src})
			sources = append(sources, src)
		}
	}
	// The names instrumented files use must be nobody's in the program.
	prog.rt = testbuild.UnusedName("faultlineagx", sources...)
	prog.tuple = testbuild.UnusedName("faultlineagxTuple", sources...)
	runtimePath, err := overlay.AddRuntime(recorderRuntime())
	if err != nil {
		return nil, err
	}
	// Functions first, so that calls resolve to callees in any file.
	for _, u := range units {
		hard := strings.HasSuffix(u.path, "_test.go")
		for _, d := range u.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				prog.declare(fd.Name.Pos(), fd.Name.Name, hard, u.p.TypesInfo.Defs[fd.Name])
			}
		}
		prog.declareSentinels(u.file, u.p.TypesInfo)
	}
	for _, u := range units {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("instrumenting %s: %w", pkgPath, err)
		}
		rel, _ := filepath.Rel(root, u.path)
		fi := &fileInstrumenter{prog: prog, info: u.p.TypesInfo, pkg: u.p.Types, file: u.file, rel: filepath.ToSlash(rel), src: u.src,
			hard: strings.HasSuffix(u.path, "_test.go"), tf: prog.Fset.File(u.file.Pos()), lang: genericsVersion}
		if edits := fi.Run(u.file, runtimePath); len(edits) > 0 {
			if err := overlay.Edit(u.path, u.src, edits, fi.lang); err != nil {
				return nil, err
			}
		}
	}
	return prog, nil
}

// LoadPackage lists package pkgPath of mod, computes the listing's keys
// and loads the program of pkgPath's test binary (LoadProgram over the
// module packages it is built from): what a technique needs before
// BuildTestBinary. On success the caller saves mod's file hash index
// (mod.Hasher().Save()) once it has built what it needs; on a failure
// after the keys, LoadPackage saves it.
func LoadPackage(ctx context.Context, mod *testbuild.Module, pkgPath string) (*testbuild.Package, *testbuild.Keys, *Program, error) {
	listing, pkg, keys, err := mod.ListPackageKeys(ctx, pkgPath)
	if err != nil {
		return nil, nil, nil, err
	}
	prog, err := LoadProgramContext(ctx, mod, pkgPath, testbuild.SortedPaths(listing.Closure(pkg)))
	if err != nil {
		mod.Hasher().Save()
		return nil, nil, nil, err
	}
	return pkg, keys, prog, nil
}

func (p *Program) funcKey(pos token.Pos) string {
	position := p.Fset.Position(pos)
	return position.Filename + ":" + strconv.Itoa(position.Offset)
}

func (p *Program) declare(pos token.Pos, name string, hard bool, obj types.Object) *Function {
	key := p.funcKey(pos)
	if f := p.Funcs[key]; f != nil {
		return f
	}
	f := &Function{Name: name, Hard: hard, Tracked: map[*types.Var]bool{}}
	if fn, ok := obj.(*types.Func); ok {
		sig := fn.Signature()
		for i := 0; i < sig.Results().Len(); i++ {
			f.Results = append(f.Results, sig.Results().At(i).Type())
		}
		if r := sig.Recv(); r != nil && isRef(r.Type()) {
			f.Refs = append(f.Refs, r)
		}
		for i := 0; i < sig.Params().Len(); i++ {
			if p := sig.Params().At(i); isRef(p.Type()) {
				f.Refs = append(f.Refs, p)
			}
		}
	}
	p.Funcs[key] = f
	return f
}

// callee returns the instrumented function a call statically calls, if any.
func (p *Program) Callee(info *types.Info, call *ast.CallExpr) *Function {
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		if sel := info.Selections[fun]; sel != nil && sel.Kind() != types.MethodVal {
			return nil
		}
		id = fun.Sel
	case *ast.IndexExpr: // explicit instantiation
		if x, ok := fun.X.(*ast.Ident); ok {
			id = x
		}
	}
	if id == nil {
		return nil
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok {
		return nil
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		if types.IsInterface(sig.Recv().Type()) {
			return nil
		}
	}
	return p.Funcs[p.funcKey(fn.Origin().Pos())]
}

func (p *Program) newSite(s *Site) *Site {
	s.Id = int32(len(p.Sites))
	p.Sites = append(p.Sites, s)
	return s
}

// valueKind classifies a type the formula models as a value: 'i' integer,
// 'b' Boolean, 'f' float32 or float64, 's' string, 'y' byte slice (a
// sequence of bytes, like a string), 'e' error (its nil-ness alone, a
// Boolean: true when not nil).
func ValueKind(t types.Type) byte {
	if t == nil {
		return 0
	}
	if isErrorType(t) {
		return 'e'
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return 'b'
		case u.Info()&types.IsInteger != 0:
			return 'i'
		case u.Info()&types.IsFloat != 0:
			return 'f'
		case u.Info()&types.IsString != 0:
			return 's'
		}
	case *types.Slice:
		if IsByte(u.Elem()) {
			return 'y'
		}
		if IsList(u) {
			return 'l'
		}
	case *types.Struct:
		if IsRecord(u) {
			return 'r'
		}
	case *types.Map:
		if IsMap(u) {
			return 'm'
		}
	}
	return 0
}

// isByte reports whether t is byte (uint8) itself, not a named type: only
// then is []T assignable to and from []byte.
func IsByte(t types.Type) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Kind() == types.Uint8
}

// errorType is the predeclared error interface.
var ErrorType = types.Universe.Lookup("error").Type()

// isErrorType reports whether t is error itself; a concrete error type
// has more to it than nil-ness.
func isErrorType(t types.Type) bool { return types.Identical(t, ErrorType) }

// isNil reports whether e is the predeclared nil.
func IsNil(info *types.Info, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := info.Uses[id].(*types.Nil)
	return isNil
}

// isErrorCtor recognises errors.New and fmt.Errorf, which always return a
// non-nil error.
func IsErrorCtor(info *types.Info, call *ast.CallExpr) bool {
	fn := calledFunc(info, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	name := fn.Pkg().Path() + "." + fn.Name()
	return name == "errors.New" || name == "fmt.Errorf"
}

// isSeq reports whether t is a string or byte slice type.
func IsSeq(t types.Type) bool {
	k := ValueKind(t)
	return k == 's' || k == 'y'
}

// recorder is the runtime function that records a value of type t: the
// trace holds an integer as itself, a Boolean as 0 or 1, a float as its
// IEEE bits and a string or byte slice as its quoted contents.
func recorder(t types.Type) string {
	switch ValueKind(t) {
	case 'b':
		return "B"
	case 'f':
		if IsFloat32(t) {
			return "F32"
		}
		return "F64"
	case 's':
		return "S"
	case 'y':
		return "Y"
	case 'e':
		return "E"
	case 'l':
		return "L"
	case 'r':
		return "R"
	case 'm':
		return "M"
	}
	return "I"
}

// recorderConstraint names the runtime's constraint of recorder r's type
// parameter.
var recorderConstraint = map[string]string{"I": "Integer", "B": "BoolKind", "F32": "Float32Kind", "F64": "Float64Kind", "S": "StringKind", "Y": "BytesKind", "E": "ErrorKind", "L": "ListKind", "R": "RecordKind", "M": "MapKind"}

// fileInstrumenter rewrites one file.
type fileInstrumenter struct {
	prog  *Program
	info  *types.Info
	pkg   *types.Package
	file  *ast.File
	rel   string
	src   []byte
	hard  bool
	tf    *token.File
	edits []testbuild.Edit
	lang  string // the language version the edits need
}

func (fi *fileInstrumenter) off(p token.Pos) int { return fi.tf.Offset(p) }

func (fi *fileInstrumenter) add(e testbuild.Edit) {
	e.Seq = len(fi.edits)
	fi.edits = append(fi.edits, e)
}

func (fi *fileInstrumenter) insert(p token.Pos, text string) {
	fi.add(testbuild.Edit{Off: fi.off(p), Text: text})
}

// record is a call recording the value of expr, of type t, at site id:
// instantiated with t where it can be spelled at pos, else with expr's own
// type, which must then be t.
func (fi *fileInstrumenter) record(t types.Type, pos token.Pos, id int32, expr string) string {
	return fi.call(recorder(t), fi.spell(t, pos)) + strconv.Itoa(int(id)) + ", " + expr + ")"
}

// call is the start of a call of the runtime function name instantiated
// with typ ("" to let the argument's type decide).
func (fi *fileInstrumenter) call(name, typ string) string {
	if typ == "" {
		return fi.prog.rt + "." + name + "("
	}
	return fi.prog.rt + "." + name + "[" + typ + "]("
}

// wrap surrounds e with a call to the runtime recording site id. The call
// is instantiated with e's type, so that an untyped constant or comparison
// in e takes the type its context gave it, as it did unwrapped. When that
// type cannot be spelled here and e's own type would differ from it, e is
// left unrecorded rather than break the build.
func (fi *fileInstrumenter) wrap(e ast.Expr, id int32, t types.Type) {
	// The type e has where it stands: a condition of a named Boolean type
	// keeps that type, an untyped one takes its default.
	if own := fi.info.TypeOf(e); own != nil && ValueKind(own) == ValueKind(t) {
		t = types.Default(own)
	}
	name, ok := fi.typeArg(e, t)
	if !ok {
		return
	}
	span := fi.off(e.End()) - fi.off(e.Pos())
	fi.add(testbuild.Edit{Off: fi.off(e.Pos()), Text: fi.call(recorder(t), name) + strconv.Itoa(int(id)) + ", ", Span: span})
	fi.add(testbuild.Edit{Off: fi.off(e.End()), Text: ")", Close: true, Span: span + 1})
}

// typeArg returns the type argument of a runtime call that passes e, of
// type t where it stands, through: t spelled, or "" to let e's own type
// decide. It reports false when neither works: t cannot be spelled here
// and e takes its type from its context (an untyped constant shifted by a
// variable, a comparison), which an argument of an uninstantiated call
// would not give it.
func (fi *fileInstrumenter) typeArg(e ast.Expr, t types.Type) (string, bool) {
	name := fi.spell(t, e.Pos())
	return name, name != "" || !fi.contextTyped(e)
}

// basicAliases name the predeclared types in the runtime, where the code
// under test cannot shadow them.
var basicAliases = map[types.BasicKind]string{
	types.Bool: "Bool", types.Int: "Int", types.Int8: "Int8", types.Int16: "Int16", types.Int32: "Int32", types.Int64: "Int64",
	types.Uint: "Uint", types.Uint8: "Uint8", types.Uint16: "Uint16", types.Uint32: "Uint32", types.Uint64: "Uint64",
	types.Uintptr: "Uintptr", types.Float32: "Float32", types.Float64: "Float64", types.String: "String",
}

// spell returns how t is written at pos in this file, or "" when it cannot
// be: a predeclared type through the runtime's alias, a type of this
// package by its name, another package's exported type through this file's
// import of it, each only when no local declaration shadows the name.
func (fi *fileInstrumenter) spell(t types.Type, pos token.Pos) string {
	if isErrorType(t) {
		return fi.prog.rt + ".Error"
	}
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		if name, ok := basicAliases[t.Kind()]; ok {
			return fi.prog.rt + "." + name
		}
	case *types.Slice:
		if IsByte(t.Elem()) {
			return fi.prog.rt + ".ByteSlice"
		}
		if IsList(t) {
			if elem := fi.spell(t.Elem(), pos); elem != "" {
				return "[]" + elem
			}
		}
	case *types.Map:
		if k, v := MapTypes(t); k != nil {
			return "map[" + fi.prog.rt + "." + basicAliases[k.(*types.Basic).Kind()] + "]" + fi.prog.rt + "." + basicAliases[v.(*types.Basic).Kind()]
		}
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil || t.TypeArgs().Len() > 0 {
			return "" // predeclared error, instantiations
		}
		if obj.Pkg() == fi.pkg { // declared in the package or, visible here, in a function
			if fi.lookup(obj.Name(), pos) == obj {
				return obj.Name()
			}
			return ""
		}
		if !obj.Exported() || obj.Parent() != obj.Pkg().Scope() {
			return ""
		}
		for _, imp := range fi.file.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path != obj.Pkg().Path() {
				continue
			}
			pn, ok := fi.info.PkgNameOf(imp), true
			if pn == nil || pn.Name() == "_" || pn.Name() == "." {
				ok = false
			}
			if ok && fi.lookup(pn.Name(), pos) == types.Object(pn) {
				return pn.Name() + "." + obj.Name()
			}
		}
	}
	return ""
}

// lookup resolves a name at pos as the type checker would there.
func (fi *fileInstrumenter) lookup(name string, pos token.Pos) types.Object {
	scope := fi.pkg.Scope().Innermost(pos)
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent(name, pos)
	return obj
}

// contextTyped reports whether e's type comes from where it stands rather
// than from e itself: a constant, a comparison (untyped bool), a shift of
// a constant, or operations on such.
func (fi *fileInstrumenter) contextTyped(e ast.Expr) bool {
	if tv, ok := fi.info.Types[e]; ok && tv.Value != nil {
		return true
	}
	if IsNil(fi.info, e) {
		return true // nil is a nil slice, map or error where it stands
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return fi.contextTyped(e.X)
	case *ast.UnaryExpr:
		return fi.contextTyped(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return true
		case token.SHL, token.SHR:
			return fi.contextTyped(e.X)
		}
		return fi.contextTyped(e.X) && fi.contextTyped(e.Y)
	}
	return false
}

func (fi *fileInstrumenter) site(kind siteKind, fn *Function, e ast.Node, t types.Type) *Site {
	s := &Site{Kind: kind, Hard: fi.hard, File: fi.rel, Fn: fn, Info: fi.info, Typ: t, Pkg: fi.pkg}
	if e != nil {
		s.Pos = fi.prog.Fset.Position(e.Pos())
		s.End = fi.prog.Fset.Position(e.End())
		s.Text = string(fi.src[fi.off(e.Pos()):fi.off(e.End())])
		if x, ok := e.(ast.Expr); ok {
			s.Expr = x
		}
	}
	return fi.prog.newSite(s)
}

// run instruments every function of f and returns the edits.
func (fi *fileInstrumenter) Run(f *ast.File, runtimePath string) []testbuild.Edit {
	fi.registerSentinels(f)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		if fi.hard && fd.Name.Name == "TestMain" && fd.Recv == nil {
			continue // it outlives the tests and may exit the process
		}
		fn := fi.prog.Funcs[fi.prog.funcKey(fd.Name.Pos())]
		fn.Name = fd.Name.Name
		fi.function(fn, fd.Recv, fd.Type, fd.Body)
	}
	fi.valueSites(f)
	if len(fi.edits) == 0 {
		return nil
	}
	fi.insert(f.Name.End(), fmt.Sprintf("; import %s %q", fi.prog.rt, runtimePath))
	return fi.edits
}

// SiteOf returns the site a trace event names, or nil when the event
// names none of p's sites (a trace from another build, a corrupt record).
func (p *Program) SiteOf(ev Event) *Site {
	if ev.Site < 0 || int(ev.Site) >= len(p.Sites) {
		return nil
	}
	return p.Sites[ev.Site]
}

// isRef reports whether a value of type t refers to storage its holder
// shares: a callee given one may change what its caller sees.
func isRef(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map:
		return true
	}
	return false
}
