package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/bug"
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
}

// loadProgram loads pkgPath with its tests and the module packages its test
// binary is built from (roots, pkgPath among them), and instruments every
// file of them into an overlay of mod. Only those are loaded from source;
// every other package's types come from its export data, which keeps the
// standard library's syntax out of memory.
func LoadProgram(mod *testbuild.Module, pkgPath string, roots []string) (*Program, error) {
	root := mod.Root
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir:   root,
		Env:   mod.Env(),
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, roots...)
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
		diffs: map[*types.Var]*ast.CallExpr{}, resultOf: map[*ast.CallExpr]bool{}}
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
		rel, _ := filepath.Rel(root, u.path)
		fi := &fileInstrumenter{prog: prog, info: u.p.TypesInfo, pkg: u.p.Types, file: u.file, rel: filepath.ToSlash(rel), src: u.src,
			hard: strings.HasSuffix(u.path, "_test.go"), tf: prog.Fset.File(u.file.Pos())}
		if edits := fi.Run(u.file, runtimePath); len(edits) > 0 {
			if err := overlay.Edit(u.path, u.src, edits, genericsVersion); err != nil {
				return nil, err
			}
		}
	}
	return prog, nil
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

// function instruments one function body.
func (fi *fileInstrumenter) function(fn *Function, recv *ast.FieldList, ft *ast.FuncType, body *ast.BlockStmt) {
	fi.trackLocals(fn, ft, body)
	fn.Defers = defers(body)
	enter := fi.site(KindEnter, fn, nil, nil)
	leave := fi.site(KindLeave, fn, nil, nil)
	fn.Enter, fn.leave = enter.Id, leave.Id
	var prologue strings.Builder
	fmt.Fprintf(&prologue, " %s.Enter(%d); defer %s.Leave(%d);", fi.prog.rt, enter.Id, fi.prog.rt, leave.Id)
	if ft.Params != nil {
		index := 0
		for _, field := range ft.Params.List {
			_, variadic := field.Type.(*ast.Ellipsis)
			names := field.Names
			if len(names) == 0 {
				index++
				continue
			}
			for _, name := range names {
				obj, _ := fi.info.Defs[name].(*types.Var)
				if obj != nil && name.Name != "_" && !variadic && ValueKind(obj.Type()) != 0 {
					s := fi.site(KindParam, fn, name, obj.Type())
					s.Index = index
					if fn.Tracked[obj] {
						s.Obj = obj
					}
					fmt.Fprintf(&prologue, " _ = %s;", fi.record(obj.Type(), body.Lbrace, s.Id, name.Name))
				}
				index++
			}
		}
	}
	if t := testingT(fi.info, ft); fi.hard && t != "" {
		fmt.Fprintf(&prologue, " defer %s.Recover(%s);", fi.prog.rt, t)
	}
	fi.insert(body.Lbrace+1, prologue.String())
	fi.stmtList(fn, body.List)
}

// testingT is the name of the parameter of a func(t *testing.T): a test
// function or a subtest's body, each the root of its goroutine, or "".
func testingT(info *types.Info, ft *ast.FuncType) string {
	if ft.Params == nil || len(ft.Params.List) != 1 || len(ft.Params.List[0].Names) != 1 || ft.Results != nil && len(ft.Results.List) > 0 {
		return ""
	}
	name := ft.Params.List[0].Names[0]
	v, _ := info.Defs[name].(*types.Var)
	if v == nil || name.Name == "_" {
		return ""
	}
	ptr, ok := v.Type().(*types.Pointer)
	if !ok {
		return ""
	}
	named, ok := ptr.Elem().(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "testing" || named.Obj().Name() != "T" {
		return ""
	}
	return name.Name
}

// trackLocals decides which integer and Boolean locals of fn the formula
// follows: those only ever assigned one value at a time by plain
// assignments in fn itself and never addressed. The others enter as
// recorded values at each use.
func (fi *fileInstrumenter) trackLocals(fn *Function, ft *ast.FuncType, body *ast.BlockStmt) {
	candidate := func(id *ast.Ident) {
		if v, ok := fi.info.Defs[id].(*types.Var); ok && ValueKind(v.Type()) != 0 && id.Name != "_" {
			fn.Tracked[v] = true
		}
	}
	if ft.Params != nil {
		for _, f := range ft.Params.List {
			for _, n := range f.Names {
				candidate(n)
			}
		}
	}
	untrack := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if v, ok := fi.info.ObjectOf(id).(*types.Var); ok {
				delete(fn.Tracked, v)
			}
		}
	}
	var untracked []ast.Expr
	depth := 0
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			depth++
			ast.Inspect(n.Body, visit)
			depth--
			return false
		case *ast.AssignStmt:
			if ta, ok := commaOK(n.Lhs, n.Rhs); ok {
				untracked = append(untracked, fi.trackCommaOK(fn, ta, n.Lhs, n.Tok == token.DEFINE, depth)...)
				break
			}
			plain := len(n.Lhs) == len(n.Rhs) || fi.tupleCall(n.Rhs, len(n.Lhs)) != nil
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && depth == 0 && plain && n.Tok == token.DEFINE {
					candidate(id)
				} else if !plain || depth > 0 {
					untracked = append(untracked, l)
				}
			}
		case *ast.IncDecStmt:
			if depth > 0 {
				untracked = append(untracked, n.X)
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 {
				if ta, ok := commaOK([]ast.Expr{n.Names[0], n.Names[1]}, n.Values); ok {
					untracked = append(untracked, fi.trackCommaOK(fn, ta, []ast.Expr{n.Names[0], n.Names[1]}, true, depth)...)
					break
				}
			}
			if depth == 0 && (len(n.Values) == 0 || len(n.Values) == len(n.Names) || fi.tupleCall(n.Values, len(n.Names)) != nil) {
				for _, id := range n.Names {
					candidate(id)
				}
			}
		case *ast.RangeStmt:
			untracked = append(untracked, n.Key, n.Value)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				untracked = append(untracked, n.X)
			}
		}
		return true
	}
	ast.Inspect(body, visit)
	for _, e := range untracked {
		if e != nil {
			untrack(e)
		}
	}
	fi.untrackAliasedLists(fn, body)
}

