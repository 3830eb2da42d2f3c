package faultlineagx

import (
	"encoding/binary"
	"reflect"
	"sort"
)

// MapKind constrains the recorder of maps from integers to integers or
// Booleans (M).
type MapKind = any

// M records the entries of a map at a site, ordered by key (each key and
// value as 8 little-endian bytes, as putScalar writes them, the keys
// ordered as unsigned 64-bit numbers), and returns it, or a new map of
// the forced entries.
func M[T MapKind](site int32, v T) T {
	rv := reflect.ValueOf(v)
	type entry struct {
		key uint64
		b   []byte
	}
	var entries []entry
	for it := rv.MapRange(); it.Next(); {
		b := putScalar(putScalar(nil, it.Key()), it.Value())
		entries = append(entries, entry{binary.LittleEndian.Uint64(b), b})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	var buf []byte
	for _, e := range entries {
		buf = append(buf, e.b...)
	}
	s, isForced := stringEvent(site, string(buf))
	if !isForced || s == string(buf) {
		return v
	}
	out := reflect.MakeMap(rv.Type())
	k, x := reflect.New(rv.Type().Key()).Elem(), reflect.New(rv.Type().Elem()).Elem()
	for i := 0; i+16 <= len(s); i += 16 {
		setScalar(k, s[i:])
		setScalar(x, s[i+8:])
		out.SetMapIndex(k, x)
	}
	return out.Interface().(T)
}
