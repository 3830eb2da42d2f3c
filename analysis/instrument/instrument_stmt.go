package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

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
				if recordedAs(fi.info.TypeOf(call), i, t) {
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
		fi.sortRange(s)
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