func (fi *fileInstrumenter) stmtList(fn *Function, list []ast.Stmt) {
	for _, s := range list {
		fi.stmt(fn, s, true)
	}
}

// storeTarget returns lhs when the formula follows a store to it, an
// element of a tracked byte slice local (b[i] = v), recording the
// operands of its index; nil otherwise.
func (fi *fileInstrumenter) storeTarget(fn *Function, lhs ast.Expr) ast.Expr {
	if _, ok := FieldStore(fi.info, fn, lhs); ok {
		return lhs
	}
	ix, ok := ast.Unparen(lhs).(*ast.IndexExpr)
	if !ok {
		return nil
	}
	v := fi.localVar(fn, ix.X)
	if v == nil || !IsSeqStore(v.Type()) || !isIndex(fi.info.TypeOf(ix.Index)) {
		return nil
	}
	fi.model(fn, ix.Index, false)
	return lhs
}

func (fi *fileInstrumenter) localVar(fn *Function, e ast.Expr) *types.Var {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := fi.info.ObjectOf(id).(*types.Var)
	if v == nil || !fn.Tracked[v] {
		return nil
	}
	return v
}

// stmt instruments one statement; inList says a statement may follow it.
func (fi *fileInstrumenter) stmt(fn *Function, s ast.Stmt, inList bool) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			fi.calls(fn, l)
			fi.mapWriteGuard(fn, l)
		}
		if len(s.Lhs) == len(s.Rhs) {
			var group *Site
			for i, rhs := range s.Rhs {
				fi.calls(fn, rhs)
				if s.Tok == token.QUO_ASSIGN || s.Tok == token.REM_ASSIGN {
					fi.divGuard(fn, rhs)
				}
				t := fi.info.TypeOf(s.Lhs[i])
				if id, ok := s.Lhs[i].(*ast.Ident); ok && id.Name == "_" {
					continue
				}
				if s.Tok != token.ASSIGN && s.Tok != token.DEFINE {
					// The site records the right operand: a shift count has
					// its own type, an untyped count is a uint.
					if s.Tok == token.SHL_ASSIGN || s.Tok == token.SHR_ASSIGN {
						if t = fi.info.TypeOf(rhs); IsUntypedNumber(t) {
							t = types.Typ[types.Uint]
						}
					}
				}
				if ValueKind(t) == 0 || fi.isNotedDiff(s.Lhs[i]) {
					// d in if d := cmp.Diff(x, y); d != "": the condition
					// compares x and y, read where they were evaluated.
					continue
				}
				st := fi.site(KindAssign, fn, rhs, t)
				st.Obj = fi.localVar(fn, s.Lhs[i])
				st.Op = s.Tok
				if st.Obj == nil {
					st.Lhs = fi.storeTarget(fn, s.Lhs[i])
				}
				if len(s.Rhs) > 1 {
					st.Parallel = true
					if group != nil {
						group.Last = false
					}
					st.Last, group = true, st
				}
				fi.model(fn, rhs, true)
				fi.wrap(rhs, st.Id, t)
			}
		} else {
			for _, rhs := range s.Rhs {
				fi.calls(fn, rhs)
			}
			if call := fi.tupleCall(s.Rhs, len(s.Lhs)); call != nil {
				fi.tupleAssign(fn, call, s.Lhs, s.Tok)
			} else if ta, ok := commaOK(s.Lhs, s.Rhs); ok {
				fi.typeAssertOK(fn, ta, s.Lhs[1], s.Tok)
			}
		}
	case *ast.IncDecStmt:
		fi.calls(fn, s.X)
		fi.mapWriteGuard(fn, s.X)
		if v := fi.localVar(fn, s.X); v != nil && (ValueKind(v.Type()) == 'i' || ValueKind(v.Type()) == 'f') {
			st := fi.site(KindIncDec, fn, s, v.Type())
			st.Obj, st.Op = v, s.Tok
			name := v.Name() // s.X may be parenthesized
			op := "+"
			if s.Tok == token.DEC {
				op = "-"
			}
			fi.add(testbuild.Edit{Off: fi.off(s.Pos()), Del: fi.off(s.End()) - fi.off(s.Pos()),
				Text: name + " = " + fi.record(v.Type(), s.Pos(), st.Id, name+op+"1"), Span: testbuild.Statement})
		}
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return
		}
		var defs []string
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Values) != 0 && len(vs.Values) != len(vs.Names) {
				for _, x := range vs.Values {
					fi.calls(fn, x)
				}
				lhs := make([]ast.Expr, len(vs.Names))
				for i, name := range vs.Names {
					lhs[i] = name
				}
				if call := fi.tupleCall(vs.Values, len(vs.Names)); call != nil {
					fi.tupleAssign(fn, call, lhs, token.DEFINE)
				} else if ta, ok := commaOK(lhs, vs.Values); ok {
					fi.typeAssertOK(fn, ta, lhs[1], token.DEFINE)
				}
				continue
			}
			for i, name := range vs.Names {
				v, _ := fi.info.Defs[name].(*types.Var)
				if v == nil || ValueKind(v.Type()) == 0 || name.Name == "_" {
					continue
				}
				if len(vs.Values) == len(vs.Names) {
					fi.calls(fn, vs.Values[i])
					st := fi.site(KindAssign, fn, vs.Values[i], v.Type())
					st.Op = token.DEFINE
					if fn.Tracked[v] {
						st.Obj = v
					}
					fi.model(fn, vs.Values[i], true)
					fi.wrap(vs.Values[i], st.Id, v.Type())
				} else if inList {
					st := fi.site(KindDef, fn, name, v.Type())
					if fn.Tracked[v] {
						st.Obj = v
					}
					defs = append(defs, "_ = "+fi.record(v.Type(), s.End(), st.Id, name.Name))
				}
			}
		}
		if len(defs) > 0 {
			fi.insert(s.End(), "; "+strings.Join(defs, "; "))
		}
	case *ast.ExprStmt:
		fi.calls(fn, s.X)
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok && fi.hard {
			fi.assertion(fn, call)
		}
	case *ast.SendStmt:
		fi.calls(fn, s.Chan)
		fi.calls(fn, s.Value)
	case *ast.GoStmt, *ast.DeferStmt:
		// Arguments are evaluated now but the callee runs later: only the
		// function literals inside are instrumented.
		ast.Inspect(s, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				fi.funcLit(lit)
				return false
			}
			return true
		})
	case *ast.ReturnStmt:
		if call := fi.tupleCall(s.Results, len(fn.Results)); call != nil {
			fi.calls(fn, call)
			comps := map[int]*Site{}
			var last *Site
			for i, t := range fn.Results {
				if ValueKind(t) != 0 {
					last = fi.site(KindReturn, fn, call, t)
					last.Index, last.Tuple = i, true
					last.Text += fmt.Sprintf(" (result %d)", i+1)
					comps[i] = last
				}
			}
			if last != nil {
				last.Last = true
			}
			fi.tuple(fn, call, comps)
			break
		}
		for i, r := range s.Results {
			fi.calls(fn, r)
			if len(s.Results) != len(fn.Results) || ValueKind(fn.Results[i]) == 0 {
				continue
			}
			st := fi.site(KindReturn, fn, r, fn.Results[i])
			st.Index = i
			fi.model(fn, r, true)
			fi.wrap(r, st.Id, fn.Results[i])
		}
	case *ast.BlockStmt:
		fi.stmtList(fn, s.List)
	case *ast.LabeledStmt:
		if sw, ok := s.Stmt.(*ast.SwitchStmt); ok {
			// A break naming the label leaves the switch: it is not terminating.
			fi.switchStmt(fn, sw, s.Label.Name, inList)
			break
		}
		if sw, ok := s.Stmt.(*ast.TypeSwitchStmt); ok {
			fi.typeSwitchStmt(fn, sw, s.Label.Name, inList)
			break
		}
		fi.stmt(fn, s.Stmt, inList)
	case *ast.IfStmt:
		if s.Init != nil {
			fi.noteDiff(s.Init)
			fi.stmt(fn, s.Init, false)
		}
		fi.calls(fn, s.Cond)
		st := fi.site(KindCond, fn, s.Cond, types.Typ[types.Bool])
		st.Stmt = s
		st.AssignedInside = fi.assigned(fn, s)
		st.Escapes = escapes(s)
		if fi.hard {
			if fi.reportsFailure(s.Body) {
				st.FailsWhen = 1
			} else if s.Else != nil && fi.reportsFailure(s.Else) {
				st.FailsWhen = 2
			}
		}
		fi.model(fn, s.Cond, true)
		fi.wrap(s.Cond, st.Id, types.Typ[types.Bool])
		fi.stmt(fn, s.Body, false)
		if s.Else != nil {
			fi.stmt(fn, s.Else, false)
		}
		fi.join(fn, s, "", inList)
	case *ast.ForStmt:
		if s.Init != nil {
			fi.stmt(fn, s.Init, false)
		}
		if s.Cond != nil {
			fi.calls(fn, s.Cond)
			st := fi.site(KindCond, fn, s.Cond, types.Typ[types.Bool])
			st.Stmt = s
			st.AssignedInside = fi.assigned(fn, s)
			st.Escapes = escapes(s)
			fi.model(fn, s.Cond, true)
			fi.wrap(s.Cond, st.Id, types.Typ[types.Bool])
		}
		if s.Post != nil {
			fi.stmt(fn, s.Post, false)
		}
		fi.stmt(fn, s.Body, false)
		if s.Cond != nil {
			fi.join(fn, s, "", inList)
		}
	case *ast.RangeStmt:
		if !rangeUnevaluated(fi.info, s) {
			fi.calls(fn, s.X)
		}
		fi.stmt(fn, s.Body, false)
	case *ast.SwitchStmt:
		fi.switchStmt(fn, s, "", inList)
	case *ast.TypeSwitchStmt:
		fi.typeSwitchStmt(fn, s, "", inList)
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			if cc.Comm != nil {
				fi.calls(fn, cc.Comm)
			}
			fi.stmtList(fn, cc.Body)
		}
	}
}

