package mutation

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// Mutant is one small change to a source line, compiled into the schemata
// binary and active when the runtime's environment names its ID.
type Mutant struct {
	ID       int    `json:"id"`
	File     string `json:"file"` // relative to the module root, slash-separated
	Line     int    `json:"line"`
	Operator string `json:"operator"` // the kind of change: one of the Op constants
	Change   string `json:"change"`   // what changes, as "* → /"
	Edited   string `json:"edited"`   // the mutated source line, trimmed
	// FixOnly says the mutant runs only to find a fix: it runs after the
	// others and counts in no line's scores (see Analyze).
	FixOnly bool `json:"fixOnly,omitempty"`
	// edit is the change as one edit of the original file, for Edited.
	edit testbuild.Edit
}

// Mutation operators, the Operator of a Mutant.
const (
	OpArithmetic = "arithmetic" // + - * / % replaced by another
	OpBoundary   = "boundary"   // < ↔ <=, > ↔ >=
	OpNegation   = "negation"   // a condition or an equality negated
	OpLogical    = "logical"    // && ↔ ||
	OpConstant   = "constant"   // an integer constant ±1; true ↔ false (fix-only)
	OpAssignment = "assignment" // += ↔ -=, *= ↔ /=, ++ ↔ --
	OpRemoval    = "removal"    // a statement removed
)

// arithmeticAlternatives are the operators that replace each arithmetic
// operator (integers; floats drop %).
var arithmeticAlternatives = map[token.Token]string{
	token.ADD: "+-*", token.SUB: "-+", token.MUL: "*/+", token.QUO: "/*%", token.REM: "%/",
}

// boundaryAlternatives are each relational operator's boundary mutant, in
// the runtime's codes.
var boundaryAlternatives = map[token.Token]string{
	token.LSS: "<l", token.LEQ: "l<", token.GTR: ">g", token.GEQ: "g>",
}

// assignmentAlternatives are each op-assignment's mutant operator.
var assignmentAlternatives = map[token.Token]string{
	token.ADD_ASSIGN: "+-", token.SUB_ASSIGN: "-+", token.MUL_ASSIGN: "*/", token.QUO_ASSIGN: "/*",
}

// codeText spells a runtime operator code as Go.
func codeText(c byte) string {
	switch c {
	case 'l':
		return "<="
	case 'g':
		return ">="
	}
	return string(c)
}

// fileMutator finds the mutants of one file and writes them as schemata
// edits: every site becomes a call of the runtime (or a condition on it)
// that computes the original unless one of its mutants is active. Each
// site is checked against the file's types so that the edited file
// compiles wherever the original does.
type fileMutator struct {
	fset  *token.FileSet
	tf    *token.File
	info  *types.Info
	src   []byte
	rel   string
	rt    string       // the runtime's import name
	lines map[int]bool // the lines to mutate
	// fixLines are the lines to give fix-only mutants.
	fixLines map[int]bool
	next     *int // the next mutant id
	edits    []testbuild.Edit
	muts     []Mutant
}

func (m *fileMutator) off(p token.Pos) int { return m.tf.Offset(p) }

func (m *fileMutator) text(n ast.Node) string { return string(m.src[m.off(n.Pos()):m.off(n.End())]) }

func (m *fileMutator) wanted(n ast.Node) bool {
	return m.lines[m.tf.Line(n.Pos())]
}

func (m *fileMutator) wantedFix(n ast.Node) bool {
	return m.fixLines[m.tf.Line(n.Pos())]
}

// oneLine reports whether n starts and ends on one line (its text may be
// copied into an edit).
func (m *fileMutator) oneLine(n ast.Node) bool { return m.tf.Line(n.Pos()) == m.tf.Line(n.End()) }

// open and close wrap node n: spans are twice the node's length, one more
// for a wrapping that must enclose another of the same node.
func (m *fileMutator) open(n ast.Node, text string, outer bool) {
	m.edits = append(m.edits, testbuild.Edit{Off: m.off(n.Pos()), Text: text, Span: m.span(n, outer)})
}

func (m *fileMutator) close(n ast.Node, text string, outer bool) {
	m.edits = append(m.edits, testbuild.Edit{Off: m.off(n.End()), Text: text, Close: true, Span: m.span(n, outer)})
}

func (m *fileMutator) span(n ast.Node, outer bool) int {
	s := 2 * (m.off(n.End()) - m.off(n.Pos()))
	if outer {
		s++
	}
	return s
}

