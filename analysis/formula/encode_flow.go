//go:build cgo

package formula

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"

	"github.com/faultline-go/faultline/solver/z3"
)

// sameSort reports whether v has a term of sort s.
func sameSort(v sv, s z3.Sort) bool {
	return v.hasTerm() && v.t.Sort().String() == s.String()
}

// one is 1 in type t, for x++ and x--.
func (e *encoder) one(t types.Type) instrument.Value {
	if instrument.ValueKind(t) == 'f' {
		return instrument.FloatValue(t, 1)
	}
	return instrument.Value{N: 1}
}

// component is the term of one result of a call with several: what the
// callee returned at that index, or the recorded value when it was not
// replayed or the result is not modelled there.
func (e *encoder) component(a *activation, s *instrument.Site, ev instrument.Event) sv {
	if r, ok := a.calls[s.Expr.(*ast.CallExpr)][s.Index]; ok && sameSort(r, e.sortOf(s.Typ)) {
		return r
	}
	return e.lit(s.Typ, instrument.ValueOf(ev))
}

// caseTerm is the condition of a case of a tagged switch: the tag, as the
// switch last evaluated it, equals the case value.
func (e *encoder) caseTerm(a *activation, s *instrument.Site) sv {
	tag, ok := a.tags[s.Tag.Id]
	if !ok {
		tag = e.freshOf(s.Tag.Typ)
	}
	return e.binary(token.EQL, tag, e.sym(a, s, s.Expr, nil), s.Tag.Typ, s.Info.TypeOf(s.Expr))
}

// branch records a condition instance: its direction guards what follows,
// and a failure-guarding test condition must take the passing direction.
func (e *encoder) branch(a *activation, s *instrument.Site, ev instrument.Event, v z3.Bool, first bool) error {
	k := instrument.InstKey{Site: s.Id, Inst: ev.Inst}
	e.explored[k] |= direction(ev.Value)
	guard := v
	if ev.Value == 0 {
		guard = v.Not()
	}
	if s.FailsWhen != 0 {
		pass := s.FailsWhen == 2
		if first {
			e.checks++
			if (ev.Value != 0) != pass {
				e.Failing++
			}
		}
		if err := e.addSpec(v.Eq(e.z.BoolVal(pass).Expr), first, instrument.InstKey{}); err != nil {
			return err
		}
	}
	top := -1
	for i := len(a.frames) - 1; i >= 0; i-- {
		if a.frames[i].cond == s {
			top = i
			break
		}
	}
	if _, loop := s.Stmt.(*ast.ForStmt); loop && top >= 0 {
		for len(a.frames) > top+1 {
			if err := e.reconverge(a); err != nil {
				return err
			}
		}
	} else {
		a.frames = append(a.frames, frame{cond: s, inst: ev.Inst, before: a.pc, escapes: s.Escapes})
	}
	if r, ok := e.earlyReturn(a, s, ev.Value != 0); ok {
		r.cond, r.guard = k, e.z.And(a.pc, guard.Not())
		a.early = append(a.early, r)
	}
	a.pc = e.z.And(a.pc, guard)
	return nil
}

// earlyReturn gives the results of the branch an if condition did not take
// when that branch is a return statement alone, of expressions the formula
// can evaluate where the condition was: without it, the results of every
// path that leaves the recorded one are free, and any value change that
// reaches an if err != nil { return ... } makes its function return
// whatever the check needs, a correction that only a forced run disproves.
// A function that defers a call is left out (the call may change its
// results after the return), and so are results the formula does not
// model. taken is the direction the run took.
func (e *encoder) earlyReturn(a *activation, s *instrument.Site, taken bool) (earlyReturn, bool) {
	ifs, ok := s.Stmt.(*ast.IfStmt)
	if !ok || ifs.Cond != s.Expr || a.fn.Defers {
		return earlyReturn{}, false
	}
	var other ast.Stmt = ifs.Body
	if taken {
		other = ifs.Else
	}
	block, ok := other.(*ast.BlockStmt)
	if !ok || len(block.List) == 0 {
		return earlyReturn{}, false
	}
	ret, ok := block.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != len(a.fn.Results) || len(ret.Results) == 0 {
		return earlyReturn{}, false // a bare return, or return f() of several results
	}
	// Nothing of the recorded path is read there: only the locals, as
	// they were at the condition.
	scratch := &activation{fn: a.fn, env: a.env, leaves: map[int32]sv{}, calls: map[*ast.CallExpr]map[int]sv{}}
	terms := map[int]sv{}
	for i, x := range ret.Results {
		t := a.fn.Results[i]
		if instrument.ValueKind(t) == 0 {
			continue
		}
		v := e.sym(scratch, s, x, nil)
		if !sameSort(v, e.sortOf(t)) {
			continue
		}
		terms[i] = v
	}
	return earlyReturn{terms: terms}, len(terms) > 0
}