// switchStmt instruments an expression switch as the if/else-if chain it
// is: each case expression evaluated is a condition site and control
// leaving the switch is a join. A tagged switch records its tag once (a
// site of its own) and each case compares that value with the case value,
// so that the tag is evaluated once as the switch does. A tagged switch
// whose tag is not an integer of a type this file can spell, or a case
// value that calls a function (which could run the switch again before the
// comparison), is left as executed.
func (fi *fileInstrumenter) switchStmt(fn *Function, s *ast.SwitchStmt, label string, inList bool) {
	if s.Init != nil {
		fi.stmt(fn, s.Init, false)
	}
	var tag *Site
	typeName := ""
	if s.Tag != nil {
		fi.calls(fn, s.Tag)
		if typeName = fi.tagTypeName(s); typeName == "" {
			for _, c := range s.Body.List {
				cc := c.(*ast.CaseClause)
				for _, x := range cc.List {
					fi.calls(fn, x)
				}
				fi.stmtList(fn, cc.Body)
			}
			return
		}
		tag = fi.site(KindTag, fn, s.Tag, fi.info.TypeOf(s.Tag))
		fi.model(fn, s.Tag, true)
		fi.surround(s.Tag, fi.call("Tag", typeName)+strconv.Itoa(int(tag.Id))+", ", ")")
	}
	assigned := fi.assigned(fn, s)
	leaves := escapes(s)
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		for _, x := range cc.List {
			fi.calls(fn, x)
			st := fi.site(KindCond, fn, x, types.Typ[types.Bool])
			st.Stmt, st.AssignedInside, st.Escapes = s, assigned, leaves
			if tag == nil {
				fi.model(fn, x, true)
				fi.wrap(x, st.Id, types.Typ[types.Bool])
				continue
			}
			st.Tag = tag
			st.Text = tag.Text + " == " + st.Text
			fi.model(fn, x, false)
			fi.surround(x, fmt.Sprintf("%s%d, %d, ", fi.call("Case", typeName), st.Id, tag.Id), ")")
		}
		fi.stmtList(fn, cc.Body)
	}
	fi.join(fn, s, label, inList)
}

