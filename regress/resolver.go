package regress

import (
	"fmt"
	"go/ast"
	"go/token"
)

// resolver names a function's locals by the order they are declared in,
// following Go's scopes, so that a consistent renaming leaves the names
// unchanged. Names it does not bind (package-level, imported, fields,
// labels) keep their spelling.
type resolver struct {
	names  map[*ast.Ident]string
	scopes []map[string]string
	next   int
}

func (r *resolver) push() { r.scopes = append(r.scopes, map[string]string{}) }
func (r *resolver) pop()  { r.scopes = r.scopes[:len(r.scopes)-1] }

// declare binds a variable or constant to the next local's name.
func (r *resolver) declare(id *ast.Ident) {
	if id == nil || id.Name == "_" {
		return
	}
	name := fmt.Sprintf("local%d", r.next)
	r.next++
	r.scopes[len(r.scopes)-1][id.Name] = name
	r.names[id] = name
}

// declareSpelled binds a name that must keep its spelling (a local type,
// whose name the program can print) so that it still shadows.
func (r *resolver) declareSpelled(id *ast.Ident) {
	r.scopes[len(r.scopes)-1][id.Name] = ""
}

func (r *resolver) use(id *ast.Ident) {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if name, ok := r.scopes[i][id.Name]; ok {
			if name != "" {
				r.names[id] = name
			}
			return
		}
	}
}

func (r *resolver) funcDecl(fd *ast.FuncDecl) {
	r.funcType(fd.Recv, fd.Type, fd.Body)
}

// funcType binds the receiver, parameters and results, in the scope of
// the body's own declarations as in Go, then resolves the body.
func (r *resolver) funcType(recv *ast.FieldList, ft *ast.FuncType, body *ast.BlockStmt) {
	r.push()
	defer r.pop()
	r.fields(recv, true)
	if ft.TypeParams != nil {
		for _, f := range ft.TypeParams.List {
			for _, n := range f.Names {
				r.declareSpelled(n)
			}
		}
		r.fields(ft.TypeParams, false)
	}
	r.fields(ft.Params, true)
	r.fields(ft.Results, true)
	if body != nil {
		r.stmts(body.List)
	}
}

// fields resolves a field list's types and, when bind, declares its names.
func (r *resolver) fields(fl *ast.FieldList, bind bool) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		r.expr(f.Type)
	}
	if bind {
		for _, f := range fl.List {
			for _, n := range f.Names {
				r.declare(n)
			}
		}
	}
}

func (r *resolver) exprs(es []ast.Expr) {
	for _, e := range es {
		r.expr(e)
	}
}

func (r *resolver) expr(e ast.Expr) {
	if e == nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			r.use(n)
		case *ast.FuncLit:
			r.funcType(nil, n.Type, n.Body)
		case *ast.SelectorExpr:
			r.expr(n.X)
		case *ast.CompositeLit:
			r.expr(n.Type)
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if _, field := kv.Key.(*ast.Ident); field {
						r.expr(kv.Value) // the key may be a field: kept as written
						continue
					}
				}
				r.expr(el)
			}
		case *ast.StructType:
			for _, f := range n.Fields.List {
				r.expr(f.Type)
			}
		case *ast.InterfaceType:
			for _, f := range n.Methods.List {
				r.expr(f.Type)
			}
		case *ast.FuncType:
			r.fields(n.TypeParams, false)
			r.fields(n.Params, false)
			r.fields(n.Results, false)
		default:
			return true
		}
		return false
	})
}

func (r *resolver) stmts(ss []ast.Stmt) {
	for _, s := range ss {
		r.stmt(s)
	}
}

func (r *resolver) block(b *ast.BlockStmt) {
	if b == nil {
		return
	}
	r.push()
	r.stmts(b.List)
	r.pop()
}

func (r *resolver) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case nil:
	case *ast.AssignStmt:
		r.exprs(s.Rhs)
		if s.Tok != token.DEFINE {
			r.exprs(s.Lhs)
			return
		}
		for _, l := range s.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				r.expr(l)
				continue
			}
			if _, redeclared := r.scopes[len(r.scopes)-1][id.Name]; redeclared {
				r.use(id)
			} else {
				r.declare(id)
			}
		}
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if !ok {
			return
		}
		for _, spec := range gd.Specs {
			switch sp := spec.(type) {
			case *ast.ValueSpec:
				r.expr(sp.Type)
				r.exprs(sp.Values)
				for _, n := range sp.Names {
					r.declare(n)
				}
			case *ast.TypeSpec:
				r.declareSpelled(sp.Name)
				if sp.TypeParams != nil {
					r.push()
					r.fields(sp.TypeParams, false)
				}
				r.expr(sp.Type)
				if sp.TypeParams != nil {
					r.pop()
				}
			}
		}
	case *ast.BlockStmt:
		r.block(s)
	case *ast.ExprStmt:
		r.expr(s.X)
	case *ast.SendStmt:
		r.expr(s.Chan)
		r.expr(s.Value)
	case *ast.IncDecStmt:
		r.expr(s.X)
	case *ast.GoStmt:
		r.expr(s.Call)
	case *ast.DeferStmt:
		r.expr(s.Call)
	case *ast.ReturnStmt:
		r.exprs(s.Results)
	case *ast.LabeledStmt:
		r.stmt(s.Stmt)
	case *ast.IfStmt:
		r.push()
		r.stmt(s.Init)
		r.expr(s.Cond)
		r.block(s.Body)
		r.stmt(s.Else)
		r.pop()
	case *ast.ForStmt:
		r.push()
		r.stmt(s.Init)
		r.expr(s.Cond)
		r.stmt(s.Post)
		r.block(s.Body)
		r.pop()
	case *ast.RangeStmt:
		r.expr(s.X)
		r.push()
		if s.Tok == token.DEFINE {
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if id, ok := e.(*ast.Ident); ok {
					r.declare(id)
				}
			}
		} else {
			r.expr(s.Key)
			r.expr(s.Value)
		}
		r.block(s.Body)
		r.pop()
	case *ast.SwitchStmt:
		r.push()
		r.stmt(s.Init)
		r.expr(s.Tag)
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			r.exprs(cc.List)
			r.push()
			r.stmts(cc.Body)
			r.pop()
		}
		r.pop()
	case *ast.TypeSwitchStmt:
		r.push()
		r.stmt(s.Init)
		var bound *ast.Ident
		switch a := s.Assign.(type) {
		case *ast.AssignStmt:
			r.exprs(a.Rhs)
			bound, _ = a.Lhs[0].(*ast.Ident)
		case *ast.ExprStmt:
			r.expr(a.X)
		}
		for i, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			r.exprs(cc.List)
			r.push()
			if bound != nil {
				// One variable per clause; the first clause's keeps the
				// declaring identifier's name.
				if i == 0 {
					r.declare(bound)
				} else {
					r.declare(&ast.Ident{Name: bound.Name})
				}
			}
			r.stmts(cc.Body)
			r.pop()
		}
		r.pop()
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			r.push()
			r.stmt(cc.Comm)
			r.stmts(cc.Body)
			r.pop()
		}
	}
}
