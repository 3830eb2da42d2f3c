package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// This file models the identity of errors with sentinels: package-level
// variables of type error (those the module declares, and those of other
// packages its code or tests name as the target of errors.Is, testify's
// ErrorIs and NotErrorIs or quicktest's ErrorIs). Each gets a code from 2 up; the runtime records
// an error as 0 when nil, as the least code of a sentinel errors.Is
// matches, else 1, and a forced code of a sentinel is that sentinel. The
// formula's error is that code, so nil-ness is code != 0 and errors.Is(x,
// S) is code(x) == code(S). An error matching several sentinels has the
// least one's code: the check whose recorded value the formula then
// contradicts falls back to the run's value, as any site does.

// sentinelTable numbers a program's sentinels.
type sentinelTable struct {
	Codes map[string]int64     // by package path and name
	vars  map[int64]*types.Var // by code, for display
}

// sentinelKey is the key of a package-level error variable, or "" when obj
// is not one. The key is the same in every variant of a package (its test
// variant type-checks it again).
func sentinelKey(obj types.Object) string {
	v, ok := obj.(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() || !isErrorType(v.Type()) {
		return ""
	}
	return v.Pkg().Path() + "." + v.Name()
}

// sentinelCode returns the code of the sentinel obj, 0 when it has none.
func (p *Program) sentinelCode(obj types.Object) int64 {
	if p.Sentinels == nil {
		return 0
	}
	return p.Sentinels.Codes[sentinelKey(obj)]
}

// sentinelName returns how a code is written in package from: the
// sentinel's name, qualified by its package's name outside it; "" for
// none.
func (p *Program) sentinelName(code int64, from *types.Package) string {
	if p.Sentinels == nil || p.Sentinels.vars[code] == nil {
		return ""
	}
	v := p.Sentinels.vars[code]
	if from != nil && from.Path() == v.Pkg().Path() {
		return v.Name()
	}
	return v.Pkg().Name() + "." + v.Name()
}

// addSentinel numbers obj if it is not numbered yet.
func (p *Program) addSentinel(obj types.Object) int64 {
	key := sentinelKey(obj)
	if key == "" {
		return 0
	}
	if p.Sentinels == nil {
		p.Sentinels = &sentinelTable{Codes: map[string]int64{}, vars: map[int64]*types.Var{}}
	}
	if c, ok := p.Sentinels.Codes[key]; ok {
		return c
	}
	c := int64(len(p.Sentinels.Codes) + 2)
	p.Sentinels.Codes[key] = c
	p.Sentinels.vars[c], _ = obj.(*types.Var) // sentinelKey("") holds only variables
	return c
}

// errorBits is the width of an error's code in the formula.
const ErrorBits = 16

// targetObject resolves the target of errors.Is or ErrorIs as written: a
// package-level variable named by an identifier or a qualified one.
func targetObject(info *types.Info, x ast.Expr) types.Object {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return info.Uses[x]
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if _, pkg := info.Uses[id].(*types.PkgName); pkg {
				return info.Uses[x.Sel]
			}
		}
	}
	return nil
}

// errorsIsTarget reports whether call is errors.Is(x, S) with S a numbered
// sentinel, and returns S's code.
func (p *Program) ErrorsIsTarget(info *types.Info, call *ast.CallExpr) (int64, bool) {
	fn := calledFunc(info, call)
	if fn == nil || fn.Pkg().Path() != "errors" || fn.Name() != "Is" || len(call.Args) != 2 {
		return 0, false
	}
	obj := targetObject(info, call.Args[1])
	if obj == nil {
		return 0, false
	}
	c := p.sentinelCode(obj)
	return c, c != 0
}

// declareSentinels numbers the package-level error variables file f
// declares, before any file is instrumented, so that every file knows the
// codes of its package's sentinels.
func (p *Program) declareSentinels(f *ast.File, info *types.Info) {
	forSentinels(f, info, func(name *ast.Ident) { p.addSentinel(info.Defs[name]) })
}