// tagTypeName returns the spelling of the tag's type when a tagged switch
// is modelled, "" when it is left as executed.
func (fi *fileInstrumenter) tagTypeName(s *ast.SwitchStmt) string {
	t := fi.info.TypeOf(s.Tag)
	if fi.info.Types[s.Tag].Value != nil || ValueKind(t) != 'i' {
		return ""
	}
	for _, c := range s.Body.List {
		for _, x := range c.(*ast.CaseClause).List {
			if !pure(fi.info, x) || !types.Identical(fi.info.TypeOf(x), t) && !IsUntypedNumber(fi.info.TypeOf(x)) {
				return ""
			}
		}
	}
	return fi.spell(t, s.Tag.Pos())
}

// join marks where control leaves an if, for or switch statement (labelled
// label, "" for none), unless nothing may follow it there.
func (fi *fileInstrumenter) join(fn *Function, s ast.Stmt, label string, inList bool) {
	if !inList || terminatingAs(s, label) {
		return
	}
	st := fi.site(KindJoin, fn, nil, nil)
	st.Stmt = s
	fi.insert(s.End(), fmt.Sprintf("; %s.Mark(%d)", fi.prog.rt, st.Id))
}

// assigned lists the tracked locals a statement may assign.
func (fi *fileInstrumenter) assigned(fn *Function, s ast.Stmt) []*types.Var {
	seen := map[*types.Var]bool{}
	var out []*types.Var
	add := func(e ast.Expr) {
		if ix, ok := ast.Unparen(e).(*ast.IndexExpr); ok {
			e = ix.X // b[i] = v changes the byte slice or list b
		}
		if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
			e = sel.X // r.f = v changes the record r
		}
		if v := fi.localVar(fn, e); v != nil && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				add(l)
			}
		case *ast.IncDecStmt:
			add(n.X)
		}
		return true
	})
	return out
}

// defers reports whether a function body defers a call (not counting
// function literals inside it, which are functions of their own).
func defers(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			found = true
		}
		return !found
	})
	return found
}

// escapes reports whether control may leave s other than at its end.
func escapes(s ast.Stmt) bool {
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		case *ast.BranchStmt:
			if n.Tok == token.GOTO || n.Label != nil {
				found = true
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "panic" {
				found = true
			}
		}
		return !found
	})
	return found
}

// terminating approximates the spec's terminating statements: no statement
// may follow one at the end of a function.
func terminating(s ast.Stmt) bool { return terminatingAs(s, "") }

// terminatingAs is the spec's terminating statement, for s labelled label
// ("" when it has none): control never flows past it, so the compiler
// rejects a statement placed after it at the end of a function.
func terminatingAs(s ast.Stmt, label string) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.GOTO
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	case *ast.BlockStmt:
		return len(s.List) > 0 && terminating(s.List[len(s.List)-1])
	case *ast.IfStmt:
		return s.Else != nil && terminating(s.Body) && terminating(s.Else)
	case *ast.ForStmt:
		return s.Cond == nil && !breaksOut(s.Body, label)
	case *ast.LabeledStmt:
		return terminatingAs(s.Stmt, s.Label.Name)
	case *ast.SwitchStmt:
		return clausesTerminate(s.Body, true) && !breaksOut(s.Body, label)
	case *ast.TypeSwitchStmt:
		return clausesTerminate(s.Body, true) && !breaksOut(s.Body, label)
	case *ast.SelectStmt:
		return clausesTerminate(s.Body, false) && !breaksOut(s.Body, label)
	}
	return false
}

