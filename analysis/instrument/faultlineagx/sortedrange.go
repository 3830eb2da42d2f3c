package faultlineagx

import "sort"

// orderedKey is the key types SortedRange orders: integers and strings
// (floats are left out: a NaN key cannot be looked up again).
type orderedKey interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~string
}

// SortedRange ranges over a map's entries by increasing key, where Go
// ranges in a random order: the analysed code then runs the same way on
// every run, so that its traces, and the analysis's answers, do not change
// from run to run. Like a range over the map itself, it does not produce
// an entry deleted before it is reached, produces the value an entry has
// when it is reached, and may leave out entries added meanwhile.
func SortedRange[M ~map[K]V, K orderedKey, V any](m M) func(yield func(K, V) bool) {
	return func(yield func(K, V) bool) {
		keys := make([]K, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys {
			v, ok := m[k]
			if !ok {
				continue
			}
			if !yield(k, v) {
				return
			}
		}
	}
}
