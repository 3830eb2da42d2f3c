package formula

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// This file and cause.go are the semantic step of a regression
// explanation (the regress package): the failing run, recorded as the
// angelic analysis records it, is asked which executed statements force
// the failed check (an unsat core over the replayed trace, cause.go) and
// which executed conditions decide whether those statements run or could
// have redefined what they read (critical predicates, here).

// Statement is one source statement of a recorded failing run, as a cause
// names it.
type Statement struct {
	File    string `json:"file"` // slash path relative to the module root
	Line    int    `json:"line"` // 1-based
	EndLine int    `json:"endLine"`
	Text    string `json:"text"` // the statement's source, on one line
	Why     string `json:"why"`  // what it did in the run
	Test    bool   `json:"test,omitempty"`
	// BlockEnd is, for the condition of an if, for or switch, the last
	// line of that statement: what the condition decides runs up to
	// there. 0 for other statements.
	BlockEnd int `json:"-"`

	site  int32 // the site whose instance this is
	event int   // index in the trace of the instance meant
}

// Cause is a set of executed statements that together force one outcome of
// the failing run: the failed check, or the direction a critical predicate
// took. Statements are in the order the run executed them (their last
// instance before the outcome).
type Cause struct {
	Statements []Statement `json:"statements"`
	// Outcome is what the cause forces: the failed check, or the
	// predicate whose direction it explains.
	Outcome Statement `json:"outcome"`
	// Predicate is set for the cause of a critical predicate.
	Predicate *Predicate `json:"predicate,omitempty"`
}

// Predicate is a critical predicate: an executed condition that decided
// whether a statement of a cause ran (control), or whose other direction
// would have run a statement redefining a variable the statement reads
// (potential).
type Predicate struct {
	Statement
	Kind string `json:"kind"` // "control" or "potential"
	// Of is the statement of the cause it influences; Var the variable,
	// for a potential dependence.
	Of  Statement `json:"of"`
	Var string    `json:"var,omitempty"`
}

// Key identifies the predicate's instance in the run.
func (p Predicate) Key() int { return p.event }

// ErrNoCheck says that the failing run reached no failed check the formula
// models: the semantic step has no cause to give.
var ErrNoCheck = errors.New("no failed check the formula models (integer, float, Boolean and error checks in test code, index, slice, division, nil pointer, nil map and panic-call panics)")

// FailingRun is a failing leaf test's run, recorded through the angelic
// analysis's instrumentation and ready for semantic questions (Cause,
// CriticalPredicates, PredicateCause). Close releases the solver.
type FailingRun struct {
	Target testbuild.Target
	prog   *instrument.Program
	trace  []instrument.Event
	output string
	panic  int // trace index of the guard the run panicked at, or -1
	files  map[string]*fileSyntax
	conds  *conditionIndex // built when first asked (conditions)
	// callers maps each activation to its call site (callSite), built
	// when first asked.
	callers map[callAct]int
	// semantic holds the formula once encoded (cause.go).
	semantic *semanticState
	deadline time.Time
}

// fileSyntax is a source file's syntax and types, for the static questions.
type fileSyntax struct {
	file  *ast.File
	info  *types.Info
	lines []string
}

