//go:build cgo

package formula

import (
	"fmt"
	"go/types"
	"slices"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// closestModel re-solves a correction for the angelic values nearest the
// concrete ones: with exactly its locations abnormal, it keeps as many
// instances at their recorded values as it can, and moves the others as
// little as it can; a float changed is kept finite and short (few
// significant bits: 100 rather than 99.99999999998568) instead of near. Arbitrary solver values are hard to read and tend to
// send loops astray in the verifying run. It returns nil when the optimiser
// gives up, and the correction's own model is used.
// The optimiser's work is bounded (optimizeBound); timeout is what is
// left of the wall-clock cap.
func (e *encoder) closestModel(c mcs.Correction[int32], timeout time.Duration) (*z3.Model, error) {
	opt, err := e.z.NewOptimize()
	if err != nil {
		return nil, fmt.Errorf("creating optimiser: %w", err)
	}
	if err := opt.SetTimeout(timeout); err != nil {
		return nil, err
	}
	opt.SetCheckWork(e.optimizeBound())
	if err := opt.Assert(e.hards...); err != nil {
		return nil, err
	}
	in := map[int32]bool{}
	for _, id := range c.Tags {
		in[id] = true
	}
	for _, id := range e.abIDs() {
		ab := e.ab[id]
		if in[id] {
			err = opt.Assert(ab)
		} else {
			err = opt.Assert(ab.Not())
		}
		if err != nil {
			return nil, err
		}
	}
	for _, id := range c.Tags {
		s := e.prog.Sites[id]
		for _, inst := range e.instOf[id] {
			k := instrument.InstKey{Site: id, Inst: inst}
			orig, ok := e.original[k]
			if !ok || orig.Opaque {
				continue
			}
			v := e.vars[k]
			o := e.term(s.Typ, orig)
			if err := opt.AssertSoft(e.valueEq(s.Typ, v, orig), 16, ""); err != nil {
				return nil, err
			}
			if instrument.IsSeq(s.Typ) {
				if err := e.readableSeq(opt, v.AsSeq(), orig.S); err != nil {
					return nil, err
				}
				continue
			}
			if instrument.ValueKind(s.Typ) == 'f' {
				if err := e.readableFloat(opt, v.AsFloat(), s.Typ); err != nil {
					return nil, err
				}
				continue
			}
			if instrument.ValueKind(s.Typ) != 'i' {
				continue
			}
			n, _ := instrument.Bits(s.Typ)
			for _, r := range []int64{1, 2, 4, 8, 16, 64, 256, 1024, 1 << 16} {
				// |v - o| <= r, in wrapping arithmetic: v - o + r <= 2r unsigned.
				d := v.AsBV().Sub(o.AsBV()).Add(e.z.BVInt(r, n))
				if err := opt.AssertSoft(d.ULE(e.z.BVInt(2*r, n)), 1, ""); err != nil {
					return nil, err
				}
			}
		}
	}
	r, err := opt.Check()
	if err != nil || r != z3.Sat {
		return nil, nil
	}
	return opt.Model()
}

// optimizeBound bounds one search for the nearest angelic values: the
// optimiser is slow on strings, and its answer only makes the values
// easier to read.
func (e *encoder) optimizeBound() uint64 {
	if e.seqs {
		return result.WorkOf(time.Second)
	}
	return result.WorkOf(5 * time.Second)
}

// narrowWork bounds the solver work of one narrowing, all its steps
// together.
var narrowWork = result.WorkOf(time.Second)

// abIDs lists the sites of the abnormality literals in order: the
// constraints a solver is given are asserted in the same order every run,
// and so give the same models.
func (e *encoder) abIDs() []int32 {
	ids := make([]int32, 0, len(e.ab))
	for id := range e.ab {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// readableSeq prefers a string close to the recorded one o: of about its
// length, and keeping its bytes where it can (the first and the last
// ones); a solver's arbitrary bytes are hard to read.
func (e *encoder) readableSeq(opt *z3.Optimize, v z3.Seq, o string) error {
	n := v.Len()
	for _, r := range []int64{0, 1, 4, 16} {
		// |len(v) - len(o)| <= r
		lo, hi := e.z.IntVal(int64(len(o))-r), e.z.IntVal(int64(len(o))+r)
		if err := opt.AssertSoft(e.z.And(lo.LE(n), n.LE(hi)), 1, ""); err != nil {
			return err
		}
	}
	for k := 1; k <= len(o) && k <= 16; k *= 4 {
		pre, suf := e.z.BytesVal([]byte(o[:k])), e.z.BytesVal([]byte(o[len(o)-k:]))
		if err := opt.AssertSoft(v.HasPrefix(pre), 1, ""); err != nil {
			return err
		}
		if err := opt.AssertSoft(v.HasSuffix(suf), 1, ""); err != nil {
			return err
		}
	}
	// Printable ASCII where nothing else decides.
	for i := int64(0); i < 4; i++ {
		c := v.Nth(e.z.IntVal(i)).AsBV()
		in := e.z.Or(n.LE(e.z.IntVal(i)), e.z.And(e.z.BVUint(0x20, 8).ULE(c), c.ULE(e.z.BVUint(0x7e, 8))))
		if err := opt.AssertSoft(in, 1, ""); err != nil {
			return err
		}
	}
	return nil
}

// readableFloat prefers a finite float with few significant bits: soft
// constraints that the low 1/4, 1/2, 3/4 and all but 4 of the fraction bits
// are zero. Minimising the distance in the IEEE theory is left out: the
// values a check within a tolerance allows are many, and one easy to read
// says more than the one nearest the recorded value.
func (e *encoder) readableFloat(opt *z3.Optimize, v z3.Float, t types.Type) error {
	if err := opt.AssertSoft(v.IsNaN().Not(), 4, ""); err != nil {
		return err
	}
	if err := opt.AssertSoft(v.IsInf().Not(), 4, ""); err != nil {
		return err
	}
	fraction := uint(52)
	if instrument.IsFloat32(t) {
		fraction = 23
	}
	ieee := v.ToIEEEBV()
	for _, k := range []uint{fraction / 4, fraction / 2, 3 * fraction / 4, fraction - 4} {
		low := ieee.Extract(k-1, 0)
		if err := opt.AssertSoft(low.Eq(e.z.BVInt(0, k)), 1, ""); err != nil {
			return err
		}
	}
	return nil
}

// narrow moves a model's integer values as close to the recorded ones as
// the formula allows: a binary search on the largest distance of any
// changed instance from its recorded value, each step one solver call with
// exactly the correction's locations abnormal. The soft constraints of
// closestModel only reach so far; a loop bound that needs another hundred
// thousand gets exactly that rather than any larger value. It returns m
// unchanged when there is nothing to narrow. Its work is bounded
// (narrowWork); deadline is the wall-clock cap.
func (e *encoder) narrow(c mcs.Correction[int32], m *z3.Model, deadline time.Time) (*z3.Model, error) {
	type changed struct {
		v    z3.BV
		o    z3.BV
		n    uint
		dist uint64
	}
	var moved []changed
	var widest uint64
	for _, id := range c.Tags {
		s := e.prog.Sites[id]
		if instrument.ValueKind(s.Typ) != 'i' {
			continue
		}
		n, _ := instrument.Bits(s.Typ)
		for _, inst := range e.instOf[id] {
			k := instrument.InstKey{Site: id, Inst: inst}
			orig, ok := e.original[k]
			if !ok {
				continue
			}
			v := e.vars[k].AsBV()
			got, err := m.Uint64(v)
			if err != nil {
				return m, nil
			}
			d := ringDistance(got, uint64(orig.N), n)
			if d == 0 {
				continue
			}
			moved = append(moved, changed{v: v, o: e.constant(s.Typ, orig.N).AsBV(), n: n, dist: d})
			widest = max(widest, d)
		}
	}
	if widest <= nearEnough {
		return m, nil // closestModel's soft constraints reach this far
	}
	s, err := e.z.NewSolver()
	if err != nil {
		return nil, err
	}
	if err := s.Assert(e.hards...); err != nil {
		return nil, err
	}
	in := map[int32]bool{}
	for _, id := range c.Tags {
		in[id] = true
	}
	for _, id := range e.abIDs() {
		b := e.ab[id]
		if !in[id] {
			b = b.Not()
		}
		if err := s.Assert(b); err != nil {
			return nil, err
		}
	}
	if err := s.SetTimeout(max(time.Until(deadline), time.Millisecond)); err != nil {
		return nil, err
	}
	start, err := e.z.Work()
	if err != nil {
		return nil, err
	}
	lo, hi, best := uint64(0), widest, m
	for lo < hi && time.Now().Before(deadline) {
		done, err := e.z.Work()
		if err != nil {
			return nil, err
		}
		if done-start >= narrowWork {
			break
		}
		s.SetCheckWork(narrowWork - (done - start))
		mid := lo + (hi-lo)/2
		if err := s.Push(); err != nil {
			return nil, err
		}
		for _, ch := range moved {
			bound := e.z.BVUint(mid, ch.n)
			if ch.n < 64 && mid >= 1<<ch.n {
				bound = e.z.BVUint(1<<ch.n-1, ch.n)
			}
			// On the ring of n-bit values: v - o <= mid or o - v <= mid.
			if err := s.Assert(e.z.Or(ch.v.Sub(ch.o).ULE(bound), ch.o.Sub(ch.v).ULE(bound))); err != nil {
				return nil, err
			}
		}
		r, err := s.Check()
		if err != nil {
			return nil, err
		}
		switch r {
		case z3.Sat:
			if best, err = s.Model(); err != nil {
				return nil, err
			}
			hi = mid
		case z3.Unsat:
			lo = mid + 1
		default:
			lo = hi // out of work or time: keep the best so far
		}
		if err := s.Pop(1); err != nil {
			return nil, err
		}
	}
	return best, nil
}

// nearEnough is the largest distance closestModel's soft constraints tell
// apart; values within it are left as they are.
const nearEnough = 1 << 16

// ringDistance is the distance of two n-bit values on the ring of n-bit
// integers: how far one must move, up or down with wrapping, to reach the
// other.
func ringDistance(a, b uint64, n uint) uint64 {
	mask := ^uint64(0)
	if n < 64 {
		mask = 1<<n - 1
	}
	up, down := (a-b)&mask, (b-a)&mask
	return min(up, down)
}

// extreme reports whether an angelic integer value lies at the far end of
// its type's range (the outer 1/256 of it): only such a value makes the
// test pass, which says more about the test than about the fix.
func extreme(s *instrument.Site, v int64) bool {
	if instrument.ValueKind(s.Typ) != 'i' {
		return false
	}
	n, signed := instrument.Bits(s.Typ)
	if signed {
		half := uint64(1) << (n - 1)
		limit := max(half>>8, 1)
		if n < 64 {
			v = v << (64 - n) >> (64 - n)
		}
		if v >= 0 {
			return uint64(v) >= half-limit
		}
		return uint64(-(v + 1)) >= half-limit // -v-1 cannot overflow
	}
	u, top := uint64(v), ^uint64(0)
	if n < 64 {
		top = 1<<n - 1
		u &= top
	}
	return u >= top-max(top>>8, 1)+1
}

// excludeValues records that a forced run failed: these values at these
// locations, with every other encoded location correct, are no fix. The
// formula alone cannot tell when the failure lies in values it does not
// model; excluding the values lets the search try the next nearest ones.
func (e *encoder) excludeValues(tags []int32, force []instrument.ForcedValue) error {
	in := map[int32]bool{}
	for _, id := range tags {
		in[id] = true
	}
	var others []int32
	for id := range e.ab {
		if !in[id] {
			others = append(others, id)
		}
	}
	slices.Sort(others) // a deterministic formula gives deterministic models
	var alt []z3.Bool
	for _, id := range others {
		alt = append(alt, e.ab[id])
	}
	for _, f := range force {
		v, ok := e.vars[instrument.InstKey{Site: f.Site, Inst: instrument.Instance{Act: f.Act, Local: f.Local}}]
		if !ok {
			continue
		}
		fv := instrument.Value{N: f.Value}
		if f.Str != nil {
			fv = instrument.Value{S: *f.Str}
		}
		alt = append(alt, e.valueEq(e.prog.Sites[f.Site].Typ, v, fv).Not())
	}
	return e.addHard(e.z.Or(alt...))
}
