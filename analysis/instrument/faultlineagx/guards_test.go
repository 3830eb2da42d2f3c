package faultlineagx

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestNilGuardsRecordOnlyNil(t *testing.T) {
	buf := reset(t, nil)
	x := 1
	var p *int
	Nil(30, &x)
	Nil(31, p)
	var m map[string]int
	NilMap(32, map[string]int{})
	NilMap(33, m)
	if v := Panic(34, "boom"); v != "boom" {
		t.Errorf("Panic returned %v", v)
	}
	if got, want := strings.Join(trace(buf), " "), "31 0 1 0|33 0 1 0|34 0 1 0|"; got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
}

type celsius float64

func TestTypeSwitchTakesTheForcedCase(t *testing.T) {
	cases := func() []TypeCase { return []TypeCase{Is[int8](40), Is[celsius](41), Is[fmt.Stringer](42), IsNil(43)} }
	// Unforced: the cases up to the first match are recorded, x returned.
	buf := reset(t, nil)
	if got := TypeSwitch[any](2.5, cases()...); got != 2.5 {
		t.Errorf("unforced: got %v", got)
	}
	if got, want := strings.Join(trace(buf), " "), "40 0 1 0|41 0 1 0|42 0 1 0|43 0 1 0|"; got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
	// Forced into the named float type: the value converted.
	reset(t, map[key]int64{{site: 41, local: 1}: 1})
	if got, ok := TypeSwitch[any](2.5, cases()...).(celsius); !ok || got != 2.5 {
		t.Errorf("forced celsius: got %v", got)
	}
	// Forced into int8 from a value Go does not convert: the zero value.
	reset(t, map[key]int64{{site: 40, local: 1}: 1})
	if got, ok := TypeSwitch[any]("s", cases()...).(int8); !ok || got != 0 {
		t.Errorf("forced int8: got %v", got)
	}
	// An interface case cannot be forced; the nil case can.
	reset(t, map[key]int64{{site: 42, local: 1}: 1})
	if got := TypeSwitch[any](2.5, cases()...); got != 2.5 {
		t.Errorf("forced interface case: got %v, want x", got)
	}
	reset(t, map[key]int64{{site: 43, local: 1}: 1})
	if got := TypeSwitch[any](2.5, cases()...); got != nil {
		t.Errorf("forced nil case: got %v", got)
	}
	// The matching case forced off, no nil case: the default gets nil.
	reset(t, map[key]int64{{site: 40, local: 1}: 0})
	if got := TypeSwitch[any](int8(3), Is[int8](40)); got != nil {
		t.Errorf("forced default: got %v", got)
	}
}

func TestAssertForcesOK(t *testing.T) {
	reset(t, map[key]int64{{site: 50, local: 1}: 1})
	if v, ok := Assert[int64](50, any(uint64(7))); !ok || v != 7 {
		t.Errorf("forced ok: got %v, %v", v, ok)
	}
	reset(t, map[key]int64{{site: 50, local: 1}: 0})
	if v, ok := Assert[string](50, any("s")); ok || v != "" {
		t.Errorf("forced not ok: got %q, %v", v, ok)
	}
	reset(t, nil)
	if v, ok := Assert[string](50, any("s")); !ok || v != "s" {
		t.Errorf("unforced: got %q, %v", v, ok)
	}
}

var (
	errA = errors.New("a")
	errB = errors.New("b")
)

func TestErrorsTravelAsSentinelCodes(t *testing.T) {
	saved := sentinels
	t.Cleanup(func() { sentinels = saved })
	sentinels = nil
	Sentinel(3, &errB)
	Sentinel(2, &errA)
	buf := reset(t, map[key]int64{{site: 60, local: 2}: 3, {site: 60, local: 3}: 1})
	if got := E[Error](60, fmt.Errorf("wrapped: %w", errB)); !errors.Is(got, errB) {
		t.Errorf("unforced: got %v", got)
	}
	if got := E[Error](60, errA); got != errB {
		t.Errorf("forced code 3: got %v, want errB", got)
	}
	if got := E[Error](60, errA); got == nil || errors.Is(got, errA) || errors.Is(got, errB) {
		t.Errorf("forced code 1: got %v, want another error", got)
	}
	E[Error](60, nil)
	if got, want := strings.Join(trace(buf), " "), "60 0 1 3|60 0 2 3|60 0 3 1|60 0 4 0|"; got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
}
