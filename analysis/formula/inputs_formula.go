//go:build cgo

package formula

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// PathFormula is a recorded run replayed with the callback's parameters as
// free inputs: every site constraint of the angelic formula (with each
// statement as written), the run's path conditions in the order it met
// them, and its specification kept apart.
type PathFormula struct {
	s      *InputSession
	z      *z3.Context
	enc    *encoder
	act    int32                    // the callback activation whose parameters are the inputs
	inputs map[int]z3.Expr          // input variable by parameter index
	sites  map[int]*instrument.Site // the parameter site by index
	orig   map[int]int64            // the run's input values
	conds  []pathCond               // in trace order
	specs  []z3.Bool                // what the run must meet to pass
	asWas  []z3.Bool                // every statement as written (not ab)
	siteOf map[uint32]int32         // an "as written" literal's site
	solver *z3.Optimize             // path conditions 0..next-1 asserted
	next   int                      // the first condition not asserted yet
}

type pathCond struct {
	v     z3.Bool
	taken bool
	site  *instrument.Site
}

// Formula replays a recorded run with the callback's parameters as inputs.
// The run must have entered the callback; timeout bounds each solver call.
func (s *InputSession) Formula(run *RecordedRun, timeout time.Duration) (*PathFormula, error) {
	if run.Truncated {
		return nil, fmt.Errorf("the run is longer than %d recorded events", instrument.MaxTraceEvents)
	}
	z, err := z3.NewContext(z3.Config{Timeout: timeout})
	if err != nil {
		return nil, err
	}
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		z.Close()
		return nil, err
	}
	f := &PathFormula{s: s, z: z, act: -1, inputs: map[int]z3.Expr{}, sites: map[int]*instrument.Site{}, orig: map[int]int64{}, siteOf: map[uint32]int32{}}
	enc := NewEncoder(z, enum, s.prog)
	enc.deadline = time.Now().Add(4 * timeout)
	enc.param = func(st *instrument.Site, ev instrument.Event) (z3.Expr, bool) {
		if st.Fn != s.cb || s.params[st.Index] != st || (f.act >= 0 && ev.Inst.Act != f.act) {
			return z3.Expr{}, false
		}
		f.act = ev.Inst.Act
		v := z.Const(fmt.Sprintf("input%d", st.Index), enc.constant(st.Typ, 0).Sort())
		f.inputs[st.Index], f.sites[st.Index], f.orig[st.Index] = v, st, ev.Value
		return v, true
	}
	enc.spec = func(spec z3.Bool, _ instrument.InstKey) { f.specs = append(f.specs, spec) }
	f.enc = enc
	if err := enc.Replay(run.trace, nil, true, run.panicAt); err != nil {
		z.Close()
		return nil, fmt.Errorf("replaying the run: %w", err)
	}
	if len(f.inputs) == 0 && s.cb != nil {
		z.Close()
		return nil, fmt.Errorf("the run did not enter the fuzz function with integer, float or Boolean arguments")
	}
	for _, ev := range run.trace {
		if int(ev.Site) >= len(s.prog.Sites) {
			continue
		}
		st := s.prog.Sites[ev.Site]
		if st.Kind != instrument.KindCond {
			continue
		}
		if v, ok := enc.vars[instrument.InstKey{Site: st.Id, Inst: ev.Inst}]; ok {
			f.conds = append(f.conds, pathCond{v: v.AsBool(), taken: ev.Value != 0, site: st})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(enc.ab)) {
		lit := enc.ab[id].Not()
		f.asWas = append(f.asWas, lit)
		f.siteOf[lit.ID()] = id
	}
	return f, nil
}

// Close releases the formula's solver.
func (f *PathFormula) Close() { f.z.Close() }

// Inputs returns the run's values of the modelled inputs, by index.
func (f *PathFormula) Inputs() []InputValue {
	var out []InputValue
	for _, i := range slices.Sorted(maps.Keys(f.orig)) {
		out = append(out, InputValue{Index: i, Value: f.orig[i]})
	}
	return out
}

// Conditions returns the run's path conditions in the order it met them.
func (f *PathFormula) Conditions() []Condition {
	out := make([]Condition, len(f.conds))
	for i, c := range f.conds {
		out[i] = Condition{File: c.site.File, Line: c.site.Pos.Line, Text: c.site.Text, Taken: c.taken, Test: c.site.Hard, Check: c.site.FailsWhen != 0}
	}
	return out
}

func (c pathCond) guard() z3.Bool {
	if c.taken {
		return c.v
	}
	return c.v.Not()
}

// Restart lets Flip start again from the first path condition.
func (f *PathFormula) Restart() {
	f.solver, f.next = nil, 0
}