// RecordFailingRun builds the instrumented test binary of t's package (or
// reuses the one the angelic analysis built from the same sources), runs
// the test once and keeps its trace. It fails when the test passes.
func RecordFailingRun(ctx context.Context, mod *testbuild.Module, t testbuild.Target, opts result.Options) (*FailingRun, error) {
	opts.Defaults()
	pkg, keys, prog, err := instrument.LoadPackage(ctx, mod, t.Package)
	if err != nil {
		return nil, err
	}
	defer mod.Hasher().Save()
	work, remove, err := scratch.MkdirTemp("cause-")
	if err != nil {
		return nil, err
	}
	defer remove()
	bin, err := instrument.BuildTestBinary(ctx, mod, keys, prog, pkg, work)
	if err != nil {
		return nil, err
	}
	bin.Timeout = opts.RunTimeout
	run, err := bin.Run(ctx, t.Test, nil)
	if err != nil {
		return nil, err
	}
	if run.Memory != nil {
		return nil, fmt.Errorf("the failing run of %s %w", t.Test, run.Memory)
	}
	if run.Passed {
		return nil, fmt.Errorf("%s passes when recorded: it fails only at times (flaky?)", t.Test)
	}
	if run.Truncated {
		return nil, fmt.Errorf("the failing run is longer than %d recorded events", instrument.MaxTraceEvents)
	}
	return &FailingRun{Target: t, prog: prog, trace: run.Trace, output: run.Output, panic: instrument.PanicAt(prog, run),
		files: map[string]*fileSyntax{}, deadline: time.Now().Add(opts.Budget)}, nil
}

// unguardedPanic returns the trace index of the last statement instance
// the run recorded before a panic raised in code it does not record (a
// call out of the module, into the standard library or the runtime, that
// panicked where no guard of the instrumentation was): the last instance
// with an expression of the activation the panic left first (the first of
// the trailing exits). It is -1 when the run shows no panic, when a
// guard recorded the panic, or when that statement is test code: only a
// statement of the code under test can be explained from the changes.
func (r *FailingRun) unguardedPanic() int {
	if r.panic >= 0 || !strings.Contains(r.output, "panic: ") {
		return -1
	}
	leave := -1
	for i := len(r.trace) - 1; i >= 0; i-- {
		ev := r.trace[i]
		if ev.Site < 0 || int(ev.Site) >= len(r.prog.Sites) || r.prog.Sites[ev.Site].Kind != instrument.KindLeave {
			break
		}
		leave = i
	}
	if leave < 0 {
		return -1 // the run did not leave its calls unwinding
	}
	fn, act := r.prog.Sites[r.trace[leave].Site].Fn, r.trace[leave].Inst.Act
	for i := leave - 1; i >= 0; i-- {
		ev := r.trace[i]
		if ev.Site < 0 || int(ev.Site) >= len(r.prog.Sites) || ev.Inst.Act != act {
			continue
		}
		s := r.prog.Sites[ev.Site]
		if s.Fn != fn || s.Expr == nil {
			continue
		}
		if s.Hard {
			return -1
		}
		return i
	}
	return -1
}

// Output is the failing run's output.
func (r *FailingRun) Output() string { return r.output }

// Executed returns the statements of non-test code the run executed, each
// once, in the order of their first instance.
func (r *FailingRun) Executed() []Statement {
	seen := map[int32]bool{}
	var out []Statement
	for i, ev := range r.trace {
		if ev.Site < 0 || int(ev.Site) >= len(r.prog.Sites) || seen[ev.Site] {
			continue
		}
		s := r.prog.Sites[ev.Site]
		if s.Hard || s.Expr == nil {
			continue
		}
		seen[ev.Site] = true
		out = append(out, r.statement(i, ""))
	}
	return out
}

// statement describes the instance at trace index i.
func (r *FailingRun) statement(i int, why string) Statement {
	ev := r.trace[i]
	s := r.prog.Sites[ev.Site]
	st := Statement{File: s.File, Line: s.Pos.Line, EndLine: s.End.Line, Text: s.Text, Test: s.Hard, site: s.Id, event: i}
	if fs := r.syntax(s); fs != nil && s.Expr != nil {
		if n := enclosingStatement(fs.file, s); n != nil {
			start, end := r.prog.Fset.Position(n.Pos()), r.prog.Fset.Position(n.End())
			st.Line, st.EndLine = start.Line, end.Line
			st.Text = oneLine(fs.lines, start.Line, end.Line)
		}
	}
	if s.Kind == instrument.KindCond && s.Stmt != nil {
		st.BlockEnd = r.prog.Fset.Position(s.Stmt.End()).Line
	}
	if why == "" {
		why = r.describe(i)
	}
	st.Why = why
	return st
}

