package faultlineagx

import (
	"encoding/binary"
	"reflect"
	"unsafe"
)

// ListKind and RecordKind constrain the recorders of slices of integers
// or records (L) and of records (R): structs of integer and Boolean
// fields. Their values are read and built through reflect.
type (
	ListKind   = any
	RecordKind = any
)

// putScalar appends an integer or Boolean as 8 little-endian bytes, an
// integer extended to 64 bits by its signedness.
func putScalar(buf []byte, v reflect.Value) []byte {
	var x uint64
	switch k := v.Kind(); {
	case k == reflect.Bool:
		if v.Bool() {
			x = 1
		}
	case k >= reflect.Int && k <= reflect.Int64:
		x = uint64(v.Int())
	default:
		x = v.Uint()
	}
	return binary.LittleEndian.AppendUint64(buf, x)
}

// setScalar sets an integer or Boolean, exported or not, from 8 bytes.
func setScalar(v reflect.Value, b string) {
	x := binary.LittleEndian.Uint64([]byte(b))
	if !v.CanSet() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch k := v.Kind(); {
	case k == reflect.Bool:
		v.SetBool(x != 0)
	case k >= reflect.Int && k <= reflect.Int64:
		v.SetInt(int64(x))
	default:
		v.SetUint(x)
	}
}

// putElem appends an element: a scalar, or a struct field by field.
func putElem(buf []byte, v reflect.Value) []byte {
	if v.Kind() != reflect.Struct {
		return putScalar(buf, v)
	}
	for i := 0; i < v.NumField(); i++ {
		buf = putScalar(buf, v.Field(i))
	}
	return buf
}

// setElem sets an element (addressable) from its bytes.
func setElem(v reflect.Value, b string) {
	if v.Kind() != reflect.Struct {
		setScalar(v, b)
		return
	}
	for i := 0; i < v.NumField(); i++ {
		setScalar(v.Field(i), b[8*i:])
	}
}

// elemSize is the number of bytes an element of type t records.
func elemSize(t reflect.Type) int {
	if t.Kind() == reflect.Struct {
		return 8 * t.NumField()
	}
	return 8
}

// L records the elements of a slice of integers or records at a site and
// returns it, or a new slice of the forced elements.
func L[T ListKind](site int32, v T) T {
	rv := reflect.ValueOf(v)
	var buf []byte
	for i := 0; i < rv.Len(); i++ {
		buf = putElem(buf, rv.Index(i))
	}
	s, isForced := stringEvent(site, string(buf))
	if !isForced || s == string(buf) {
		return v
	}
	size := elemSize(rv.Type().Elem())
	out := reflect.MakeSlice(rv.Type(), len(s)/size, len(s)/size)
	for i := 0; i < out.Len(); i++ {
		setElem(out.Index(i), s[size*i:])
	}
	return out.Interface().(T)
}

// R records the fields of a record at a site and returns it, or the
// forced record.
func R[T RecordKind](site int32, v T) T {
	rv := reflect.ValueOf(&v).Elem()
	buf := putElem(nil, rv)
	s, isForced := stringEvent(site, string(buf))
	if !isForced || s == string(buf) || len(s) != len(buf) {
		return v
	}
	setElem(rv, s)
	return v
}
