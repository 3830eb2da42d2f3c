package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"

	"github.com/faultline-go/faultline/bench/internal/mutation"
)

// The constructs a faulty line is classified into, in the order the
// breakdown lists them. A swapped && or || is a Boolean condition;
// otherwise the data the faulty expression touches decides, the first that
// applies in the order of classifyPath, not the statement kind.
var constructs = []string{
	"integer arithmetic/comparison", "float", "Boolean condition", "string", "slice/array",
	"struct field", "map", "error", "call", "other",
}

// Construct names, as in constructs.
const (
	constructInt    = "integer arithmetic/comparison"
	constructFloat  = "float"
	constructBool   = "Boolean condition"
	constructString = "string"
	constructSlice  = "slice/array"
	constructField  = "struct field"
	constructMap    = "map"
	constructError  = "error"
	constructCall   = "call"
	constructOther  = "other"
)

// classifier classifies faults of one module from its type-checked syntax.
type classifier struct {
	fset  *token.FileSet
	files map[string]classifiedFile // by module-relative slash path
}

type classifiedFile struct {
	file *ast.File
	info *types.Info
	tf   *token.File
}

// newClassifier type-checks the non-test files of the module at root.
func newClassifier(root string) (*classifier, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  root,
		Env:  append(os.Environ(), "GOFLAGS=-mod=mod"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("loading %s for classifying faults: %w", root, err)
	}
	c := &classifier{files: map[string]classifiedFile{}}
	for _, p := range pkgs {
		c.fset = p.Fset
		for _, f := range p.Syntax {
			tf := p.Fset.File(f.Pos())
			rel, err := filepath.Rel(root, tf.Name())
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			c.files[filepath.ToSlash(rel)] = classifiedFile{file: f, info: p.TypesInfo, tf: tf}
		}
	}
	return c, nil
}

// classify names the construct of a fault: a seeded mutation's token (site
// set) or, for a known fault, the statement that begins on its line.
func (c *classifier) classify(site *mutation.Site, fault Fault) string {
	cf, ok := c.files[fault.File]
	if !ok || cf.info == nil {
		return constructOther
	}
	var path []ast.Node
	if site != nil && (site.Old == "&&" || site.Old == "||") {
		return constructBool // the logic is the fault, whatever it joins
	}
	if site != nil {
		if site.Offset < 0 || site.Offset+len(site.Old) > cf.tf.Size() {
			return constructOther
		}
		start := cf.tf.Pos(site.Offset)
		path, _ = astutil.PathEnclosingInterval(cf.file, start, start+token.Pos(len(site.Old)))
	} else if len(fault.Lines) > 0 {
		path = stmtAtLine(cf.file, cf.tf, fault.Lines[0])
	}
	if len(path) == 0 {
		return constructOther
	}
	return classifyPath(cf.info, path)
}

// stmtAtLine is the path to the outermost statement beginning on line
// (innermost first), or nil.
func stmtAtLine(f *ast.File, tf *token.File, line int) []ast.Node {
	var found ast.Stmt
	ast.Inspect(f, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if s, ok := n.(ast.Stmt); ok && tf.Line(s.Pos()) == line {
			if _, block := s.(*ast.BlockStmt); !block {
				found = s
				return false
			}
		}
		return true
	})
	if found == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(f, found.Pos(), found.End())
	return path
}

