package faultlineagx

import (
	"errors"
	"reflect"
)

// Nil returns p, first recording a guard event at site when p is nil, so
// that the dereference about to panic is in the trace.
func Nil[P ~*E, E any](site int32, p P) P {
	if p == nil {
		event(site, 0)
	}
	return p
}

// NilMap returns m, a map, first recording a guard event at site when m
// is nil, so that the map write about to panic is in the trace. Its type
// parameter is not constrained to maps: a key type satisfying comparable
// only by an interface needs go1.20, and instrumented files may be older.
func NilMap[M any](site int32, m M) M {
	if v := reflect.ValueOf(m); v.Kind() == reflect.Map && v.IsNil() {
		event(site, 0)
	}
	return m
}

// Panic records that a panic statement is reached at site and returns the
// value it panics with.
func Panic(site int32, v any) any {
	event(site, 0)
	return v
}

// TypeCase is one case type of a type switch: its condition site, whether a
// value matches it, and the value of its type a value is forced into
// (none for an interface type, whose zero value has no dynamic type).
type TypeCase struct {
	site  int32
	isNil bool
	match func(any) bool
	as    func(any) (any, bool)
}

// Is is the case of type A at a condition site.
func Is[A any](site int32) TypeCase {
	return TypeCase{site: site,
		match: func(v any) bool { _, ok := v.(A); return ok },
		as: func(v any) (any, bool) {
			a := convertTo[A](v)
			return a, any(a) != nil
		}}
}

// convertTo is v converted to A when Go converts its dynamic type to A (a
// number to another numeric type, a named type to its underlying one),
// else A's zero value: the value the forced branch receives.
func convertTo[A any](v any) (a A) {
	if v == nil {
		return a
	}
	to := reflect.TypeOf(&a).Elem()
	rv := reflect.ValueOf(v)
	if to.Kind() == reflect.Interface || !rv.Type().ConvertibleTo(to) {
		return a
	}
	defer func() {
		if recover() != nil { // a slice too short for an array, say
			var zero A
			a = zero
		}
	}()
	return rv.Convert(to).Interface().(A)
}

// IsNil is the nil case at a condition site.
func IsNil(site int32) TypeCase {
	return TypeCase{site: site, isNil: true, match: func(v any) bool { return v == nil }}
}

// TypeSwitch records the case tests of a type switch on x in order, up to
// the first that holds (or is forced to), and returns the value the
// switch dispatches on: x when that is the case x matches first, else a
// value of the forced case: the zero value of its type, nil for the nil
// case, nil for the default when no case is nil. A case it cannot force
// (an interface type, or the default beside a nil case) leaves x as it
// is, and the run goes where x sends it.
func TypeSwitch[X any](x X, cases ...TypeCase) X {
	natural := -1
	for i, c := range cases {
		if c.match(any(x)) {
			natural = i
			break
		}
	}
	chosen := -1
	for i, c := range cases {
		var was int64
		if c.match(any(x)) {
			was = 1
		}
		if event(c.site, was) != 0 {
			chosen = i
			break
		}
	}
	var zero X
	switch {
	case chosen == natural:
		return x
	case chosen < 0:
		for _, c := range cases {
			if c.isNil {
				return x
			}
		}
		return zero
	case cases[chosen].isNil:
		return zero
	}
	v, ok := cases[chosen].as(any(x))
	if !ok {
		return x
	}
	if r, ok := v.(X); ok {
		return r
	}
	return x
}

// Assert is x.(T) in its comma-ok form, recording at site whether x holds
// a T: with a forced outcome other than the run's, the forced ok and x
// converted to T where Go converts it, else the zero T.
func Assert[T any, X any](site int32, x X) (T, bool) {
	t, ok := any(x).(T)
	var was int64
	if ok {
		was = 1
	}
	got := event(site, was) != 0
	if got == ok {
		return t, ok
	}
	if !got {
		var zero T
		return zero, false
	}
	return convertTo[T](any(x)), true
}

// sentinel is a package-level error variable the analysis numbers.
type sentinel struct {
	code int64
	p    *error
}

// sentinels are registered by package initialisation only, in order of
// code, and read without the lock afterwards: errors.Is may call methods
// of the code under test, which record.
var sentinels []sentinel

// Sentinel registers the variable p points to under a code (2 and up).
func Sentinel(code int64, p *error) bool {
	mu.Lock()
	defer mu.Unlock()
	i := 0
	for i < len(sentinels) && sentinels[i].code < code {
		i++
	}
	if i < len(sentinels) && sentinels[i].code == code {
		return true
	}
	sentinels = append(sentinels, sentinel{})
	copy(sentinels[i+1:], sentinels[i:])
	sentinels[i] = sentinel{code, p}
	return true
}

// errorCode is the code of a non-nil error: that of the first sentinel
// errors.Is matches, else 1.
func errorCode(err error) int64 {
	for _, s := range sentinels {
		if *s.p != nil && errors.Is(err, *s.p) {
			return s.code
		}
	}
	return 1
}

// sentinelOf is the sentinel of a code, nil for none.
func sentinelOf(code int64) error {
	for _, s := range sentinels {
		if s.code == code {
			return *s.p
		}
	}
	return nil
}