// add records a mutant of the node's line whose own change replaces the
// del bytes at off with text.
func (m *fileMutator) add(n ast.Node, op, change string, off, del int, text string) int {
	id := *m.next
	*m.next++
	m.muts = append(m.muts, Mutant{ID: id, File: m.rel, Line: m.tf.Line(n.Pos()), Operator: op, Change: change,
		edit: testbuild.Edit{Off: off, Del: del, Text: text}})
	return id
}

// typeOf is n's recorded type, nil when unknown.
func (m *fileMutator) typeOf(e ast.Expr) types.Type {
	tv, ok := m.info.Types[e]
	if !ok {
		return nil
	}
	return tv.Type
}

func (m *fileMutator) constant(e ast.Expr) bool {
	tv, ok := m.info.Types[e]
	return !ok || tv.Value != nil
}

// basicKind returns the basic info of t when t's underlying type is a
// basic type (not through a type parameter), else 0.
func basicInfo(t types.Type) types.BasicInfo {
	if t == nil {
		return 0
	}
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return 0
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return 0
	}
	return b.Info()
}

// plainBool reports whether t is the predeclared bool or untyped bool, the
// type of the runtime's conditions.
func plainBool(t types.Type) bool {
	return t != nil && (types.Identical(t, types.Typ[types.Bool]) || types.Identical(t, types.Typ[types.UntypedBool]))
}

// sameOperands returns the operands' common type when both are recorded
// with identical types (an untyped constant operand is recorded with the
// type it converts to).
func (m *fileMutator) sameOperands(x, y ast.Expr) types.Type {
	tx, ty := m.typeOf(x), m.typeOf(y)
	if tx == nil || ty == nil || !types.Identical(tx, ty) {
		return nil
	}
	if b, ok := tx.Underlying().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return nil
	}
	return tx
}

// binary mutates an arithmetic, relational, equality or logical operation.
func (m *fileMutator) binary(e *ast.BinaryExpr) {
	if m.constant(e) || !m.wanted(e) {
		return
	}
	opOff := m.off(e.OpPos)
	opLen := len(e.Op.String())
	switch e.Op {
	case token.ADD, token.SUB, token.MUL, token.QUO, token.REM:
		t := m.sameOperands(e.X, e.Y)
		info := basicInfo(t)
		helper := "Int"
		ops := arithmeticAlternatives[e.Op]
		switch {
		case info&types.IsInteger != 0:
		case info&types.IsFloat != 0 && e.Op != token.REM:
			helper, ops = "Flt", strings.ReplaceAll(ops, "%", "")
		default:
			return // strings, complex numbers, type parameters
		}
		first := -1
		for _, alt := range ops[1:] {
			id := m.add(e, OpArithmetic, e.Op.String()+" → "+string(alt), opOff, opLen, string(alt))
			if first < 0 {
				first = id
			}
		}
		m.open(e, m.rt+"."+helper+"(", false)
		m.edits = append(m.edits, testbuild.Edit{Off: opOff, Del: opLen, Text: ","})
		m.close(e, fmt.Sprintf(", %q, %d)", ops, first), false)
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		t := m.sameOperands(e.X, e.Y)
		if basicInfo(t)&types.IsOrdered == 0 || basicInfo(t)&types.IsComplex != 0 || !plainBool(m.typeOf(e)) {
			return
		}
		ops := boundaryAlternatives[e.Op]
		alt := codeText(ops[1])
		id := m.add(e, OpBoundary, e.Op.String()+" → "+alt, opOff, opLen, alt)
		m.open(e, m.rt+".Rel(", false)
		m.edits = append(m.edits, testbuild.Edit{Off: opOff, Del: opLen, Text: ","})
		m.close(e, fmt.Sprintf(", %q, %d)", ops, id), false)
	case token.EQL, token.NEQ:
		m.negate(e)
	case token.LAND, token.LOR:
		if !plainBool(m.typeOf(e)) || !m.oneLine(e) {
			return
		}
		other := token.LOR
		if e.Op == token.LOR {
			other = token.LAND
		}
		id := m.add(e, OpLogical, e.Op.String()+" → "+other.String(), opOff, opLen, other.String())
		// Only one copy runs: the mutated one, a copy of the operands'
		// original text, when the mutant is active.
		m.open(e, fmt.Sprintf("(%s.On(%d) && (%s %s %s) || !%s.On(%d) && (", m.rt, id, m.text(e.X), other, m.text(e.Y), m.rt, id), false)
		m.close(e, "))", false)
	}
}

