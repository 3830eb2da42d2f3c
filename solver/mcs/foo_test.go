//go:build cgo

package mcs

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/solver/z3"
)

// configs are the enumerator set-ups every behavioural test runs on.
var configs = []Options{
	{Algorithm: HittingSet},
	{Algorithm: Levels},
	{Algorithm: HittingSet, Logic: GeneralLogic},
	{Algorithm: Levels, Logic: GeneralLogic},
	{Algorithm: OptimizeBlocking},
}

func configName(o Options) string {
	if o.Logic == "" {
		return o.Algorithm.String()
	}
	return o.Algorithm.String() + "/" + o.Logic
}

func newContext(t testing.TB) *z3.Context {
	t.Helper()
	ctx, err := z3.NewContext(z3.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctx.Close)
	return ctx
}

// fooProgram is the AgxFaults worked example (shared/notes/agxfaults.md,
// §6) as bit-vector constraints over Go int (64 bits):
//
//	1: b = x + y
//	2: if x > 0 {      // guard g1
//	3:     a = x       // the fault: should be 2*x
//	   } else {
//	4:     a = 0
//	   }
//	6: if a >= y {     // guard g2
//	7:     b = y - x
//	   }
//	8: return b
//
// Clause ci is "ab_i ∨ statement i" with soft ¬ab_i; the phis c5 and c8
// are hard implications, one per encoded incoming edge.
type fooProgram struct {
	ctx                               *z3.Context
	x, y, b1, a1, a2, a3, b2, b3, foo z3.BV
	g1, g2                            z3.Bool
	ab                                map[string]z3.Bool
}

func newFoo(ctx *z3.Context) *fooProgram {
	bv := func(n string) z3.BV { return ctx.BVConst(n, 64) }
	p := &fooProgram{ctx: ctx, x: bv("x0"), y: bv("y0"), b1: bv("b1"), a1: bv("a1"), a2: bv("a2"),
		a3: bv("a3"), b2: bv("b2"), b3: bv("b3"), foo: bv("foo"),
		g1: ctx.BoolConst("g1"), g2: ctx.BoolConst("g2"), ab: map[string]z3.Bool{}}
	for _, c := range []string{"c1", "c2", "c3", "c4", "c6", "c7", "c9"} {
		p.ab[c] = ctx.BoolConst("ab_" + c)
	}
	return p
}

func (p *fooProgram) stmt(c string, body z3.Bool) z3.Bool { return p.ctx.Or(p.ab[c], body) }

func (p *fooProgram) num(v int64) z3.Expr { return p.ctx.BVInt(v, 64).Expr }

// trace is the formula of the failing run foo(3, 5) alone: lines 1, 2,
// 3, 6, 8 and the phi edges taken (g1 → a3 = a1, ¬g2 → b3 = b1).
func (p *fooProgram) trace() (hard []z3.Bool, soft map[string]z3.Bool) {
	hard = []z3.Bool{
		p.x.Eq(p.num(3)), p.y.Eq(p.num(5)), p.foo.Eq(p.num(2)), // IN and AS
		p.g1.Implies(p.a3.Eq(p.a1)),       // c5, explored edge
		p.g2.Not().Implies(p.b3.Eq(p.b1)), // c8, explored edge
	}
	soft = map[string]z3.Bool{
		"c1": p.stmt("c1", p.b1.Eq(p.x.Add(p.y))),
		"c2": p.stmt("c2", p.g1.Iff(p.ctx.BVInt(0, 64).SLT(p.x))),
		"c3": p.stmt("c3", p.a1.Eq(p.x)),
		"c6": p.stmt("c6", p.g2.Iff(p.y.SLE(p.a3))),
		"c9": p.stmt("c9", p.foo.Eq(p.b3)),
	}
	return hard, soft
}

// rest completes the program formula: lines 4 and 7 and the other phi
// edges.
func (p *fooProgram) rest() (hard []z3.Bool, soft map[string]z3.Bool) {
	hard = []z3.Bool{
		p.g1.Not().Implies(p.a3.Eq(p.a2)),
		p.g2.Implies(p.b3.Eq(p.b2)),
	}
	soft = map[string]z3.Bool{
		"c4": p.stmt("c4", p.a2.Eq(p.num(0))),
		"c7": p.stmt("c7", p.b2.Eq(p.y.Sub(p.x))),
	}
	return hard, soft
}