// Flip returns inputs on which the program as written takes the run's
// first i path conditions as the run did and the next the other way, as
// near the run's own inputs as the solver finds them, and differing from
// each vector in exclude; nil when there are none, and ErrUnknown when the
// solver gave up. Calls must come with i ascending (until Restart): the
// prefix stays asserted.
func (f *PathFormula) Flip(i int, exclude [][]InputValue) ([]InputValue, error) {
	if i < 0 || i >= len(f.conds) {
		return nil, fmt.Errorf("no path condition %d (the run has %d)", i, len(f.conds))
	}
	if f.solver == nil {
		s, err := f.z.NewOptimize()
		if err != nil {
			return nil, err
		}
		if err := s.SetTimeout(f.z.Timeout()); err != nil {
			return nil, err
		}
		if err := s.Assert(f.enc.hards...); err != nil {
			return nil, err
		}
		if err := s.Assert(f.asWas...); err != nil {
			return nil, err
		}
		f.solver = s
	}
	if i < f.next {
		return nil, fmt.Errorf("path condition %d is asserted already: flips come in ascending order", i)
	}
	for ; f.next < i; f.next++ {
		if err := f.solver.Assert(f.conds[f.next].guard()); err != nil {
			return nil, err
		}
	}
	if err := f.solver.Push(); err != nil {
		return nil, err
	}
	defer f.solver.Pop()
	if err := f.solver.Assert(f.conds[i].guard().Not()); err != nil {
		return nil, err
	}
	for _, ex := range exclude {
		var differs []z3.Bool
		for _, v := range ex {
			if x, ok := f.inputs[v.Index]; ok {
				differs = append(differs, x.Eq(f.enc.constant(f.sites[v.Index].Typ, v.Value)).Not())
			}
		}
		if len(differs) > 0 {
			if err := f.solver.Assert(f.z.Or(differs...)); err != nil {
				return nil, err
			}
		}
	}
	// As near the run's inputs as can be: as few changed as can be, each
	// moved as little: solver values far away are hard to read and leave
	// the failing run's neighbourhood the searches look in.
	if err := f.nearby(); err != nil {
		return nil, err
	}
	r, err := f.solver.Check()
	if err != nil {
		return nil, err
	}
	switch r {
	case z3.Unsat:
		return nil, nil
	case z3.Unknown:
		return nil, fmt.Errorf("%w: %s", ErrUnknown, f.solver.ReasonUnknown())
	}
	m, err := f.solver.Model()
	if err != nil {
		return nil, err
	}
	var out []InputValue
	for _, idx := range slices.Sorted(maps.Keys(f.inputs)) {
		v, err := modelValue(m, f.inputs[idx], f.sites[idx])
		if err != nil {
			return nil, fmt.Errorf("reading input %d: %w", idx, err)
		}
		out = append(out, InputValue{Index: idx, Value: v.N})
	}
	return out, nil
}

// nearby adds soft constraints that keep each input at the run's value
// or near it, and a float finite and short.
func (f *PathFormula) nearby() error {
	for _, idx := range slices.Sorted(maps.Keys(f.inputs)) {
		x, st := f.inputs[idx], f.sites[idx]
		o := f.enc.constant(st.Typ, f.orig[idx])
		if err := f.solver.AssertSoft(x.Eq(o), 64, ""); err != nil {
			return err
		}
		switch instrument.ValueKind(st.Typ) {
		case 'i':
			n, _ := instrument.Bits(st.Typ)
			for _, r := range []int64{1, 2, 4, 8, 16, 64, 256, 1024, 1 << 16} {
				// |x - o| <= r, in wrapping arithmetic: x - o + r <= 2r unsigned.
				d := x.AsBV().Sub(o.AsBV()).Add(f.z.BVInt(r, n))
				if err := f.solver.AssertSoft(d.ULE(f.z.BVInt(2*r, n)), 1, ""); err != nil {
					return err
				}
			}
		case 'f':
			if err := f.enc.readableFloat(f.solver, x.AsFloat(), st.Typ); err != nil {
				return err
			}
		}
	}
	return nil
}

// Core returns the statements of the code under test in minimal unsat
// cores of the run's specification: with the run's inputs and every
// statement as written the specification cannot hold, and dropping any
// statement of a core makes it satisfiable. When a core's checks are met
// by leaving them out, the next core is sought among the remaining checks
// (several violated checks give the union of their cores). It returns no
// statement when the formula does not explain the failure.
func (f *PathFormula) Core() ([]Suspect, error) {
	if len(f.specs) == 0 {
		return nil, nil
	}
	s, err := f.z.NewSolver()
	if err != nil {
		return nil, err
	}
	if err := s.Assert(f.enc.hards...); err != nil {
		return nil, err
	}
	for idx, x := range f.inputs {
		if err := s.Assert(x.Eq(f.enc.constant(f.sites[idx].Typ, f.orig[idx]))); err != nil {
			return nil, err
		}
	}
	var checks []z3.Bool
	isCheck := map[uint32]bool{}
	for j, spec := range f.specs {
		p := f.z.BoolConst(fmt.Sprintf("check%d", j))
		if err := s.Assert(p.Implies(spec)); err != nil {
			return nil, err
		}
		checks = append(checks, p)
		isCheck[p.ID()] = true
	}
	in := map[int32]bool{}
	for round := 0; round < 8 && len(checks) > 0; round++ {
		r, err := s.CheckAssumptions(append(slices.Clone(f.asWas), checks...)...)
		if err != nil {
			return nil, err
		}
		if r != z3.Unsat {
			break
		}
		core, err := s.UnsatCore()
		if err != nil {
			return nil, err
		}
		if core, err = s.MinimalCore(core); err != nil {
			return nil, err
		}
		violated := map[uint32]bool{}
		for _, lit := range core {
			if isCheck[lit.ID()] {
				violated[lit.ID()] = true
			} else if id, ok := f.siteOf[lit.ID()]; ok {
				in[id] = true
			}
		}
		if len(violated) == 0 {
			break // the statements alone are inconsistent: nothing more to learn
		}
		checks = slices.DeleteFunc(checks, func(p z3.Bool) bool { return violated[p.ID()] })
	}
	var out []Suspect
	for _, id := range slices.Sorted(maps.Keys(in)) {
		st := f.s.prog.Sites[id]
		out = append(out, Suspect{File: st.File, Line: st.Pos.Line, EndLine: st.End.Line, Text: st.Text})
	}
	return out, nil
}