// clausesTerminate reports whether every clause of a switch or select ends
// in a terminating statement (or, in a switch, a fallthrough) and, for a
// switch, whether one of them is the default.
func clausesTerminate(body *ast.BlockStmt, needDefault bool) bool {
	hasDefault := false
	for _, c := range body.List {
		var list []ast.Stmt
		switch c := c.(type) {
		case *ast.CaseClause:
			list = c.Body
			hasDefault = hasDefault || c.List == nil
		case *ast.CommClause:
			list = c.Body
		}
		if len(list) == 0 {
			return false
		}
		last := list[len(list)-1]
		if b, ok := last.(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
			continue
		}
		if !terminating(last) {
			return false
		}
	}
	return hasDefault || !needDefault
}

// breaksOut reports whether body holds a break that leaves the statement it
// belongs to: an unlabelled one outside any nested for, switch or select,
// or one naming label.
func breaksOut(body *ast.BlockStmt, label string) bool {
	found := false
	var stack []ast.Node
	nested := 0
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			switch stack[len(stack)-1].(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				nested--
			}
			stack = stack[:len(stack)-1]
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok || found {
			return false
		}
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.BREAK {
			if (b.Label == nil && nested == 0) || (b.Label != nil && b.Label.Name == label && label != "") {
				found = true
			}
		}
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			nested++
		}
		stack = append(stack, n)
		return true
	})
	return found
}

// reportsFailure reports whether a branch calls t.Error, t.Fatal, t.Fail
// or their variants on a testing type.
func (fi *fileInstrumenter) reportsFailure(s ast.Stmt) bool {
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !found
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		switch sel.Sel.Name {
		case "Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow":
		default:
			return true
		}
		if fn, ok := fi.info.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "testing" {
			found = true
		}
		return !found
	})
	return found
}

// calls instruments the arguments of calls to instrumented functions in e
// and the function literals in it.
func (fi *fileInstrumenter) calls(fn *Function, e ast.Node) {
	if e == nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && fi.info.Types[x].Value != nil {
			return false // a constant (len of an array among them) evaluates nothing
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			fi.funcLit(n)
			return false
		case *ast.IndexExpr, *ast.SliceExpr:
			fi.guard(fn, n.(ast.Expr))
		case *ast.StarExpr, *ast.SelectorExpr:
			fi.nilGuard(fn, n.(ast.Expr))
		case *ast.BinaryExpr:
			if n.Op == token.QUO || n.Op == token.REM {
				fi.divGuard(fn, n.Y)
			}
		case *ast.CallExpr:
			fi.panicGuard(fn, n)
			callee := fi.prog.Callee(fi.info, n)
			if callee == nil {
				return true
			}
			fi.result(fn, n, callee)
			if n.Ellipsis.IsValid() {
				return true
			}
			sig, ok := fi.info.TypeOf(n.Fun).(*types.Signature)
			if !ok {
				return true
			}
			if inner := fi.tupleCall(n.Args, sig.Params().Len()); inner != nil && !sig.Variadic() {
				comps := map[int]*Site{}
				for i := 0; i < sig.Params().Len(); i++ {
					if t := sig.Params().At(i).Type(); ValueKind(t) != 0 {
						st := fi.site(KindArg, fn, inner, t)
						st.Index, st.Target, st.Tuple = i, callee, true
						st.Text += fmt.Sprintf(" (result %d)", i+1)
						comps[i] = st
					}
				}
				fi.tuple(fn, inner, comps)
				return true
			}
			for i, a := range n.Args {
				if _, multi := fi.info.TypeOf(a).(*types.Tuple); multi {
					break // g(h()) with h not instrumented: its results enter as parameters
				}
				if i >= sig.Params().Len() || (sig.Variadic() && i >= sig.Params().Len()-1) {
					break
				}
				t := sig.Params().At(i).Type()
				if ValueKind(t) == 0 {
					continue
				}
				st := fi.site(KindArg, fn, a, t)
				st.Index, st.Target = i, callee
				fi.model(fn, a, true)
				fi.wrap(a, st.Id, t)
			}
		}
		return true
	})
}