// negate makes a boolean expression's negation a mutant.
func (m *fileMutator) negate(e ast.Expr) {
	if m.constant(e) || !m.wanted(e) || !plainBool(m.typeOf(e)) {
		return
	}
	change := "negated"
	off, del, text := m.off(e.Pos()), m.off(e.End())-m.off(e.Pos()), "!("+m.text(e)+")"
	if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == token.EQL || b.Op == token.NEQ) {
		other := token.NEQ
		if b.Op == token.NEQ {
			other = token.EQL
		}
		change = b.Op.String() + " → " + other.String()
		off, del, text = m.off(b.OpPos), len(b.Op.String()), other.String()
	}
	id := m.add(e, OpNegation, change, off, del, text)
	m.open(e, "((", true)
	m.close(e, fmt.Sprintf(") != %s.On(%d))", m.rt, id), true)
}

// condition negates an if's or a for's condition, unless it is an
// equality, whose own mutant is its negation.
func (m *fileMutator) condition(cond ast.Expr) {
	if cond == nil {
		return
	}
	if b, ok := ast.Unparen(cond).(*ast.BinaryExpr); ok && (b.Op == token.EQL || b.Op == token.NEQ) {
		return
	}
	m.negate(cond)
}

// literal makes an integer constant ±1 where it is not part of a
// constant expression.
func (m *fileMutator) literal(lit *ast.BasicLit) {
	if lit.Kind != token.INT || !m.wanted(lit) {
		return
	}
	t := m.typeOf(lit)
	b, ok := types.Unalias(t).(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 || b.Info()&types.IsUntyped != 0 {
		return // named types cannot be spelled here; untyped ones have no type to keep
	}
	if types.Universe.Lookup(b.Name()) == nil {
		return
	}
	v, err := strconv.ParseInt(lit.Value, 0, 64)
	if err != nil {
		return
	}
	off, del := m.off(lit.Pos()), len(lit.Value)
	first := m.add(lit, OpConstant, lit.Value+" → "+strconv.FormatInt(v+1, 10), off, del, strconv.FormatInt(v+1, 10))
	m.add(lit, OpConstant, lit.Value+" → "+strconv.FormatInt(v-1, 10), off, del, strconv.FormatInt(v-1, 10))
	m.open(lit, fmt.Sprintf("%s.Const[%s](", m.rt, b.Name()), false)
	m.close(lit, fmt.Sprintf(", %d)", first), false)
}

// boolean makes a boolean constant's opposite a fix-only mutant where it
// has the predeclared type bool (not a named or untyped one). Flipped
// settings and defaults (pathUnescape := true) are faults no other
// operator undoes, but a flip that breaks a test is weak evidence
// against its line: such mutants are counted in no score.
func (m *fileMutator) boolean(id *ast.Ident) {
	if (id.Name != "true" && id.Name != "false") || !m.wantedFix(id) {
		return
	}
	if c, ok := m.info.Uses[id].(*types.Const); !ok || c.Parent() != types.Universe {
		return // shadowed
	}
	if t := m.typeOf(id); t == nil || !types.Identical(t, types.Typ[types.Bool]) {
		return
	}
	other := "false"
	if id.Name == "false" {
		other = "true"
	}
	mid := m.add(id, OpConstant, id.Name+" → "+other, m.off(id.Pos()), len(id.Name), other)
	m.muts[len(m.muts)-1].FixOnly = true
	m.open(id, "(", false)
	m.close(id, fmt.Sprintf(" != %s.On(%d))", m.rt, mid), false)
}

// pure reports whether evaluating e twice is evaluating it once: a
// variable, a field of one, or an element at a variable or constant
// index, on one line.
func (m *fileMutator) pure(e ast.Expr) bool {
	if !m.oneLine(e) {
		return false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e.Name != "_"
	case *ast.SelectorExpr:
		return m.pure(e.X)
	case *ast.StarExpr:
		return m.pure(e.X)
	case *ast.IndexExpr:
		_, isMap := m.typeOf(e.X).Underlying().(*types.Map)
		return !isMap && m.pure(e.X) && (m.pure(e.Index) || m.constant(e.Index))
	}
	return false
}

// assign mutates an op-assignment (+= ↔ -=, *= ↔ /=) as x = Int(x, e, ...).
func (m *fileMutator) assign(s *ast.AssignStmt) {
	ops, ok := assignmentAlternatives[s.Tok]
	if !ok || len(s.Lhs) != 1 || !m.wanted(s) || !m.pure(s.Lhs[0]) {
		return
	}
	t := m.typeOf(s.Lhs[0])
	info := basicInfo(t)
	helper := "Int"
	switch {
	case info&types.IsInteger != 0:
	case info&types.IsFloat != 0:
		helper = "Flt"
	default:
		return
	}
	if rt := m.typeOf(s.Rhs[0]); rt == nil || !types.Identical(rt, t) {
		return
	}
	alt := string(ops[1]) + "="
	tokOff := m.off(s.TokPos)
	id := m.add(s, OpAssignment, s.Tok.String()+" → "+alt, tokOff, 2, alt)
	m.edits = append(m.edits, testbuild.Edit{Off: tokOff, Del: 2, Text: fmt.Sprintf("= %s.%s(%s,", m.rt, helper, m.text(s.Lhs[0]))})
	m.close(s.Rhs[0], fmt.Sprintf(", %q, %d)", ops, id), true)
}

// incDec mutates x++ ↔ x-- as x = Int(x, 1, ...).
func (m *fileMutator) incDec(s *ast.IncDecStmt) {
	if !m.wanted(s) || !m.pure(s.X) || basicInfo(m.typeOf(s.X))&types.IsInteger == 0 {
		return
	}
	ops, alt := "+-", "--"
	if s.Tok == token.DEC {
		ops, alt = "-+", "++"
	}
	tokOff := m.off(s.TokPos)
	id := m.add(s, OpAssignment, s.Tok.String()+" → "+alt, tokOff, 2, alt)
	m.edits = append(m.edits, testbuild.Edit{Off: tokOff, Del: 2, Text: fmt.Sprintf(" = %s.Int(%s, 1, %q, %d)", m.rt, m.text(s.X), ops, id)})
}

// remove makes a statement's removal a mutant: it runs only while the
// mutant is inactive, and everything it uses is still used.
func (m *fileMutator) remove(s ast.Stmt, parent ast.Node) {
	switch p := parent.(type) {
	case *ast.BlockStmt, *ast.CaseClause:
	case *ast.CommClause:
		if p.Comm == s {
			return // a select case's communication, which must stay one
		}
	default:
		return // a statement of an if, for or switch header
	}
	if !m.wanted(s) {
		return
	}
	switch s := s.(type) {
	case *ast.ExprStmt:
		call, ok := ast.Unparen(s.X).(*ast.CallExpr)
		if !ok {
			return
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
			if _, builtin := m.info.Uses[id].(*types.Builtin); builtin && id.Name == "panic" {
				return // a terminating statement
			}
		}
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			return
		}
	case *ast.IncDecStmt:
	default:
		return
	}
	off := m.off(s.Pos())
	id := m.add(s, OpRemoval, "removed", off, m.off(s.End())-off, "")
	m.open(s, fmt.Sprintf("if !%s.On(%d) { ", m.rt, id), true)
	m.close(s, " }", true)
}