// classifyPath classifies the node path[0] (a mutated token's innermost
// node, or a statement) in its context.
func classifyPath(info *types.Info, path []ast.Node) string {
	// A mutated operand or operator: the whole expression built around it
	// by operators, and what it feeds (an index, a call, an assignment).
	i := 0
	if _, ok := path[0].(ast.Expr); ok {
		// Up through arithmetic and comparisons, not through && || !:
		// a comparison's operands are the data a Boolean chain only joins.
		for i+1 < len(path) {
			switch p := path[i+1].(type) {
			case *ast.BinaryExpr:
				if p.Op != token.LAND && p.Op != token.LOR {
					i++
					continue
				}
			case *ast.UnaryExpr:
				if p.Op != token.NOT {
					i++
					continue
				}
			case *ast.ParenExpr:
				i++
				continue
			}
			break
		}
	}
	var nodes []ast.Node
	switch n := path[i].(type) {
	case *ast.IfStmt:
		nodes = []ast.Node{n.Init, n.Cond}
	case *ast.ForStmt:
		nodes = []ast.Node{n.Init, n.Cond, n.Post}
	case *ast.SwitchStmt:
		nodes = []ast.Node{n.Init, n.Tag}
	case *ast.RangeStmt:
		nodes = []ast.Node{n.Key, n.Value, n.X}
	default:
		nodes = []ast.Node{n}
	}
	if i+1 < len(path) {
		switch p := path[i+1].(type) {
		case *ast.IndexExpr:
			nodes = append(nodes, p) // the container it indexes
		case *ast.SliceExpr:
			nodes = append(nodes, p.X)
		case *ast.CallExpr:
			nodes = append(nodes, p.Fun)
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				nodes = append(nodes, l)
			}
		case *ast.IncDecStmt:
			nodes = append(nodes, p.X)
		}
	}
	has := map[string]bool{}
	mark := func(name string) { has[name] = true }
	if i+1 < len(path) {
		if call, ok := path[i+1].(*ast.CallExpr); ok && !builtinOrConversion(info, call) {
			mark(constructCall) // the faulty expression is an argument
		}
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit, *ast.BlockStmt:
				return false
			case *ast.BinaryExpr:
				if n.Op == token.LAND || n.Op == token.LOR {
					mark(constructBool)
				}
			case *ast.UnaryExpr:
				if n.Op == token.NOT {
					mark(constructBool)
				}
			case *ast.SelectorExpr:
				if sel, ok := info.Selections[n]; ok && sel.Kind() == types.FieldVal {
					mark(constructField)
				}
			case *ast.CallExpr:
				if !builtinOrConversion(info, n) {
					mark(constructCall)
				}
			case *ast.IndexExpr:
				if _, ok := types.Unalias(info.TypeOf(n.X)).Underlying().(*types.Map); ok {
					// A map element: the map decides, not its key's type.
					mark(constructMap)
					return false
				}
			}
			if x, ok := n.(ast.Expr); ok {
				if t := info.TypeOf(x); t != nil {
					mark(typeConstruct(t))
				}
			}
			return true
		})
	}
	for _, name := range []string{constructError, constructString, constructMap, constructSlice, constructField,
		constructFloat, constructCall, constructBool, constructInt} {
		if has[name] {
			return name
		}
	}
	return constructOther
}

// builtinOrConversion reports whether call is a conversion or a call of a
// builtin (len, append...), whose operands decide its construct.
func builtinOrConversion(info *types.Info, call *ast.CallExpr) bool {
	tv, ok := info.Types[call.Fun]
	return ok && (tv.IsType() || tv.IsBuiltin())
}

// typeConstruct is the construct a value of type t belongs to, or "".
func typeConstruct(t types.Type) string {
	if types.Identical(t, types.Universe.Lookup("error").Type()) {
		return constructError
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return constructString
		case u.Info()&types.IsFloat != 0:
			return constructFloat
		case u.Info()&types.IsInteger != 0:
			return constructInt
		case u.Info()&types.IsBoolean != 0:
			return "" // every comparison has one: its operands decide
		}
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return constructString
		}
		return constructSlice
	case *types.Array:
		return constructSlice
	case *types.Map:
		return constructMap
	}
	return ""
}

// classifyFaults fills in the construct of each fault of one module whose
// sources are at root.
func classifyFaults(root string, faults []FaultResult) error {
	if len(faults) == 0 {
		return nil
	}
	c, err := newClassifier(root)
	if err != nil {
		return err
	}
	for i := range faults {
		faults[i].Construct = c.classify(faults[i].Site, faults[i].Fault)
	}
	return nil
}

// Classify classifies every fault of earlier results again, from each
// subject's sources (a module from the proxy is copied under work and its
// dependencies fetched; nothing is run): results of a harness that did not
// classify, or did by other rules, get the current ones.
func Classify(ctx context.Context, res *Results, work string) error {
	for _, s := range res.Subjects {
		var idx []int
		for i, f := range res.Faults {
			if f.Module == s.Module && s.Module != "" {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		spec := mutation.SubjectSpec{Dir: s.Spec}
		if !strings.HasPrefix(s.Spec, "/") && !strings.HasPrefix(s.Spec, ".") && strings.Contains(s.Spec, "@") {
			var err error
			if spec, err = mutation.ParseSubjectSpec(s.Spec); err != nil {
				return err
			}
		}
		root, err := mutation.ModuleSource(ctx, spec, work)
		if err != nil {
			return err
		}
		if spec.Dir == "" {
			copyRoot := filepath.Join(work, strings.NewReplacer("/", "_", "@", "_").Replace(spec.String()))
			if err := mutation.CopyTree(root, copyRoot); err != nil {
				return err
			}
			if err := mutation.FetchDependencies(ctx, copyRoot, spec.Module); err != nil {
				return err
			}
			root = copyRoot
		}
		faults := make([]FaultResult, len(idx))
		for k, i := range idx {
			faults[k] = res.Faults[i]
		}
		if err := classifyFaults(root, faults); err != nil {
			return err
		}
		for k, i := range idx {
			res.Faults[i].Construct = faults[k].Construct
		}
	}
	return nil
}
