package faultlineagx

import (
	"encoding/binary"
	"reflect"
)

// ListKind constrains the recorder of slices of integers (other than
// byte slices, which Y records).
type ListKind interface {
	~[]int | ~[]int8 | ~[]int16 | ~[]int32 | ~[]int64 |
		~[]uint | ~[]uint16 | ~[]uint32 | ~[]uint64 | ~[]uintptr
}

// L records the elements of a slice of integers at a site, each as 8
// little-endian bytes of the element extended to 64 bits (the trace's
// string encoding), and returns it, or a new slice of the forced elements.
func L[T ListKind](site int32, v T) T {
	rv := reflect.ValueOf(v)
	signed := rv.Type().Elem().Kind() <= reflect.Int64
	buf := make([]byte, 8*rv.Len())
	for i := 0; i < rv.Len(); i++ {
		var x uint64
		if signed {
			x = uint64(rv.Index(i).Int())
		} else {
			x = rv.Index(i).Uint()
		}
		binary.LittleEndian.PutUint64(buf[8*i:], x)
	}
	s, isForced := stringEvent(site, string(buf))
	if !isForced || s == string(buf) {
		return v
	}
	out := reflect.MakeSlice(rv.Type(), len(s)/8, len(s)/8)
	for i := 0; i < out.Len(); i++ {
		x := binary.LittleEndian.Uint64([]byte(s[8*i:]))
		if signed {
			out.Index(i).SetInt(int64(x))
		} else {
			out.Index(i).SetUint(x)
		}
	}
	return out.Interface().(T)
}