// describe says what a site instance did, with the value the run gave it.
func (r *FailingRun) describe(i int) string {
	ev := r.trace[i]
	s := r.prog.Sites[ev.Site]
	if s.Typ == nil {
		return "executed"
	}
	v := instrument.Render(s, ev.Value)
	switch s.Kind {
	case instrument.KindAssign, instrument.KindIncDec:
		if s.Obj != nil {
			return fmt.Sprintf("%s = %s", s.Obj.Name(), v)
		}
		return fmt.Sprintf("%s evaluated to %s", s.Text, v)
	case instrument.KindReturn:
		return "returns " + v
	case instrument.KindCond:
		return fmt.Sprintf("%s was %s", s.Text, v)
	case instrument.KindArg:
		return fmt.Sprintf("passes %s", v)
	case instrument.KindGuard:
		return "panics here"
	}
	return fmt.Sprintf("%s was %s", s.Text, v)
}

// syntax finds the typed syntax of a site's file.
func (r *FailingRun) syntax(s *instrument.Site) *fileSyntax {
	if fs, ok := r.files[s.File]; ok {
		return fs
	}
	var found *ast.File
	if s.Expr != nil {
		for n := range s.Info.Scopes {
			if f, ok := n.(*ast.File); ok && f.Pos() <= s.Expr.Pos() && s.Expr.End() <= f.End() {
				found = f
				break
			}
		}
	}
	var fs *fileSyntax
	if found != nil {
		src, err := os.ReadFile(r.prog.Fset.Position(found.Pos()).Filename)
		if err == nil {
			fs = &fileSyntax{file: found, info: s.Info, lines: strings.Split(string(src), "\n")}
		}
	}
	r.files[s.File] = fs
	return fs
}

// enclosingStatement is the statement a site belongs to: the innermost
// simple statement around its expression, or for the condition of an if,
// for or switch the condition itself.
func enclosingStatement(f *ast.File, s *instrument.Site) ast.Node {
	if s.Kind == instrument.KindCond {
		return s.Expr
	}
	path, _ := astutil.PathEnclosingInterval(f, s.Expr.Pos(), s.Expr.End())
	for _, n := range path {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.RangeStmt, *ast.SelectStmt:
			return s.Expr // a header's expression: the header alone
		case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause, *ast.LabeledStmt:
			return s.Expr
		case ast.Stmt:
			return n
		case *ast.FuncDecl, *ast.FuncLit:
			return s.Expr
		}
	}
	return s.Expr
}