// tupleCall returns the call of list when it is its only expression and
// calls an instrumented function with n > 1 results, nil otherwise.
func (fi *fileInstrumenter) tupleCall(list []ast.Expr, n int) *ast.CallExpr {
	if len(list) != 1 || n < 2 {
		return nil
	}
	call, ok := ast.Unparen(list[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if callee := fi.prog.Callee(fi.info, call); callee == nil || len(callee.Results) != n {
		return nil
	}
	return call
}

// tupleAssign gives each integer, float or Boolean result of call assigned
// to a non-blank operand of lhs a site of its own, the locals changing
// together after the last one as in a multi-assignment.
func (fi *fileInstrumenter) tupleAssign(fn *Function, call *ast.CallExpr, lhs []ast.Expr, tok token.Token) {
	results, ok := fi.info.TypeOf(call).(*types.Tuple)
	if !ok {
		bug.Reportf("a call of one result assigned as a tuple: %s", fi.info.TypeOf(call))
		return
	}
	comps := map[int]*Site{}
	var last *Site
	for i, l := range lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name == "_" {
			continue
		}
		t := results.At(i).Type()
		if ValueKind(t) == 0 || ValueKind(fi.info.TypeOf(l)) == 0 {
			continue
		}
		st := fi.site(KindAssign, fn, l, t)
		st.Expr, st.Index, st.Tuple = call, i, true
		st.Obj, st.Op = fi.localVar(fn, l), tok
		st.Parallel = true
		comps[i] = st
		last = st
	}
	if last != nil {
		last.Last = true
	}
	fi.tuple(fn, call, comps)
}

// tuple passes a call with several results through a helper declared at
// the end of the file: it records that the call returned (a kindResult
// site, binding the callee's results to the call) and then each result
// with a site in comps, by index, so that a forced value replaces it. The
// helper is generic, so the results' types need not be spelled here.
func (fi *fileInstrumenter) tuple(fn *Function, call *ast.CallExpr, comps map[int]*Site) {
	if len(comps) == 0 || fi.prog.resultOf[call] {
		return
	}
	fi.prog.resultOf[call] = true
	results, ok := fi.info.TypeOf(call).(*types.Tuple)
	if !ok {
		bug.Reportf("a call of one result passed as a tuple: %s", fi.info.TypeOf(call))
		return
	}
	rs := fi.site(KindResult, fn, call, nil)
	var params, args, resultTypes, rets []string
	for i := 0; i < results.Len(); i++ {
		constraint := "interface{}"
		ret := fmt.Sprintf("v%d", i)
		if st := comps[i]; st != nil {
			constraint = fi.prog.rt + "." + recorderConstraint[recorder(results.At(i).Type())]
			ret = fmt.Sprintf("%s.%s(%d, v%d)", fi.prog.rt, recorder(results.At(i).Type()), st.Id, i)
		}
		params = append(params, fmt.Sprintf("T%d %s", i, constraint))
		args = append(args, fmt.Sprintf("v%d T%d", i, i))
		resultTypes = append(resultTypes, fmt.Sprintf("T%d", i))
		rets = append(rets, ret)
	}
	name := fmt.Sprintf("%s%d", fi.prog.tuple, rs.Id)
	fi.add(testbuild.Edit{Off: len(fi.src), Text: fmt.Sprintf("\n\nfunc %s[%s](%s) (%s) {\n\t%s.Mark(%d)\n\treturn %s\n}\n",
		name, strings.Join(params, ", "), strings.Join(args, ", "), strings.Join(resultTypes, ", "), fi.prog.rt, rs.Id, strings.Join(rets, ", "))})
	fi.surround(call, name+"(", ")")
}

// result wraps a call to an instrumented function with a single integer,
// float or Boolean result in a kindResult site, innermost, so that the
// replay binds what the callee returned to this call and no other.
func (fi *fileInstrumenter) result(fn *Function, call *ast.CallExpr, callee *Function) {
	if len(callee.Results) != 1 || ValueKind(callee.Results[0]) == 0 || fi.prog.resultOf[call] {
		return
	}
	fi.prog.resultOf[call] = true
	t := fi.info.TypeOf(call)
	st := fi.site(KindResult, fn, call, t)
	// Inside any other wrapping of the call (a site's own, spanning the
	// same text), and outside its operands, which end before its ")".
	span := fi.off(call.End()) - fi.off(call.Pos())
	fi.add(testbuild.Edit{Off: fi.off(call.Pos()), Text: fi.call(recorder(t), fi.spell(t, call.Pos())) + strconv.Itoa(int(st.Id)) + ", ", Span: span - 1})
	fi.add(testbuild.Edit{Off: fi.off(call.End()), Text: ")", Close: true, Span: span})
}

func (fi *fileInstrumenter) funcLit(lit *ast.FuncLit) {
	fn := fi.prog.declare(lit.Pos(), "func literal", fi.hard, nil)
	if sig, ok := fi.info.TypeOf(lit).(*types.Signature); ok {
		for i := 0; i < sig.Results().Len(); i++ {
			fn.Results = append(fn.Results, sig.Results().At(i).Type())
		}
	}
	fi.function(fn, nil, lit.Type, lit.Body)
}

// model wraps the operands of e that the formula does not model, so that
// their values are recorded. The root of a site needs no wrapping: the site
// records its value.
func (fi *fileInstrumenter) model(fn *Function, e ast.Expr, root bool) {
	if fi.info.Types[e].Value != nil {
		return
	}
	if Modelled(fi.prog, fi.info, fn, e) {
		switch e := e.(type) {
		case *ast.ParenExpr:
			fi.model(fn, e.X, root)
		case *ast.BinaryExpr:
			if x, y, ok := fi.prog.DiffOperands(fi.info, e); ok {
				fi.model(fn, x, false)
				fi.model(fn, y, false)
				break
			}
			fi.model(fn, e.X, false)
			fi.model(fn, e.Y, false)
		case *ast.UnaryExpr:
			fi.model(fn, e.X, false)
		case *ast.CompositeLit:
			for _, el := range e.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				fi.model(fn, el, false)
			}
		case *ast.SelectorExpr:
			fi.model(fn, e.X, false)
		case *ast.IndexExpr:
			fi.model(fn, e.X, false)
			fi.model(fn, e.Index, false)
		case *ast.SliceExpr:
			fi.model(fn, e.X, false)
			for _, b := range []ast.Expr{e.Low, e.High} {
				if b != nil {
					fi.model(fn, b, false)
				}
			}
		case *ast.CallExpr:
			if fi.prog.Callee(fi.info, e) == nil && !IsErrorCtor(fi.info, e) {
				for _, a := range e.Args {
					fi.model(fn, a, false)
				}
			}
		}
		return
	}
	if root {
		return
	}
	t := fi.info.TypeOf(e)
	if ValueKind(t) == 0 {
		return
	}
	if _, done := fi.prog.LeafOf[e]; done {
		return // a guard recorded it already
	}
	st := fi.site(KindLeaf, fn, e, t)
	fi.prog.LeafOf[e] = st.Id
	fi.wrap(e, st.Id, t)
}