func addAll(t *testing.T, e *Enumerator[string], p *fooProgram, hard []z3.Bool, soft map[string]z3.Bool) {
	t.Helper()
	if err := e.AddHard(hard...); err != nil {
		t.Fatal(err)
	}
	for _, tag := range slices.Sorted(mapKeys(soft)) {
		if _, err := e.AddSoft(tag, p.ab[tag].Not()); err != nil {
			t.Fatal(err)
		}
		if err := e.AddHard(soft[tag]); err != nil {
			t.Fatal(err)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func collect(t *testing.T, e *Enumerator[string], b Bounds) ([]string, []Correction[string]) {
	t.Helper()
	var keys []string
	var all []Correction[string]
	last := 0
	for c, err := range e.Enumerate(context.Background(), b) {
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Tags) < last {
			t.Errorf("%v reported after a set of size %d", c.Tags, last)
		}
		last = len(c.Tags)
		tags := slices.Clone(c.Tags)
		sort.Strings(tags)
		keys = append(keys, "{"+strings.Join(tags, ",")+"}")
		all = append(all, c)
	}
	sort.Strings(keys)
	return keys, all
}

func TestFooProgramFormulaGivesTheFiveFixCandidates(t *testing.T) {
	for _, cfg := range configs {
		t.Run(configName(cfg), func(t *testing.T) {
			ctx := newContext(t)
			p := newFoo(ctx)
			e, err := New[string](ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			h1, s1 := p.trace()
			h2, s2 := p.rest()
			addAll(t, e, p, append(h1, h2...), s1)
			addAll(t, e, p, nil, s2)
			got, all := collect(t, e, Bounds{MaxSize: 3})
			want := []string{"{c1}", "{c2,c4}", "{c3}", "{c6}", "{c9}"}
			if !slices.Equal(got, want) {
				t.Fatalf("MCSs = %v, want %v", got, want)
			}
			// Validity conditions of the angelic values (notes' table).
			for _, c := range all {
				m := c.Model
				switch strings.Join(c.Tags, ",") {
				case "c3":
					if v, _ := m.Int64(p.a1); v < 5 {
						t.Errorf("{c3}: a1 = %d, want >= 5", v)
					}
				case "c2,c4":
					g1, _ := m.Bool(p.g1)
					a2, _ := m.Int64(p.a2)
					if g1 || a2 < 5 {
						t.Errorf("{c2,c4}: g1 = %v, a2 = %d; want false, >= 5", g1, a2)
					}
				case "c6":
					if g2, _ := m.Bool(p.g2); !g2 {
						t.Error("{c6}: g2 false")
					}
				case "c1":
					if v, _ := m.Int64(p.b1); v != 2 {
						t.Errorf("{c1}: b1 = %d", v)
					}
				}
			}
		})
	}
}

// TestFooIncrementalRefinement follows the AgxFaults run: the failing
// trace first, where {c2} alone is a candidate because the else-branch is
// unexplored (angelic); then the rest of the program is added to the same
// enumerator and the five candidates of the full formula remain.
func TestFooIncrementalRefinement(t *testing.T) {
	for _, cfg := range configs {
		t.Run(configName(cfg), func(t *testing.T) {
			ctx := newContext(t)
			p := newFoo(ctx)
			e, _ := New[string](ctx, cfg)
			h1, s1 := p.trace()
			addAll(t, e, p, h1, s1)
			got, _ := collect(t, e, Bounds{})
			if want := []string{"{c1}", "{c2}", "{c3}", "{c6}", "{c9}"}; !slices.Equal(got, want) {
				t.Fatalf("trace MCSs = %v, want %v", got, want)
			}
			// Report and block the deterministic ones, as Algorithm 1 does.
			for c, err := range e.Enumerate(context.Background(), Bounds{MaxSize: 1}) {
				if err != nil {
					t.Fatal(err)
				}
				if c.Tags[0] == "c9" || c.Tags[0] == "c1" {
					if err := e.Block(c); err != nil {
						t.Fatal(err)
					}
				}
			}
			h2, s2 := p.rest()
			addAll(t, e, p, h2, s2)
			got, _ = collect(t, e, Bounds{})
			if want := []string{"{c2,c4}", "{c3}", "{c6}"}; !slices.Equal(got, want) {
				t.Fatalf("refined MCSs = %v, want %v", got, want)
			}
		})
	}
}

func TestStreamingAndLimits(t *testing.T) {
	ctx := newContext(t)
	p := newFoo(ctx)
	e, _ := New[string](ctx, Options{})
	h1, s1 := p.trace()
	h2, s2 := p.rest()
	addAll(t, e, p, append(h1, h2...), s1)
	addAll(t, e, p, nil, s2)

	n := 0
	for _, err := range e.Enumerate(context.Background(), Bounds{}) {
		if err != nil {
			t.Fatal(err)
		}
		if err := e.AddHard(ctx.True()); err == nil {
			t.Error("AddHard accepted during an enumeration")
		}
		n++
		break
	}
	if n != 1 {
		t.Fatalf("got %d before break", n)
	}
	if got, _ := collect(t, e, Bounds{MaxSize: 1}); len(got) != 4 {
		t.Errorf("MaxSize 1: %v", got)
	}
	var last error
	for _, err := range e.Enumerate(context.Background(), Bounds{Budget: time.Nanosecond}) {
		last = err
	}
	if !errors.Is(last, ErrBudgetExhausted) {
		t.Errorf("1ns budget: %v", last)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range e.Enumerate(cancelled, Bounds{}) {
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Errorf("cancelled: %v", last)
	}
	for c, err := range e.Enumerate(context.Background(), Bounds{}) {
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Block(c); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := collect(t, e, Bounds{}); len(got) != 0 {
		t.Errorf("after blocking everything: %v", got)
	}
	if err := e.BlockSoft([]int{99}); err == nil {
		t.Error("blocking an unknown soft constraint accepted")
	}
	if _, err := e.AddSoft("bad", ctx.BVConst("q", 8).Add(ctx.BVConst("r", 16)).Eq(p.num(1)).Not()); err == nil {
		t.Error("ill-sorted soft constraint accepted")
	}
}
