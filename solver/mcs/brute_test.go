//go:build cgo

package mcs

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/solver/z3"
)

// Random small instances over three 4-bit unsigned variables, small enough
// to decide by trying all 4096 assignments.
const (
	numVars = 3
	varBits = 4
)

type atom struct {
	kind    int
	v, w    int
	c, d    uint8
	negated bool
}

func (a atom) eval(vals [numVars]uint8) bool {
	x, y := vals[a.v], vals[a.w]
	var r bool
	switch a.kind {
	case 0:
		r = x == a.c
	case 1:
		r = x < y
	case 2:
		r = (x+y)&0xf == a.c
	case 3:
		r = x&a.c == a.d&a.c
	default:
		r = x <= a.c
	}
	return r != a.negated
}

func (a atom) build(ctx *z3.Context, vars [numVars]z3.BV) z3.Bool {
	x, y := vars[a.v], vars[a.w]
	num := func(v uint8) z3.BV { return ctx.BVUint(uint64(v), varBits) }
	var r z3.Bool
	switch a.kind {
	case 0:
		r = x.Eq(num(a.c))
	case 1:
		r = x.ULT(y)
	case 2:
		r = x.Add(y).Eq(num(a.c))
	case 3:
		r = x.And(num(a.c)).Eq(num(a.d & a.c))
	default:
		r = x.ULE(num(a.c))
	}
	if a.negated {
		r = r.Not()
	}
	return r
}

type clause []atom

func (c clause) eval(vals [numVars]uint8) bool {
	for _, a := range c {
		if a.eval(vals) {
			return true
		}
	}
	return false
}

func (c clause) build(ctx *z3.Context, vars [numVars]z3.BV) z3.Bool {
	lits := make([]z3.Bool, len(c))
	for i, a := range c {
		lits[i] = a.build(ctx, vars)
	}
	return ctx.Or(lits...)
}

func randomClause(rng *rand.Rand) clause {
	c := make(clause, 1+rng.IntN(2))
	for i := range c {
		c[i] = atom{kind: rng.IntN(5), v: rng.IntN(numVars), w: rng.IntN(numVars),
			c: uint8(rng.IntN(16)), d: uint8(rng.IntN(16)), negated: rng.IntN(4) == 0}
	}
	return c
}

// bruteForce lists the minimal correction subsets (bit masks over soft
// indices) of size <= maxSize that contain no blocked set.
func bruteForce(hard, soft []clause, blocked []uint32, maxSize int) []uint32 {
	n := len(soft)
	full := uint32(1)<<n - 1
	sat := make([]bool, 1<<n) // sat[m]: some model satisfies the hard clauses and every soft in m
	for v := range 1 << (numVars * varBits) {
		var vals [numVars]uint8
		for i := range vals {
			vals[i] = uint8(v>>(i*varBits)) & 0xf
		}
		if !all(hard, vals) {
			continue
		}
		var m uint32
		for i, c := range soft {
			if c.eval(vals) {
				m |= 1 << i
			}
		}
		sat[m] = true
	}
	for m := int(full); m >= 0; m-- { // close downwards: subsets of satisfiable sets are satisfiable
		for i := range n {
			if m&(1<<i) == 0 && sat[m|1<<i] {
				sat[m] = true
			}
		}
	}
	candidate := func(r uint32) bool {
		if !sat[full&^r] {
			return false
		}
		for _, b := range blocked {
			if r&b == b {
				return false
			}
		}
		return true
	}
	var out []uint32
	for r := uint32(0); r <= full; r++ {
		if bits.OnesCount32(r) > maxSize || !candidate(r) {
			continue
		}
		minimal := true
		for i := range n {
			if r&(1<<i) != 0 && candidate(r&^(1<<i)) {
				minimal = false
				break
			}
		}
		if minimal {
			out = append(out, r)
		}
	}
	return out
}

func all(cs []clause, vals [numVars]uint8) bool {
	for _, c := range cs {
		if !c.eval(vals) {
			return false
		}
	}
	return true
}

type harness struct {
	t          *testing.T
	ctx        *z3.Context
	vars       [numVars]z3.BV
	e          *Enumerator[int]
	hard, soft []clause
	blocked    []uint32
}

