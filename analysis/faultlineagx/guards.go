package faultlineagx

// Nil returns p, first recording a guard event at site when p is nil, so
// that the dereference about to panic is in the trace.
func Nil[P ~*E, E any](site int32, p P) P {
	if p == nil {
		event(site, 0)
	}
	return p
}

// NilMap returns m, first recording a guard event at site when m is nil,
// so that the map write about to panic is in the trace.
func NilMap[M ~map[K]V, K comparable, V any](site int32, m M) M {
	if m == nil {
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