func IsConversion(info *types.Info, call *ast.CallExpr) bool {
	return len(call.Args) == 1 && info.Types[call.Fun].IsType()
}

// modelled reports whether the formula builds e from its operands.
func Modelled(p *Program, info *types.Info, fn *Function, e ast.Expr) bool {
	if info.Types[e].Value != nil {
		return ValueKind(info.TypeOf(e)) != 0 || IsUntypedNumber(info.TypeOf(e))
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return Modelled(p, info, fn, e.X) || ValueKind(info.TypeOf(e)) != 0
	case *ast.Ident:
		if IsNil(info, e) {
			return true
		}
		v, ok := info.ObjectOf(e).(*types.Var)
		return ok && fn.Tracked[v]
	case *ast.BinaryExpr:
		if _, _, ok := p.DiffOperands(info, e); ok {
			return true
		}
		if ValueKind(info.TypeOf(e.X)) == 'e' || ValueKind(info.TypeOf(e.Y)) == 'e' {
			// A comparison with nil, or with a sentinel (errors_is.go):
			// other errors compare by identity.
			return IsNil(info, e.X) || IsNil(info, e.Y) || p.sentinelComparison(info, e)
		}
		return ValueKind(info.TypeOf(e.X)) != 0 && ValueKind(info.TypeOf(e.Y)) != 0 || IsUntypedNumber(info.TypeOf(e.Y)) && ValueKind(info.TypeOf(e.X)) != 0
	case *ast.UnaryExpr:
		switch e.Op {
		case token.SUB, token.ADD, token.XOR, token.NOT:
			return ValueKind(info.TypeOf(e.X)) != 0
		}
	case *ast.IndexExpr:
		return (IsSeq(info.TypeOf(e.X)) || listOperand(info, fn, e.X) || mapOperand(info, fn, e.X)) && isIndex(info.TypeOf(e.Index))
	case *ast.CompositeLit:
		return listLitModelled(info, e) || recordLitModelled(info, e)
	case *ast.SelectorExpr:
		return fieldRead(info, fn, e)
	case *ast.SliceExpr:
		if !(IsSeq(info.TypeOf(e.X)) || listOperand(info, fn, e.X)) || e.Slice3 {
			return false
		}
		return (e.Low == nil || isIndex(info.TypeOf(e.Low))) && (e.High == nil || isIndex(info.TypeOf(e.High)))
	case *ast.CallExpr:
		if IsConversion(info, e) {
			from, to := info.TypeOf(e.Args[0]), info.TypeOf(e)
			return numeric(to) && numeric(from) || IsSeq(to) && IsSeq(from) || ValueKind(to) == 's' && ValueKind(from) == 'i'
		}
		if IsEqualCall(info, e) || IsMathAbs(info, e) || IsErrorCtor(info, e) {
			return true
		}
		if _, ok := p.ErrorsIsTarget(info, e); ok {
			return true
		}
		if _, ok := BuiltinLen(info, e); ok {
			return true
		}
		if listCallModelled(info, fn, e) {
			return true
		}
		if _, _, ok := SeqFuncOf(info, e); ok {
			return true
		}
		callee := p.Callee(info, e)
		return callee != nil && len(callee.Results) == 1 && ValueKind(callee.Results[0]) != 0
	}
	return false
}

// isIndex reports whether t is an integer type or an untyped integer
// constant's, as an index or slice bound is.
func isIndex(t types.Type) bool { return ValueKind(t) == 'i' || IsUntypedNumber(t) }

// numeric reports whether t is an integer or float type the formula models.
func numeric(t types.Type) bool {
	k := ValueKind(t)
	return k == 'i' || k == 'f'
}

// isMathAbs recognises math.Abs(x), modelled as IEEE abs (both clear the
// sign bit, NaN stays NaN).
func IsMathAbs(info *types.Info, call *ast.CallExpr) bool {
	fn := calledFunc(info, call)
	return fn != nil && len(call.Args) == 1 && fn.Pkg().Path() == "math" && fn.Name() == "Abs"
}

func IsUntypedNumber(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0 && b.Info()&types.IsInteger != 0
}