// bindEarly binds a returned value r (the return instance rk, result index)
// to what each early return of the activation so far would have returned
// under its guard; the guards exclude the path that reached rk.
func (e *encoder) bindEarly(a *activation, rk instrument.InstKey, index int, r sv) error {
	for _, er := range a.early {
		v, ok := er.terms[index]
		if !ok || e.earlyBound[[2]instrument.InstKey{rk, er.cond}] {
			continue
		}
		if err := e.addHard(er.guard.Implies(r.t.Eq(v.t))); err != nil {
			return err
		}
	}
	for _, er := range a.early {
		e.earlyBound[[2]instrument.InstKey{rk, er.cond}] = true
	}
	return nil
}

// reconverge pops the innermost frame: each local the statement may assign
// gets a join variable that equals its current value only under the path
// taken, so that other directions leave it free until they are explored.
func (e *encoder) reconverge(a *activation) error {
	f := a.frames[len(a.frames)-1]
	a.frames = a.frames[:len(a.frames)-1]
	for _, v := range f.cond.AssignedInside {
		cur, ok := a.env[v]
		if !ok {
			continue
		}
		if !cur.hasTerm() {
			delete(a.env, v)
			continue
		}
		jk := joinKey{f.cond.Id, f.inst, v}
		j, ok := e.joins[jk]
		if !ok {
			j = e.freshLike(cur).t
			e.joins[jk] = j
		}
		if err := e.addHard(a.pc.Implies(j.Eq(cur.t))); err != nil {
			return err
		}
		a.env[v] = sv{t: j, c: cur.c, known: cur.known}
	}
	if !f.escapes {
		a.pc = f.before
	}
	return nil
}

// opOfAssign is the binary operator of an op-assignment (+= is +), or
// token.ILLEGAL. go/token declares the two runs of tokens in the same
// order, as go/types relies on too; TestOpOfAssign checks it.
func opOfAssign(op token.Token) token.Token {
	if token.ADD_ASSIGN <= op && op <= token.AND_NOT_ASSIGN {
		return op + (token.ADD - token.ADD_ASSIGN)
	}
	return token.ILLEGAL
}

// mustNotPanic is the specification of a run that failed by a runtime
// panic: under the path that reached the panicking operation, its operands
// are in range (index below the length, slice bounds ordered up to the
// capacity, divisor non-zero). Operands the formula does not model are
// recorded values that panic, so there the path itself must change.
func (e *encoder) mustNotPanic(a *activation, s *instrument.Site, ev instrument.Event, first bool) error {
	k := instrument.InstKey{Site: s.Id, Inst: ev.Inst}
	limit := e.z.BVInt(ev.Value, 64)
	// A string or byte slice the formula models gives its length as a term.
	if s.Guard != instrument.GuardDiv && len(s.Bounds) > 0 {
		if x, ok := e.complete(a, s, s.Indexed); ok && instrument.IsSeq(s.Info.TypeOf(s.Indexed)) {
			limit = e.seqLen(x.t.AsSeq())
		}
	}
	// The operands in order, widened to 64 bits; unsigned comparison also
	// rules out negative values.
	var terms []z3.BV
	modelledAll := true
	for j, b := range s.Bounds {
		if b == nil {
			if j == 0 && s.Guard == instrument.GuardSlice {
				terms = append(terms, e.z.BVInt(0, 64)) // x[:hi]
			}
			continue // x[lo:]: the runtime recorded len(x) as the limit
		}
		t, ok := e.complete(a, s, b)
		if !ok {
			modelledAll = false
			break
		}
		_, signed := instrument.Bits(s.Info.TypeOf(b))
		if instrument.IsUntypedNumber(s.Info.TypeOf(b)) {
			signed = true
		}
		bv := t.t.AsBV()
		if bv.Bits() != 64 {
			bv = bv.Convert(64, signed)
		}
		terms = append(terms, bv)
	}
	safe := e.z.False()
	if modelledAll && len(terms) > 0 {
		switch s.Guard {
		case instrument.GuardIndex:
			safe = terms[0].ULT(limit)
		case instrument.GuardSlice:
			var chain []z3.Bool
			for j := 0; j+1 < len(terms); j++ {
				chain = append(chain, terms[j].ULE(terms[j+1]))
			}
			safe = e.z.And(append(chain, terms[len(terms)-1].ULE(limit))...)
		case instrument.GuardDiv:
			safe = terms[0].NotEq(e.z.BVInt(0, 64).Expr)
		}
	}
	spec := a.pc.Implies(safe)
	if err := spec.Err(); err != nil {
		return fmt.Errorf("encoding the panic at %s: %w", s.Pos, err)
	}
	if first {
		e.checks++
		e.Failing++
	}
	return e.addSpec(spec, first, k)
}

