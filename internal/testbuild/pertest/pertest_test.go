package pertest

import "testing"

// A block counter only says whether its block ran: it is set, which costs
// a store, not incremented, which costs a load too in a hot loop; the
// atomic form (under -race) stays an atomic add.
func TestIncrementSetsBlockCounters(t *testing.T) {
	names := Names{Runtime: "rt_", Counters: "c_", Atomic: "atomic_"}
	if got, want := Increment(names, 7, false), "c_[7] = 1;"; got != want {
		t.Errorf("Increment = %q, want %q", got, want)
	}
	if got, want := Increment(names, 7, true), "atomic_.AddUint32(&c_[7], 1);"; got != want {
		t.Errorf("atomic Increment = %q, want %q", got, want)
	}
}
