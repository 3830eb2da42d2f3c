//go:build cgo

package analysis

import (
	"fmt"
	"go/types"
	"time"

	"faultline/solver/mcs"
	"faultline/solver/z3"
)

// closestModel re-solves a correction for the angelic values nearest the
// concrete ones: with exactly its locations abnormal, it keeps as many
// instances at their recorded values as it can, and moves the others as
// little as it can; a float changed is kept finite and short (few
// significant bits: 100 rather than 99.99999999998568) instead of near. Arbitrary solver values are hard to read and tend to
// send loops astray in the verifying run. It returns nil when the optimiser
// gives up, and the correction's own model is used.
func (e *encoder) closestModel(c mcs.Correction[int32], timeout time.Duration) (*z3.Model, error) {
	opt, err := e.z.NewOptimize()
	if err != nil {
		return nil, fmt.Errorf("creating optimiser: %w", err)
	}
	if err := opt.SetTimeout(timeout); err != nil {
		return nil, err
	}
	if err := opt.Assert(e.hards...); err != nil {
		return nil, err
	}
	in := map[int32]bool{}
	for _, id := range c.Tags {
		in[id] = true
	}
	for id, ab := range e.ab {
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
		s := e.prog.sites[id]
		for _, inst := range e.instOf[id] {
			k := instKey{id, inst}
			orig, ok := e.original[k]
			if !ok {
				continue
			}
			v := e.vars[k]
			o := e.constant(s.typ, orig)
			if err := opt.AssertSoft(v.Eq(o), 16, ""); err != nil {
				return nil, err
			}
			if valueKind(s.typ) == 'f' {
				if err := e.readableFloat(opt, v.AsFloat(), s.typ); err != nil {
					return nil, err
				}
				continue
			}
			if valueKind(s.typ) != 'i' {
				continue
			}
			n, _ := bits(s.typ)
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
	if isFloat32(t) {
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