// run walks the file's function bodies.
func (m *fileMutator) run(f *ast.File) {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		m.walk(fd.Body)
	}
}

// literalParents are the nodes under which an integer literal is an
// operand evaluated at run time, when the node is not constant itself.
func (m *fileMutator) literalParent(parent ast.Node, lit *ast.BasicLit) bool {
	switch p := parent.(type) {
	case *ast.BinaryExpr:
		return !m.constant(p) && p.Op != token.SHL && p.Op != token.SHR
	case *ast.IndexExpr:
		return p.Index == lit
	case *ast.SliceExpr:
		return true
	case *ast.CallExpr:
		tv, ok := m.info.Types[p.Fun]
		return ok && !tv.IsType() && !tv.IsBuiltin()
	case *ast.ReturnStmt:
		return true
	case *ast.AssignStmt:
		return p.Tok == token.ASSIGN || p.Tok == token.DEFINE
	}
	return false
}

func (m *fileMutator) walk(body *ast.BlockStmt) {
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
			return false // constants stay constant
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.BinaryExpr:
			m.binary(n)
		case *ast.BasicLit:
			if m.literalParent(parent, n) {
				m.literal(n)
			}
		case *ast.IfStmt:
			m.condition(n.Cond)
		case *ast.ForStmt:
			m.condition(n.Cond)
		case *ast.AssignStmt:
			m.assign(n)
			m.remove(n, parent)
		case *ast.IncDecStmt:
			m.incDec(n)
			m.remove(n, parent)
		case *ast.ExprStmt:
			m.remove(n, parent)
		case *ast.Ident:
			m.boolean(n)
		}
		return true
	})
}