// forSentinels calls do with the name of each package-level error
// variable f declares.
func forSentinels(f *ast.File, info *types.Info, do func(*ast.Ident)) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			if vs, ok := spec.(*ast.ValueSpec); ok {
				for _, name := range vs.Names {
					if name.Name != "_" && sentinelKey(info.Defs[name]) != "" {
						do(name)
					}
				}
			}
		}
	}
}

// sentinelComparison reports whether cmp compares two errors with == or
// != and one of them names a numbered sentinel: the codes are compared.
// An error wrapping the sentinel has its code too, so for such an error
// the formula disagrees with the run and the check takes the run's value;
// a forced code is the sentinel itself, for which == holds.
func (p *Program) sentinelComparison(info *types.Info, cmp *ast.BinaryExpr) bool {
	if cmp.Op != token.EQL && cmp.Op != token.NEQ || ValueKind(info.TypeOf(cmp.X)) != 'e' || ValueKind(info.TypeOf(cmp.Y)) != 'e' {
		return false
	}
	for _, x := range []ast.Expr{cmp.X, cmp.Y} {
		if obj := targetObject(info, x); obj != nil && p.sentinelCode(obj) != 0 {
			return true
		}
	}
	return false
}

// registerSentinels numbers the sentinels file f declares or names as a
// target, and registers each with the runtime from this file (the
// runtime reads the variable when it records an error, so the order of
// package initialisation does not matter).
func (fi *fileInstrumenter) registerSentinels(f *ast.File) {
	type reg struct {
		code int64
		expr string
	}
	var regs []reg
	seen := map[int64]bool{}
	add := func(obj types.Object, expr string) {
		if c := fi.prog.addSentinel(obj); c != 0 && !seen[c] {
			seen[c] = true
			regs = append(regs, reg{c, expr})
		}
	}
	forSentinels(f, fi.info, func(name *ast.Ident) { add(fi.info.Defs[name], name.Name) })
	ast.Inspect(f, func(n ast.Node) bool {
		var target ast.Expr
		if cmp, ok := n.(*ast.BinaryExpr); ok && (cmp.Op == token.EQL || cmp.Op == token.NEQ) &&
			ValueKind(fi.info.TypeOf(cmp.X)) == 'e' && ValueKind(fi.info.TypeOf(cmp.Y)) == 'e' {
			for _, x := range []ast.Expr{cmp.X, cmp.Y} {
				if obj := targetObject(fi.info, x); obj != nil && obj.Pkg() != fi.pkg && sentinelKey(obj) != "" && !strings.Contains(fi.text(x), "\n") {
					add(obj, fi.text(x))
				}
			}
			return true
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if fn := calledFunc(fi.info, call); fn != nil && fn.Pkg().Path() == "errors" && fn.Name() == "Is" && len(call.Args) == 2 {
			target = call.Args[1]
		} else if c, ops, ok := assertionCall(fi.info, call); ok && c.Kind == "ErrorIs" {
			target = ops[1]
		}
		if target == nil {
			return true
		}
		obj := targetObject(fi.info, target)
		if obj == nil || obj.Pkg() == fi.pkg {
			return true // this package's are registered where declared
		}
		text := fi.text(target)
		if strings.Contains(text, "\n") {
			return true
		}
		add(obj, text)
		return true
	})
	if len(regs) == 0 {
		return
	}
	sort.Slice(regs, func(i, j int) bool { return regs[i].code < regs[j].code })
	var b strings.Builder
	for _, r := range regs {
		fmt.Fprintf(&b, "\n\nvar _ = %s.Sentinel(%d, &%s)", fi.prog.rt, r.code, r.expr)
	}
	b.WriteString("\n")
	fi.add(testbuild.Edit{Off: len(fi.src), Text: b.String()})
}

// render shows a value of type t at site s, an error by the sentinel its
// code names as s's package writes it.
func (p *Program) Render(s *Site, v Value) string {
	if ValueKind(s.Typ) == 'e' && v.N >= 2 {
		if name := p.sentinelName(v.N, s.Pkg); name != "" {
			return name
		}
	}
	return RenderValue(s.Typ, v)
}
