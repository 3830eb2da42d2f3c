//go:build cgo

package formula

import (
	"go/token"
	"go/types"
	"math/big"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// A map (see maps.go) is an array from 65-bit keys (the key extended to 64
// bits by its type's signedness, then by a zero bit) to slots of at least
// 64 bits: the value in the low bits and a presence bit above it. Its
// length is held at the key with only bit 64 set, which no Go key reaches.

// mapSlotBits is the width of a map's slots, and the value's width.
func mapSlotBits(t types.Type) (slot, val uint) {
	_, vt := instrument.MapTypes(t)
	val = instrument.FieldBits(vt)
	return max(64, val+1), val
}

func (e *encoder) mapSortOf(t types.Type) z3.Sort {
	slot, _ := mapSlotBits(t)
	return e.z.ArraySort(e.z.BVSort(65), e.z.BVSort(slot))
}

// mapLenKey is the key holding a map's length.
func (e *encoder) mapLenKey() z3.BV { return e.z.BVBig(new(big.Int).Lsh(big.NewInt(1), 64), 65) }

// mapKey is a key of type kt as an index of the map's array.
func mapKey(k z3.BV, kt types.Type) z3.BV {
	if k.Bits() < 64 {
		_, signed := instrument.Bits(kt)
		k = k.Convert(64, signed || instrument.IsUntypedNumber(kt))
	}
	return k.ZeroExt(1)
}

// mapSlot is the slot of a present value x (a term of the value type).
func (e *encoder) mapSlot(x z3.Expr, t types.Type) z3.BV {
	_, vt := instrument.MapTypes(t)
	slot, val := mapSlotBits(t)
	b := e.z.BVUint(1, 1).Concat(e.fieldBV(x, vt))
	if slot > val+1 {
		b = b.ZeroExt(slot - val - 1)
	}
	return b
}

// mapLenTerm is len(m).
func (e *encoder) mapLenTerm(m z3.Expr) z3.BV {
	return m.AsArray().Select(e.mapLenKey()).AsBV().Extract(63, 0)
}

// withMapLen stores a map's length.
func (e *encoder) withMapLen(a z3.Array, n z3.BV, t types.Type) z3.Array {
	slot, _ := mapSlotBits(t)
	return a.Store(e.mapLenKey(), n.ZeroExt(slot-64))
}

// mapTerm is the term of a recorded map of type t.
func (e *encoder) mapTerm(t types.Type, v instrument.Value) z3.Expr {
	kt, vt := instrument.MapTypes(t)
	slot, _ := mapSlotBits(t)
	a := e.z.ConstArray(e.z.BVSort(65), e.z.BVUint(0, slot))
	entries := instrument.MapEntries(v, t)
	for _, en := range entries {
		e.noteMapKeys(t, en.Key)
		a = a.Store(mapKey(e.term(kt, en.Key).AsBV(), kt), e.mapSlot(e.term(vt, en.Val), t))
	}
	return e.withMapLen(a, e.bv64(uint64(len(entries))), t).Expr
}

// mapPresent and mapValue read a key's slot.
func (e *encoder) mapPresent(m z3.Expr, k z3.BV, t types.Type) z3.Bool {
	_, val := mapSlotBits(t)
	return m.AsArray().Select(k).AsBV().Extract(val, val).Eq(e.z.BVUint(1, 1))
}

func (e *encoder) mapValue(m z3.Expr, k z3.BV, t types.Type) z3.Expr {
	_, vt := instrument.MapTypes(t)
	_, val := mapSlotBits(t)
	x := m.AsArray().Select(k).AsBV().Extract(val-1, 0)
	zero := e.z.BVUint(0, val)
	x = e.z.Ite(e.mapPresent(m, k, t), x, zero).AsBV()
	if instrument.ValueKind(vt) == 'b' {
		return x.Eq(e.z.BVUint(1, 1)).Expr
	}
	return x.Expr
}

// mapIndex is m[k]: the value, or the value type's zero when absent.
func (e *encoder) mapIndex(m, k sv, t, kt types.Type) sv {
	_, vt := instrument.MapTypes(t)
	out := sv{known: m.known && k.known && !m.c.Opaque}
	if out.known {
		out.c, _ = instrument.MapGet(m.c, t, instrument.Value{N: instrument.Normalize(kt, k.c.N)})
	}
	if !m.hasTerm() || !k.hasTerm() {
		return e.concreteValue(vt, out.c, out.known)
	}
	out.t = e.mapValue(m.t, mapKey(k.t.AsBV(), kt), t)
	return out
}

// mapLenValue is len(m) as a value of type t.
func (e *encoder) mapLenValue(m sv, mt, t types.Type) sv {
	c := instrument.Value{N: int64(len(instrument.MapEntries(m.c, mt)))}
	if !m.hasTerm() {
		return e.concreteValue(t, c, m.known && !m.c.Opaque)
	}
	out := sv{t: e.mapLenTerm(m.t).Expr, c: c, known: m.known && !m.c.Opaque}
	if n, _ := instrument.Bits(t); n != 64 {
		out.t = out.t.AsBV().Extract(n-1, 0).Expr
	}
	return out
}

// mapStore is m[k] = v on a map local.
func (e *encoder) mapStore(a *activation, tg *seqTarget, m, v sv) {
	t := tg.v.Type()
	kt, _ := instrument.MapTypes(t)
	out := sv{known: m.known && tg.index.known && v.known && !m.c.Opaque}
	if out.known {
		out.c = instrument.MapSet(m.c, t, instrument.Value{N: instrument.Normalize(kt, tg.index.c.N)}, v.c)
	}
	if !m.hasTerm() || !tg.index.hasTerm() || !v.hasTerm() {
		if out.known && e.concreteLists {
			a.env[tg.v] = out
			return
		}
		delete(a.env, tg.v)
		return
	}
	if tg.index.known {
		e.noteMapKeys(t, instrument.Value{N: instrument.Normalize(kt, tg.index.c.N)})
	}
	k := mapKey(tg.index.t.AsBV(), kt)
	n := e.mapLenTerm(m.t)
	n = e.z.Ite(e.mapPresent(m.t, k, t), n, n.Add(e.bv64(1))).AsBV()
	out.t = e.withMapLen(m.t.AsArray().Store(k, e.mapSlot(v.t, t)), n, t).Expr
	a.env[tg.v] = out
}

// mapEqual is reflect.DeepEqual on maps of type t: the same length and
// the same entries at every key either recorded value has. When one side
// is a map the replay built from recorded values (the checks' expected
// value) that is Go's equality; two maps whose entries the formula leaves
// free may agree there and differ elsewhere, which a verifying run
// settles. Two empty maps differ by nil-ness, which a free Boolean stands
// for.
func (e *encoder) mapEqual(l, r sv, t types.Type) sv {
	out := sv{}
	if l.known && r.known && !l.c.Opaque && !r.c.Opaque && (l.c.S != r.c.S || l.c.S != "") {
		out.c, out.known = instrument.BoolValue(l.c.S == r.c.S), true
	}
	if !l.hasTerm() || !r.hasTerm() {
		return e.concreteValue(types.Typ[types.Bool], out.c, out.known)
	}
	kt, _ := instrument.MapTypes(t)
	conj := []z3.Bool{e.mapLenTerm(l.t).Eq(e.mapLenTerm(r.t))}
	seen := map[int64]bool{}
	for _, side := range []sv{l, r} {
		for _, en := range instrument.MapEntries(side.c, t) {
			if seen[en.Key.N] {
				continue
			}
			seen[en.Key.N] = true
			k := mapKey(e.term(kt, en.Key).AsBV(), kt)
			conj = append(conj, e.mapPresent(l.t, k, t).Iff(e.mapPresent(r.t, k, t)), e.mapValue(l.t, k, t).Eq(e.mapValue(r.t, k, t)))
		}
	}
	conj = append(conj, e.sameNilness(e.mapLenTerm(l.t)))
	out.t = e.z.And(conj...).Expr
	return out
}

// mapCompare is == or != on maps as the checks compare them.
func (e *encoder) mapCompare(op token.Token, l, r sv, t types.Type) sv {
	return e.asCompare(op, e.mapEqual(l, r, t))
}

// mapModel reads a map of type t from a model at the keys the replay met
// in maps of its type (recorded entries and stores): a map the solver
// fills elsewhere reads short, and its forced run decides.
func (e *encoder) mapModel(m *z3.Model, v z3.Expr, t types.Type) (instrument.Value, error) {
	kt, vt := instrument.MapTypes(t)
	var entries []instrument.MapEntry
	for _, k := range e.mapKeys[types.TypeString(t, nil)] {
		key := mapKey(e.term(kt, k).AsBV(), kt)
		present, err := m.Bool(e.mapPresent(v, key, t))
		if err != nil {
			return instrument.Value{}, err
		}
		if !present {
			continue
		}
		x, err := m.Big(e.fieldBV(e.mapValue(v, key, t), vt))
		if err != nil {
			return instrument.Value{}, err
		}
		val := instrument.Value{N: instrument.Normalize(vt, int64(x.Uint64()))}
		if instrument.ValueKind(vt) == 'b' {
			val = instrument.BoolValue(x.Sign() != 0)
		}
		entries = append(entries, instrument.MapEntry{Key: k, Val: val})
	}
	return instrument.MapOf(entries), nil
}

// noteMapKeys remembers the keys of a map value of type t, for mapModel.
func (e *encoder) noteMapKeys(t types.Type, keys ...instrument.Value) {
	if e.mapKeys == nil {
		e.mapKeys = map[string][]instrument.Value{}
	}
	name := types.TypeString(t, nil)
	for _, k := range keys {
		dup := false
		for _, o := range e.mapKeys[name] {
			dup = dup || o == k
		}
		if !dup {
			e.mapKeys[name] = append(e.mapKeys[name], k)
		}
	}
}