// guard instruments an index or slice expression of non-test code so that
// the run records it when it is about to panic: the bound operands are
// passed through a runtime check that reads len or cap of the indexed
// operand. That operand (and, for slices, the earlier bounds) is evaluated
// twice, so only expressions without calls or receives are guarded.
func (fi *fileInstrumenter) guard(fn *Function, e ast.Expr) {
	if fi.hard || fi.info.Types[e].Value != nil {
		return
	}
	var x ast.Expr
	switch e := e.(type) {
	case *ast.IndexExpr:
		x = e.X
	case *ast.SliceExpr:
		x = e.X
	}
	t := fi.info.TypeOf(x)
	if t == nil || fi.info.Types[x].IsType() || !pure(fi.info, x) {
		return
	}
	// The length and capacity are read through the runtime (or are
	// constants), never through len and cap, which the code may shadow.
	str := false
	xs := fi.text(x)
	var length, capacity string
	switch u := t.Underlying().(type) {
	case *types.Slice:
		length, capacity = fi.prog.rt+".Len("+xs+")", fi.prog.rt+".Cap("+xs+")"
	case *types.Array:
		length = strconv.FormatInt(u.Len(), 10)
		capacity = length
	case *types.Pointer:
		a, ok := u.Elem().Underlying().(*types.Array)
		if !ok {
			return
		}
		length = strconv.FormatInt(a.Len(), 10)
		capacity = length
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return
		}
		str = true
		length = fi.prog.rt + ".LenString(" + xs + ")"
	default:
		return // maps, type parameters, generic instantiations
	}
	if _, err := strconv.Atoi(length); err != nil && fi.indexes(x) {
		limit := func(s string) string { return fi.prog.rt + ".Limit(func() int { return " + s + " })" }
		length, capacity = limit(length), limit(capacity)
	}
	switch e := e.(type) {
	case *ast.IndexExpr:
		if ValueKind(fi.info.TypeOf(e.Index)) != 'i' && !IsUntypedNumber(fi.info.TypeOf(e.Index)) {
			return
		}
		if _, array := t.Underlying().(*types.Array); array && fi.info.Types[e.Index].Value != nil {
			return // checked by the compiler
		}
		typ, ok := fi.typeArg(e.Index, fi.info.TypeOf(e.Index))
		if !ok {
			return
		}
		st := fi.site(KindGuard, fn, e, fi.info.TypeOf(e.Index))
		st.Guard, st.Bounds = GuardIndex, []ast.Expr{e.Index}
		if IsSeq(t) {
			st.Indexed = x
		}
		fi.model(fn, e.Index, true)
		fi.surround(e.Index, fmt.Sprintf("%s%d, ", fi.call("Index", typ), st.Id), ", "+length+")")
	case *ast.SliceExpr:
		bounds := []ast.Expr{e.Low, e.High}
		if e.Slice3 {
			bounds = append(bounds, e.Max)
		}
		var present []ast.Expr
		for _, b := range bounds {
			if b != nil {
				present = append(present, b)
			}
		}
		if len(present) == 0 {
			return
		}
		for _, b := range present {
			if !pure(fi.info, b) || (ValueKind(fi.info.TypeOf(b)) != 'i' && !IsUntypedNumber(fi.info.TypeOf(b))) {
				return
			}
		}
		last := present[len(present)-1]
		earlier := []string{"0", "0"}
		int64Of := func(b ast.Expr) string { return fi.prog.rt + ".Int64(" + fi.text(b) + ")" }
		if e.Low != nil && last != e.Low {
			earlier[0], earlier[1] = int64Of(e.Low), int64Of(e.Low)
		}
		if e.Slice3 {
			earlier[1] = int64Of(e.High)
		}
		limit := capacity
		if str || e.High == nil {
			limit = length
		}
		typ, ok := fi.typeArg(last, fi.info.TypeOf(last))
		if !ok {
			return
		}
		st := fi.site(KindGuard, fn, e, fi.info.TypeOf(last))
		st.Guard, st.Bounds = GuardSlice, bounds
		if IsSeq(t) && (str || e.High == nil) {
			st.Indexed = x
		}
		for _, b := range present {
			fi.model(fn, b, true)
		}
		fi.surround(last, fmt.Sprintf("%s%d, ", fi.call("Slice", typ), st.Id), fmt.Sprintf(", %s, %s, %s)", earlier[0], earlier[1], limit))
	}
}

// indexes reports whether x indexes or slices a string, slice or array:
// a value site may replace that index in a forced run, which a second
// reading of x would not see.
func (fi *fileInstrumenter) indexes(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			found = found || fi.indexable(n.X)
		case *ast.SliceExpr:
			found = found || fi.indexable(n.X)
		}
		return !found
	})
	return found
}

// divGuard instruments an integer divisor of non-test code so that the run
// records it when it is zero.
func (fi *fileInstrumenter) divGuard(fn *Function, y ast.Expr) {
	if fi.hard || fi.info.Types[y].Value != nil || ValueKind(fi.info.TypeOf(y)) != 'i' {
		return
	}
	typ, ok := fi.typeArg(y, fi.info.TypeOf(y))
	if !ok {
		return
	}
	st := fi.site(KindGuard, fn, y, fi.info.TypeOf(y))
	st.Guard, st.Bounds = GuardDiv, []ast.Expr{y}
	fi.model(fn, y, true)
	fi.surround(y, fmt.Sprintf("%s%d, ", fi.call("Div", typ), st.Id), ")")
}

// surround puts text around e, outside any wrapping of e itself.
func (fi *fileInstrumenter) surround(e ast.Expr, open, close string) {
	span := fi.off(e.End()) - fi.off(e.Pos())
	fi.add(testbuild.Edit{Off: fi.off(e.Pos()), Text: open, Span: span + 1})
	fi.add(testbuild.Edit{Off: fi.off(e.End()), Text: close, Close: true, Span: span + 2})
}

func (fi *fileInstrumenter) text(e ast.Expr) string {
	return string(fi.src[fi.off(e.Pos()):fi.off(e.End())])
}

// pure reports whether evaluating e twice is harmless: no calls other than
// conversions and len or cap, no receives, no function literals.
func pure(info *types.Info, e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			ok = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.CallExpr:
			if IsConversion(info, n) {
				break
			}
			if id, isID := ast.Unparen(n.Fun).(*ast.Ident); isID {
				if b, builtin := info.Uses[id].(*types.Builtin); builtin && (b.Name() == "len" || b.Name() == "cap") {
					break
				}
			}
			ok = false
		}
		return ok
	})
	return ok
}