// pendingSpec is a specification met while replaying a forced run.
type pendingSpec struct {
	spec  z3.Bool
	guard instrument.InstKey // the panicking operation it constrains, if any
}

// addSpec adds a specification. Those of the failing run are hard facts;
// those of a forced run wait until the replay ends (settleSpecs), since
// its recorded operands hold only under its forced values.
func (e *encoder) addSpec(spec z3.Bool, first bool, guard instrument.InstKey) error {
	if e.spec != nil {
		e.spec(spec, guard)
		return nil
	}
	if e.cause != nil {
		spec = e.cause.guardSpec(e, spec)
	}
	if !first {
		e.pending = append(e.pending, pendingSpec{spec, guard})
		return nil
	}
	if guard != (instrument.InstKey{}) {
		e.guarded[guard] = true
	}
	return e.addHard(spec)
}

// settleSpecs adds the specifications of a replayed forced run that the
// formula can meet. One it cannot meet whatever the locations' values
// fails on recorded, unmodelled operands: adding it would leave no
// correction at all, so it is left out and concrete is set for the caller
// to exclude the run's forced values instead.
func (e *encoder) settleSpecs() error {
	specs := e.pending
	e.pending = nil
	if len(specs) == 0 {
		return nil
	}
	s, err := e.z.NewSolver()
	if err != nil {
		return fmt.Errorf("creating solver: %w", err)
	}
	// Each check's work is bounded, and within the context's bound, the
	// test's: a forced run can bring many specifications. The time left
	// of the wall-clock cap is a safety net.
	s.SetCheckWork(result.WorkOf(5 * time.Second))
	if !e.deadline.IsZero() {
		left := time.Until(e.deadline)
		if left <= 0 {
			return instrument.ErrBudget
		}
		if err := s.SetTimeout(left); err != nil {
			return err
		}
	}
	if err := s.Assert(e.hards...); err != nil {
		return err
	}
	for _, p := range specs {
		if !e.deadline.IsZero() && time.Now().After(e.deadline) {
			return instrument.ErrBudget
		}
		r, err := s.CheckAssumptions(p.spec)
		if err != nil {
			return fmt.Errorf("checking a specification: %w", err)
		}
		if r == z3.Unknown && e.watch.Tripped() {
			return errSolverMemory // interrupted: the specification is neither met nor unmet
		}
		if r == z3.Unsat {
			e.concrete = true
			continue
		}
		if err := s.Assert(p.spec); err != nil {
			return err
		}
		if err := e.addSpec(p.spec, true, p.guard); err != nil {
			return err
		}
	}
	return nil
}

// complete builds the term of a guarded operand, or reports false when an
// operand it does not model was not recorded (its term would be free).
func (e *encoder) complete(a *activation, s *instrument.Site, x ast.Expr) (sv, bool) {
	var ok func(x ast.Expr) bool
	ok = func(x ast.Expr) bool {
		info := s.Info
		if info.Types[x].Value != nil {
			return true
		}
		if !instrument.Modelled(e.prog, info, a.fn, x) {
			id, wrapped := e.prog.LeafOf[x]
			if !wrapped {
				return false
			}
			_, recorded := a.leaves[id]
			return recorded
		}
		switch x := x.(type) {
		case *ast.ParenExpr:
			return ok(x.X)
		case *ast.Ident:
			v, isVar := info.ObjectOf(x).(*types.Var)
			_, bound := a.env[v]
			return isVar && bound
		case *ast.UnaryExpr:
			return ok(x.X)
		case *ast.BinaryExpr:
			return ok(x.X) && ok(x.Y)
		case *ast.IndexExpr:
			return ok(x.X) && ok(x.Index)
		case *ast.SliceExpr:
			for _, b := range []ast.Expr{x.X, x.Low, x.High, x.Max} {
				if b != nil && !ok(b) {
					return false
				}
			}
			return true
		case *ast.CallExpr:
			if _, bound := a.calls[x][0]; bound {
				return true
			}
			for _, arg := range x.Args {
				if !ok(arg) {
					return false
				}
			}
			return e.prog.Callee(info, x) == nil
		}
		return false
	}
	if x == nil || !ok(x) {
		return sv{}, false
	}
	v := e.sym(a, s, x, nil)
	return v, v.hasTerm()
}
