package faultlineagx

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	name string
	tags []string
}

type record struct {
	ID    int
	Score float64
	z     complex128
	In    *inner
	Attrs map[string]int
	Err   error
	Any   interface{}
	Flag  bool
	Raw   [2]byte
}

// Values of the kinds the code under test is made of, unexported fields
// and errors included, come back equal from their encoding.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	values := []interface{}{
		"a \"quoted\", [bracketed] string\n",
		[]byte("xy"),
		[]string{},
		[]string(nil),
		map[int]string{3: "c", 1: "a"},
		complex(1.5, -2),
		record{ID: 7, Score: 0.1, z: 2i, In: &inner{name: "n", tags: []string{"p", "q"}}, Attrs: map[string]int{"k": 1},
			Err: errors.New("boom"), Any: int64(3), Flag: true, Raw: [2]byte{1, 2}},
		&record{},
		uint8(250),
		float32(1.25),
	}
	for _, want := range values {
		enc := encode(reflect.ValueOf(&want).Elem().Elem())
		if enc == "?" {
			t.Errorf("%#v cannot be encoded", want)
			continue
		}
		got := reflect.New(reflect.TypeOf(want))
		if err := decode(enc, got.Elem()); err != nil {
			t.Errorf("decoding %s: %v", enc, err)
			continue
		}
		g := got.Elem().Interface()
		if r, ok := want.(record); ok {
			// An error is rebuilt from its message: equal text, new value.
			gr := g.(record)
			if gr.Err.Error() != r.Err.Error() {
				t.Errorf("error %v, want %v", gr.Err, r.Err)
			}
			gr.Err, r.Err = nil, nil
			g, want = gr, r
		}
		if !reflect.DeepEqual(g, want) {
			t.Errorf("%s decodes to %#v, want %#v", enc, g, want)
		}
	}
}

// What cannot be rebuilt is recorded as unknown, and a value of the wrong
// shape is refused.
func TestEncodeRefuses(t *testing.T) {
	type withFunc struct{ F func() }
	for _, v := range []interface{}{withFunc{F: func() {}}, make(chan int)} {
		if enc := encode(reflect.ValueOf(&v).Elem().Elem()); enc != "?" {
			t.Errorf("%T encodes as %s", v, enc)
		}
	}
	// An error held as an error is its message when the standard library
	// made it, unknown otherwise.
	for _, c := range []struct {
		err  error
		want string
	}{{fmt.Errorf("x: %w", os.ErrNotExist), `e"x: file does not exist"`}, {&os.PathError{Op: "open", Err: os.ErrNotExist}, "?"}} {
		if enc := encode(reflect.ValueOf(&c.err).Elem()); enc != c.want {
			t.Errorf("%T encodes as %s, want %s", c.err, enc, c.want)
		}
	}
	var n int
	if err := decode(`s"x"`, reflect.ValueOf(&n).Elem()); err == nil {
		t.Error("a string decodes into an int")
	}
	if err := decode(`i300`, reflect.ValueOf(new(int8)).Elem()); err == nil {
		t.Error("300 decodes into an int8")
	}
}

// V records a summary per site and forces an encoded value; the summary
// file is rewritten when control leaves the test function.
func TestValueSummaryAndForcing(t *testing.T) {
	reset(t, nil)
	dir := t.TempDir()
	valuesPath, summary, valuesOn = filepath.Join(dir, "values"), map[int32]*siteValues{}, true
	forcedPayload = map[key]string{{site: 9, act: 1, local: 2}: `s"forced"`}
	t.Cleanup(func() { summary, forcedPayload, valuesOn = nil, nil, false })
	Enter(1)
	V(9, "a")
	if got := V(9, "b"); got != "forced" {
		t.Errorf("second instance: %q, want the forced value", got)
	}
	V(9, "a")
	Leave(2)
	data, err := os.ReadFile(valuesPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`L 9 1 3 1 s"a"`, `D 9 2 s"a"`, `D 9 1 s"forced"`} {
		if !strings.Contains(string(data), line+"\n") {
			t.Errorf("summary lacks %q:\n%s", line, data)
		}
	}
}

// Returns from instrumented code during package initialization, before
// the tests parse their flags, leave the file alone; the first return
// once the tests run writes what they recorded too.
func TestValueSummaryWaitsForTheTests(t *testing.T) {
	reset(t, nil)
	dir := t.TempDir()
	valuesPath, summary, valuesOn = filepath.Join(dir, "values"), map[int32]*siteValues{}, true
	started := false
	testsStarted = func() bool { return started }
	t.Cleanup(func() { summary, valuesOn, testsStarted = nil, false, flag.Parsed })
	for range 3 {
		Enter(1)
		V(9, "init")
		Leave(2)
	}
	if _, err := os.Stat(valuesPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the summary was written during initialization (%v)", err)
	}
	started = true
	Enter(3)
	V(11, "test")
	Leave(4)
	data, err := os.ReadFile(valuesPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`D 9 3 s"init"`, `D 11 1 s"test"`} {
		if !strings.Contains(string(data), line+"\n") {
			t.Errorf("summary lacks %q:\n%s", line, data)
		}
	}
}

