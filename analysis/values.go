package analysis

import (
	"fmt"
	"time"

	"faultline/solver/mcs"
	"faultline/solver/z3"
)

// closestModel re-solves a correction for the angelic values nearest the
// concrete ones: with exactly its locations abnormal, it keeps as many
// instances at their recorded values as it can, and moves the others as
// little as it can. Arbitrary solver values are hard to read and tend to
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