func (h *harness) addHard(c clause) {
	h.hard = append(h.hard, c)
	if err := h.e.AddHard(c.build(h.ctx, h.vars)); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) addSoft(c clause) {
	i, err := h.e.AddSoft(len(h.soft), c.build(h.ctx, h.vars))
	if err != nil || i != len(h.soft) {
		h.t.Fatal(i, err)
	}
	h.soft = append(h.soft, c)
}

// compare enumerates and checks the sets, their order and their models
// against brute force; it returns the reported masks.
func (h *harness) compare(what string, maxSize int) []uint32 {
	h.t.Helper()
	var got []uint32
	last := 0
	for c, err := range h.e.Enumerate(context.Background(), Bounds{MaxSize: maxSize}) {
		if err != nil {
			h.t.Fatalf("%s: %v", what, err)
		}
		var m uint32
		for k, i := range c.Soft {
			if c.Tags[k] != i {
				h.t.Fatalf("%s: tag %d for soft %d", what, c.Tags[k], i)
			}
			m |= 1 << i
		}
		if len(c.Soft) < last {
			h.t.Errorf("%s: size %d after size %d", what, len(c.Soft), last)
		}
		last = len(c.Soft)
		var vals [numVars]uint8
		for i, v := range h.vars {
			u, err := c.Model.Uint64(v)
			if err != nil {
				h.t.Fatal(err)
			}
			vals[i] = uint8(u)
		}
		if !all(h.hard, vals) {
			h.t.Errorf("%s: model %v of %v violates a hard clause", what, vals, c.Soft)
		}
		for i, s := range h.soft {
			if m&(1<<i) == 0 && !s.eval(vals) {
				h.t.Errorf("%s: model %v of %v violates kept soft %d", what, vals, c.Soft, i)
			}
		}
		got = append(got, m)
	}
	limit := maxSize
	if limit == 0 {
		limit = len(h.soft)
	}
	want := bruteForce(h.hard, h.soft, h.blocked, limit)
	gotSorted := slices.Sorted(slices.Values(got))
	if !slices.Equal(gotSorted, want) {
		h.t.Errorf("%s: MCS masks %s, brute force %s", what, masks(gotSorted), masks(want))
	}
	return got
}

func masks(ms []uint32) string {
	out := ""
	for _, m := range ms {
		out += fmt.Sprintf("%b ", m)
	}
	return out
}

// checkRandomInstance runs one random scenario: enumerate, block, bound,
// grow the formula, enumerate again.
func checkRandomInstance(t *testing.T, cfg Options, seed uint64, nSoft, nHard int) {
	ctx := newContext(t)
	rng := rand.New(rand.NewPCG(seed, 99))
	e, err := New[int](ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ctx: ctx, e: e}
	for i := range h.vars {
		h.vars[i] = ctx.BVConst(fmt.Sprintf("v%d", i), varBits)
	}
	for range nHard {
		h.addHard(randomClause(rng))
	}
	for range nSoft {
		h.addSoft(randomClause(rng))
	}
	got := h.compare("initial", 0)
	if len(got) > 0 && got[0] != 0 {
		var idx []int
		for i := range nSoft {
			if got[0]&(1<<i) != 0 {
				idx = append(idx, i)
			}
		}
		if err := e.BlockSoft(idx); err != nil {
			t.Fatal(err)
		}
		h.blocked = append(h.blocked, got[0])
	}
	h.compare("blocked, size <= 2", 2)
	h.addSoft(randomClause(rng))
	h.addHard(randomClause(rng))
	h.compare("grown", 0)
}

func TestMCSAgainstBruteForce(t *testing.T) {
	for _, cfg := range configs {
		t.Run(configName(cfg), func(t *testing.T) {
			for seed := range uint64(12) {
				checkRandomInstance(t, cfg, seed, 3+int(seed%6), int(seed%3))
			}
		})
	}
}

func FuzzMCSAgainstBruteForce(f *testing.F) {
	f.Add(uint64(1), uint8(6), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, nSoft, nHard, config uint8) {
		checkRandomInstance(t, configs[int(config)%len(configs)], seed, 1+int(nSoft)%9, int(nHard)%4)
	})
}