// A shift forced at every instance moves each instance's own value; an
// entry of an instance's own takes precedence.
func TestForceShiftsIntegers(t *testing.T) {
	reset(t, nil)
	valuesOn = true
	forcedPayload = map[key]string{{site: 4, act: EveryInstance, local: EveryInstance}: "+-1", {site: 4, act: 0, local: 3}: "u100"}
	t.Cleanup(func() { forcedPayload, valuesOn = nil, false })
	var got []uint8
	for _, v := range []uint8{5, 0, 7} {
		got = append(got, V(4, v))
	}
	if want := []uint8{4, 255, 100}; !reflect.DeepEqual(got, want) {
		t.Errorf("shifted values %v, want %v", got, want)
	}
	if err := force("+1", reflect.ValueOf(new(string)).Elem()); err == nil {
		t.Error("a string took an integer shift")
	}
}

// Each entry of the trial site starts the next trial with the counts the
// first one started with, and that trial's forced values.
func TestTrialsRestartCounts(t *testing.T) {
	reset(t, nil)
	trials = [][]forcedEntry{{{Site: 5, Act: 1, Local: 1, Value: 10}}, {{Site: 5, Act: 1, Local: 1, Value: 20}}}
	trialSite, trialN, valuesOn = 1, 0, true
	t.Cleanup(func() { trials, trialSite, trialN, valuesOn = nil, -1, 0, false })
	Enter(7) // an activation before the tests, as package initialisation makes
	Leave(8)
	var got []Int
	for range 3 {
		Enter(1)
		got = append(got, I[Int](5, 0))
		Leave(2)
	}
	if fmt.Sprint(got) != "[10 20 0]" {
		t.Errorf("forced per trial: %v, want [10 20 0] (the third trial forces nothing)", got)
	}
	if acts[1] != 1 {
		t.Errorf("activations of the test function in the last trial: %d, want 1", acts[1])
	}
}

// An event forced at every instance takes a value, a shift or, for a
// Boolean, its negation, at instances the recorded run never reached too.
func TestForceEveryEvent(t *testing.T) {
	every := key{site: 5, act: EveryInstance, local: EveryInstance}
	for _, c := range []struct {
		value   map[key]int64
		payload map[key]string
		want    string
	}{
		{value: map[key]int64{every: 9}, want: "[9 9 9]"},
		{payload: map[key]string{every: "+1"}, want: "[4 1 8]"},
		{payload: map[key]string{every: "+-1"}, want: "[2 -1 6]"},
		{payload: map[key]string{every: "+1"}, value: map[key]int64{{site: 5, act: 1, local: 2}: 40}, want: "[4 40 8]"},
	} {
		reset(t, c.value)
		forcedPayload = c.payload
		var got []Int
		Enter(1)
		for _, v := range []Int{3, 0, 7} {
			got = append(got, I[Int](5, v))
		}
		Leave(2)
		forcedPayload = nil
		if fmt.Sprint(got) != c.want {
			t.Errorf("forced %v %v: %v, want %s", c.value, c.payload, got, c.want)
		}
	}
	reset(t, nil)
	forcedPayload = map[key]string{every: "!"}
	t.Cleanup(func() { forcedPayload = nil })
	if B(5, true) || !B(5, false) {
		t.Error("a Boolean forced by ! at every instance was not negated")
	}
}

type recordingT struct{ errors []string }

func (t *recordingT) Helper() {}
func (t *recordingT) Errorf(format string, args ...any) {
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
}

// During trials a panic of a test function ends as a failure of its trial;
// outside trials it goes on.
func TestRecoverEndsOnlyTrialPanics(t *testing.T) {
	panicking := func(rt *recordingT) {
		defer Recover(rt)
		var s []int
		_ = s[1]
	}
	trials = [][]forcedEntry{{}}
	rt := &recordingT{}
	panicking(rt)
	trials = nil
	if len(rt.errors) != 1 || !strings.Contains(rt.errors[0], "index out of range") {
		t.Errorf("trial panic reported as %q, want one error naming it", rt.errors)
	}
	defer func() {
		if recover() == nil {
			t.Error("a panic outside trials was recovered")
		}
	}()
	panicking(&recordingT{})
}

// Limit reads a length, and -1 where reading it panics.
func TestLimitReadsOrGivesUp(t *testing.T) {
	rows := [][]int{{1, 2, 3}}
	if n := Limit(func() int { return len(rows[0]) }); n != 3 {
		t.Errorf("Limit = %d, want 3", n)
	}
	i := 1
	if n := Limit(func() int { return len(rows[i]) }); n != -1 {
		t.Errorf("Limit of a panicking read = %d, want -1", n)
	}
}