// oneLine joins source lines first..last (1-based) into one line.
func oneLine(lines []string, first, last int) string {
	var parts []string
	for l := first; l <= last && l <= len(lines); l++ {
		if l >= 1 {
			parts = append(parts, strings.TrimSpace(lines[l-1]))
		}
	}
	s := strings.Join(parts, " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// CriticalPredicates returns the critical predicates of a cause: for each
// statement, the nearest executed condition it is control dependent on
// (an enclosing if, for or case, or an earlier if that may leave the
// function or loop; for a statement no condition of its function
// controls, the one controlling the call in the nearest caller outside
// the tests that has one), and the executed conditions between the last
// definition of a local it reads and the statement whose other direction
// would have assigned that local. Each predicate instance is given once,
// in the order of the run.
func (r *FailingRun) CriticalPredicates(c *Cause) []Predicate {
	seen := map[int]bool{}
	var out []Predicate
	add := func(i int, kind string, of Statement, v string) {
		if i < 0 || seen[i] {
			return
		}
		seen[i] = true
		p := Predicate{Statement: r.statement(i, ""), Kind: kind, Of: of, Var: v}
		out = append(out, p)
	}
	for _, st := range c.Statements {
		if st.event < 0 || st.event >= len(r.trace) {
			continue
		}
		ctrl := r.controlling(st.event)
		// No condition of its own call decided that the statement ran:
		// the condition that decided the call did, in the nearest caller
		// of the code under test that has one, and the conditions that
		// could have given the call's arguments other values.
		for at := st.event; ctrl < 0; {
			call := r.callSite(at)
			if call < 0 || r.prog.Sites[r.trace[call].Site].Hard {
				break
			}
			for _, pd := range r.potential(call) {
				add(pd.event, "potential", st, pd.name)
			}
			if r.entersCall(call, at) {
				ctrl = call // the caller's last instance is the condition whose branch makes the call
				break
			}
			ctrl, at = r.controlling(call), call
		}
		add(ctrl, "control", st, "")
		for _, pd := range r.potential(st.event) {
			add(pd.event, "potential", st, pd.name)
		}
	}
	slices.SortStableFunc(out, func(a, b Predicate) int { return a.event - b.event })
	return out
}

// callAct is one call of an instrumented function in the trace.
type callAct struct {
	fn  *instrument.Function
	act int32
}

// callSite returns the trace index of the caller's last recorded instance
// before the call whose activation holds the instance at i (an argument
// of the call, when it has one recorded), or -1 when there is none: the
// test's own call, or a call from another goroutine.
func (r *FailingRun) callSite(i int) int {
	if r.callers == nil {
		r.callers = r.callSites()
	}
	s := r.prog.Sites[r.trace[i].Site]
	if call, ok := r.callers[callAct{s.Fn, r.trace[i].Inst.Act}]; ok {
		return call
	}
	return -1
}

// callSites maps each activation to its caller's last instance with an
// expression before the call; one whose caller recorded none before it
// takes the caller's own call site.
func (r *FailingRun) callSites() map[callAct]int {
	type frame struct {
		a    callAct
		last int
	}
	out := map[callAct]int{}
	var stack []frame
	for i, ev := range r.trace {
		s := r.prog.SiteOf(ev)
		if s == nil || s.Fn == nil {
			continue
		}
		a := callAct{s.Fn, ev.Inst.Act}
		switch s.Kind {
		case instrument.KindEnter:
			call := -1
			if n := len(stack); n > 0 {
				call = stack[n-1].last
				if call < 0 {
					call = out[stack[n-1].a]
				}
			}
			if _, ok := out[a]; !ok {
				out[a] = call
			}
			stack = append(stack, frame{a, -1})
		case instrument.KindLeave:
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].a == a {
					stack = stack[:k]
					break
				}
			}
		default:
			if n := len(stack); n > 0 && stack[n-1].a == a && s.Expr != nil {
				stack[n-1].last = i
			}
		}
	}
	return out
}

// entersCall reports whether the instance at call, a caller's last one
// before the call whose activation holds the instance at i, is a
// condition whose direction taken leads to a call of that function: the
// call then stands in the branch the condition chose.
func (r *FailingRun) entersCall(call, i int) bool {
	c := r.prog.Sites[r.trace[call].Site]
	if c.Kind != instrument.KindCond || c.Stmt == nil {
		return false
	}
	fn := r.prog.Sites[r.trace[i].Site].Fn
	found := false
	for _, n := range taken(c, r.trace[call].Value != 0) {
		ast.Inspect(n, func(n ast.Node) bool {
			if x, ok := n.(*ast.CallExpr); ok && r.prog.Callee(c.Info, x) == fn {
				found = true
			}
			_, lit := n.(*ast.FuncLit)
			return !found && !lit
		})
	}
	return found
}

// taken is the code a condition instance's direction ran: the body of an
// if or loop entered, the else of an if not, the body of a case chosen.
func taken(cond *instrument.Site, dir bool) []ast.Node {
	switch st := cond.Stmt.(type) {
	case *ast.IfStmt:
		if dir {
			return []ast.Node{st.Body}
		}
		if st.Else != nil {
			return []ast.Node{st.Else}
		}
	case *ast.ForStmt:
		if dir {
			return []ast.Node{st.Body}
		}
	case *ast.SwitchStmt:
		if !dir {
			return nil
		}
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			if slices.Contains(cc.List, cond.Expr) {
				out := make([]ast.Node, 0, len(cc.Body))
				for _, b := range cc.Body {
					out = append(out, b)
				}
				return out
			}
		}
	}
	return nil
}

