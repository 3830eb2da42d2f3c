package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// This file models type switches and comma-ok type assertions as the
// branches they are. The dynamic type of the value switched on is the
// run's: each case type a type switch tests, and the ok of v, ok :=
// x.(T), is a Boolean site whose value the formula takes from the run
// (site.recorded), guarded by its ab literal like any condition of
// non-test code. The angelic choice is the branch taken, and a forced run
// takes it: the runtime's TypeSwitch returns a value of the forced case's
// type (its zero value) for the switch to dispatch on, and Assert the zero
// value with the forced ok.

// typeSwitchStmt instruments a type switch as the chain of case tests it
// is: each case type tested is a condition site, the guard's operand
// passes through the runtime's TypeSwitch with one matcher per case type
// (in order), and control leaving the switch is a join. The matchers name
// the case types as the cases do, in the switch's scope.
func (fi *fileInstrumenter) typeSwitchStmt(fn *Function, s *ast.TypeSwitchStmt, label string, inList bool) {
	if s.Init != nil {
		fi.stmt(fn, s.Init, false)
	}
	fi.calls(fn, s.Assign)
	var ta *ast.TypeAssertExpr
	switch a := s.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Rhs) == 1 {
			ta, _ = ast.Unparen(a.Rhs[0]).(*ast.TypeAssertExpr)
		}
	case *ast.ExprStmt:
		ta, _ = ast.Unparen(a.X).(*ast.TypeAssertExpr)
	}
	if ta == nil || fi.hard || !fi.oneLineCases(s) {
		for _, c := range s.Body.List {
			fi.stmtList(fn, c.(*ast.CaseClause).Body)
		}
		return
	}
	assigned := fi.assigned(fn, s)
	leaves := escapes(s)
	var matchers []string
	for _, c := range s.Body.List {
		for _, x := range c.(*ast.CaseClause).List {
			st := fi.site(KindCond, fn, x, types.Typ[types.Bool])
			st.Stmt, st.AssignedInside, st.Escapes, st.Recorded = s, assigned, leaves, true
			st.Text = "case " + st.Text
			if IsNil(fi.info, x) {
				matchers = append(matchers, fmt.Sprintf("%s%d)", fi.call("IsNil", ""), st.Id))
				continue
			}
			matchers = append(matchers, fmt.Sprintf("%s%d)", fi.call("Is", fi.text(x)), st.Id))
		}
	}
	fi.surround(ta.X, fi.call("TypeSwitch", ""), ", "+strings.Join(matchers, ", ")+")")
	for _, c := range s.Body.List {
		fi.stmtList(fn, c.(*ast.CaseClause).Body)
	}
	fi.join(fn, s, label, inList)
}

// commaOK reports whether lhs, rhs is v, ok = x.(T) (or :=, or var): a
// type assertion whose ok the formula follows.
func commaOK(lhs []ast.Expr, rhs []ast.Expr) (*ast.TypeAssertExpr, bool) {
	if len(lhs) != 2 || len(rhs) != 1 {
		return nil, false
	}
	ta, ok := ast.Unparen(rhs[0]).(*ast.TypeAssertExpr)
	return ta, ok && ta.Type != nil
}

// typeAssertOK instruments v, ok := x.(T) as a branch: the assertion
// becomes the runtime's Assert[T](site, x), which records whether x holds
// a T and returns the forced outcome with the zero value when it differs
// from the run's. The ok (unless blank) is an assignment site taking the
// run's value, of the local ok when the formula follows it.
func (fi *fileInstrumenter) typeAssertOK(fn *Function, ta *ast.TypeAssertExpr, ok ast.Expr, tok token.Token) {
	if !fi.okModelled(ta) {
		return
	}
	st := fi.site(KindAssign, fn, ta, types.Typ[types.Bool])
	st.Recorded, st.Op = true, tok
	st.Text += " (ok)"
	if id, isID := ast.Unparen(ok).(*ast.Ident); !isID || id.Name != "_" {
		st.Obj = fi.localVar(fn, ok)
	}
	// x.(T) -> Assert[T](site, x): the type keeps its text, the operand
	// its wrappings (closed before .(T) is replaced).
	span := fi.off(ta.End()) - fi.off(ta.Pos())
	fi.add(testbuild.Edit{Off: fi.off(ta.X.Pos()), Text: fmt.Sprintf("%s%d, ", fi.call("Assert", fi.text(ta.Type)), st.Id), Span: span + 1})
	fi.add(testbuild.Edit{Off: fi.off(ta.X.End()), Del: fi.off(ta.End()) - fi.off(ta.X.End()), Text: ")", Close: true, Span: span + 2})
}

// oneLineCases reports whether every case type of a type switch is
// written on one line, so that its text can be repeated in the switch's
// header without moving a line.
func (fi *fileInstrumenter) oneLineCases(s *ast.TypeSwitchStmt) bool {
	for _, c := range s.Body.List {
		for _, x := range c.(*ast.CaseClause).List {
			if strings.Contains(fi.text(x), "\n") {
				return false
			}
		}
	}
	return true
}

// okModelled reports whether the ok of v, ok := x.(T) gets a site: in
// non-test code, with .(T) on one line.
func (fi *fileInstrumenter) okModelled(ta *ast.TypeAssertExpr) bool {
	return !fi.hard && !strings.Contains(string(fi.src[fi.off(ta.X.End()):fi.off(ta.End())]), "\n")
}

// trackCommaOK adjusts the locals the formula follows for v, ok := x.(T):
// ok is assigned one value (the run's) when the assertion has a site, v
// is not followed.
func (fi *fileInstrumenter) trackCommaOK(fn *Function, ta *ast.TypeAssertExpr, lhs []ast.Expr, define bool, depth int) (untracked []ast.Expr) {
	if !fi.okModelled(ta) {
		return lhs
	}
	if id, ok := lhs[1].(*ast.Ident); ok && define && depth == 0 {
		if v, ok := fi.info.Defs[id].(*types.Var); ok && ValueKind(v.Type()) == 'b' && id.Name != "_" {
			fn.Tracked[v] = true
		}
	} else if depth > 0 {
		untracked = append(untracked, lhs[1])
	}
	return append(untracked, lhs[0])
}