// controlling returns the trace index of the condition instance that
// decided whether the instance at i ran, or -1.
func (r *FailingRun) controlling(i int) int {
	s := r.prog.Sites[r.trace[i].Site]
	act := r.trace[i].Inst.Act
	for _, cs := range r.controlGroups(s) {
		for j := i - 1; j >= 0; j-- {
			ev := r.trace[j]
			if ev.Inst.Act != act {
				continue
			}
			for _, c := range cs {
				if ev.Site == c.Id && c.Fn == s.Fn {
					return j
				}
			}
		}
	}
	return -1
}

// controlGroups returns the condition sites that may control a site,
// nearest first: the conditions of an earlier if of an enclosing block
// that may leave it, or of the statement whose branch holds the site.
func (r *FailingRun) controlGroups(s *instrument.Site) [][]*instrument.Site {
	fs := r.syntax(s)
	if fs == nil || s.Expr == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(fs.file, s.Expr.Pos(), s.Expr.End())
	// The conditions that control the site, nearest first: an if that
	// may leave before it, or the statement whose branch holds it.
	var conds [][]*instrument.Site
	for k := 0; k < len(path); k++ {
		switch n := path[k].(type) {
		case *ast.BlockStmt:
			// Earlier statements of the block that may leave it.
			var inner ast.Node
			if k > 0 {
				inner = path[k-1]
			}
			for j := len(n.List) - 1; j >= 0; j-- {
				if n.List[j] == inner {
					for p := j - 1; p >= 0; p-- {
						if ifs, ok := n.List[p].(*ast.IfStmt); ok {
							if cs := r.condSitesOf(ifs); len(cs) > 0 && cs[0].Escapes {
								conds = append(conds, cs)
							}
						}
					}
					break
				}
			}
		case *ast.IfStmt:
			if k > 0 && (path[k-1] == n.Body || path[k-1] == n.Else) {
				conds = append(conds, r.condSitesOf(n))
			}
		case *ast.ForStmt:
			if k > 0 && path[k-1] == n.Body {
				conds = append(conds, r.condSitesOf(n))
			}
		case *ast.CaseClause:
			var cs []*instrument.Site
			for _, x := range n.List {
				if c := r.condSiteOfExpr(x); c != nil {
					cs = append(cs, c)
				}
			}
			if k > 0 && path[k-1] != nil && len(cs) > 0 {
				if inBody(n.Body, path[k-1]) {
					conds = append(conds, cs)
				}
			}
		case *ast.FuncDecl, *ast.FuncLit:
			k = len(path)
		}
	}
	return conds
}

func inBody(list []ast.Stmt, n ast.Node) bool {
	for _, s := range list {
		if s == n {
			return true
		}
	}
	return false
}

// condSitesOf returns the condition sites of an if or for statement.
func (r *FailingRun) condSitesOf(stmt ast.Stmt) []*instrument.Site {
	if _, isSwitch := stmt.(*ast.SwitchStmt); isSwitch {
		return nil
	}
	var out []*instrument.Site
	for _, s := range r.conditions().byStmt[stmt] {
		if s.Tag == nil {
			out = append(out, s)
		}
	}
	return out
}

// condSiteOfExpr returns the condition site recording x, a case
// expression.
func (r *FailingRun) condSiteOfExpr(x ast.Expr) *instrument.Site {
	return r.conditions().byExpr[x]
}

// conditionIndex finds condition sites by statement and by expression.
type conditionIndex struct {
	byStmt map[ast.Stmt][]*instrument.Site
	byExpr map[ast.Expr]*instrument.Site
}

// conditions indexes the program's condition sites the first time it is
// asked: a lookup per executed site would otherwise scan every site.
func (r *FailingRun) conditions() *conditionIndex {
	if r.conds != nil {
		return r.conds
	}
	r.conds = &conditionIndex{byStmt: map[ast.Stmt][]*instrument.Site{}, byExpr: map[ast.Expr]*instrument.Site{}}
	for _, s := range r.prog.Sites {
		if s.Kind != instrument.KindCond {
			continue
		}
		if s.Stmt != nil {
			r.conds.byStmt[s.Stmt] = append(r.conds.byStmt[s.Stmt], s)
		}
		if _, ok := r.conds.byExpr[s.Expr]; !ok && s.Expr != nil {
			r.conds.byExpr[s.Expr] = s
		}
	}
	return r.conds
}

type potentialDep struct {
	event int
	name  string
}

// potential returns the condition instances between the last definition
// of each local the instance at i reads and i itself, whose direction not
// taken would have assigned that local.
func (r *FailingRun) potential(i int) []potentialDep {
	s := r.prog.Sites[r.trace[i].Site]
	fs := r.syntax(s)
	if fs == nil || s.Expr == nil {
		return nil
	}
	var reads []*types.Var
	ast.Inspect(s.Expr, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := s.Info.Uses[id].(*types.Var); ok && !v.IsField() && v.Parent() != nil && v.Parent() != v.Pkg().Scope() {
				if !slices.Contains(reads, v) {
					reads = append(reads, v)
				}
			}
		}
		return true
	})
	act := r.trace[i].Inst.Act
	var out []potentialDep
	for _, v := range reads {
		for j := i - 1; j >= 0; j-- {
			ev := r.trace[j]
			if ev.Site < 0 || int(ev.Site) >= len(r.prog.Sites) || ev.Inst.Act != act {
				continue
			}
			d := r.prog.Sites[ev.Site]
			if d.Fn != s.Fn {
				continue
			}
			if d.Obj == v && (d.Kind == instrument.KindAssign || d.Kind == instrument.KindIncDec || d.Kind == instrument.KindDef || d.Kind == instrument.KindParam) {
				break // the definition the statement read
			}
			if d.Kind == instrument.KindCond && d.Stmt != nil && assignsIn(notTaken(d, ev.Value != 0), s.Info, v) {
				out = append(out, potentialDep{j, v.Name()})
			}
		}
	}
	return out
}

// notTaken is the code a condition instance's other direction would have
// run: the else of an if taken, the body of an if or loop not entered, the
// body of a case not chosen.
func notTaken(cond *instrument.Site, taken bool) []ast.Node {
	switch st := cond.Stmt.(type) {
	case *ast.IfStmt:
		if taken {
			if st.Else != nil {
				return []ast.Node{st.Else}
			}
			return nil
		}
		return []ast.Node{st.Body}
	case *ast.ForStmt:
		if !taken {
			return []ast.Node{st.Body}
		}
	case *ast.SwitchStmt:
		if taken {
			return nil
		}
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			for _, x := range cc.List {
				if x == cond.Expr {
					var out []ast.Node
					for _, b := range cc.Body {
						out = append(out, b)
					}
					return out
				}
			}
		}
	}
	return nil
}

// assignsIn reports whether code assigns v (=, op=, ++, --).
func assignsIn(code []ast.Node, info *types.Info, v *types.Var) bool {
	found := false
	for _, n := range code {
		ast.Inspect(n, func(n ast.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if id, ok := ast.Unparen(l).(*ast.Ident); ok && (info.Uses[id] == v || (n.Tok != token.DEFINE && info.Defs[id] == v)) {
						found = true
					}
				}
			case *ast.IncDecStmt:
				if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && info.Uses[id] == v {
					found = true
				}
			case *ast.FuncLit:
				return false
			}
			return !found
		})
	}
	return found
}
