package faultlineagx

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"math"
	"strings"
	"testing"
)

// reset gives a test a fresh runtime writing its trace to the returned
// buffer.
func reset(t *testing.T, force map[key]int64) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	counts, acts, stack, tags = map[int32]int32{}, map[int32]int32{}, nil, map[int32]int64{}
	forced, events, depth = force, 0, 0
	out = bufio.NewWriter(&buf)
	t.Cleanup(func() { out, forced = nil, nil })
	return &buf
}

func trace(buf *bytes.Buffer) []string {
	out.Flush()
	return strings.Fields(strings.ReplaceAll(buf.String(), "\n", "|"))
}

func TestRecordsAndForcesPerActivation(t *testing.T) {
	buf := reset(t, map[key]int64{{site: 5, act: 1, local: 2}: 40})
	Enter(1)
	if got := I[Int](5, 7); got != 7 {
		t.Errorf("first instance: got %d, want the recorded 7", got)
	}
	if got := I[Int](5, 8); got != 40 {
		t.Errorf("second instance: got %d, want the forced 40", got)
	}
	Leave(2)
	if got := I[Int](5, 9); got != 9 {
		t.Errorf("outside the activation: got %d, want 9", got)
	}
	want := "1 1 1 0|5 1 1 7|5 1 2 40|2 1 1 0|5 0 1 9|"
	if got := strings.Join(trace(buf), " "); got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
}

func TestFloatsTravelAsBits(t *testing.T) {
	reset(t, map[key]int64{{site: 3, local: 1}: int64(math.Float64bits(2.5))})
	if got := F64[Float64](3, 1.0); got != 2.5 {
		t.Errorf("forced float64: got %v, want 2.5", got)
	}
	reset(t, map[key]int64{{site: 3, local: 1}: int64(math.Float32bits(-1.5))})
	if got := F32[Float32](3, 1.0); got != -1.5 {
		t.Errorf("forced float32: got %v, want -1.5", got)
	}
}

func TestCaseFollowsForcedOutcome(t *testing.T) {
	// The tag is 2; case 3 is forced to match and case 2 forced not to.
	reset(t, map[key]int64{{site: 11, local: 1}: 1, {site: 12, local: 1}: 0})
	tag := Tag[Int](10, 2)
	if v := Case[Int](11, 10, 3); v != tag {
		t.Errorf("case forced equal: got %d, want the tag %d", v, tag)
	}
	if v := Case[Int](12, 10, 2); v == tag {
		t.Errorf("case forced different: got the tag %d", v)
	}
}

func TestGuardsRecordOnlyWhenAboutToPanic(t *testing.T) {
	buf := reset(t, nil)
	s := []int{1, 2, 3}
	Index[Int](20, 2, Len(s))
	Index[Int](21, 3, Len(s))
	Slice[Int](22, 2, 0, 0, Cap(s))
	Slice[Int](23, 4, 1, 1, Cap(s))
	Div[Int](24, 0)
	Div[Int](25, 3)
	if got, want := strings.Join(trace(buf), " "), "21 0 1 3|23 0 1 3|24 0 1 0|"; got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
	if LenString("héllo") != 6 {
		t.Error("LenString counts bytes")
	}
}

func TestStringsAreQuotedAndForced(t *testing.T) {
	buf := reset(t, nil)
	forcedStr = map[key]string{{site: 4, local: 2}: "forced\n"}
	t.Cleanup(func() { forcedStr = nil })
	if got := S[String](4, "a b\x00"); got != "a b\x00" {
		t.Errorf("first instance: got %q", got)
	}
	if got := S[String](4, "x"); got != "forced\n" {
		t.Errorf("second instance: got %q, want the forced string", got)
	}
	b := []byte("bytes")
	if got := Y[ByteSlice](6, b); &got[0] != &b[0] {
		t.Error("a byte slice not forced is passed through")
	}
	long := strings.Repeat("x", maxString+1)
	S[String](7, long)
	out.Flush()
	want := "4 0 1 \"a b\\x00\"\n4 0 2 \"forced\\n\"\n6 0 1 \"bytes\"\n7 0 1 #1025\n"
	if got := buf.String(); got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
}

func TestErrorsRecordAndForceTheirNilness(t *testing.T) {
	own := errors.New("own")
	buf := reset(t, map[key]int64{{site: 3, local: 2}: 1, {site: 3, local: 3}: 0, {site: 3, local: 4}: 1})
	if got := E[Error](3, own); got != own {
		t.Errorf("not forced: got %v", got)
	}
	if got := E[Error](3, nil); got != errForced {
		t.Errorf("nil forced non-nil: got %v, want the forced error", got)
	}
	if got := E[Error](3, own); got != nil {
		t.Errorf("forced nil: got %v", got)
	}
	if got := E[Error](3, own); got != own {
		t.Errorf("non-nil forced non-nil: got %v, want its own error", got)
	}
	if got, want := strings.Join(trace(buf), " "), "3 0 1 1|3 0 2 1|3 0 3 0|3 0 4 1|"; got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
}

// Package initialization, before the tests parse their flags, writes no
// events but counts its instances: the test's own keep their numbers.
func TestInitializationIsCountedNotWritten(t *testing.T) {
	buf := reset(t, nil)
	started := false
	testsStarted = func() bool { return started }
	t.Cleanup(func() { testsStarted = flag.Parsed })
	Enter(1)
	I[Int](5, 7)
	Leave(2)
	if got := trace(buf); len(got) != 0 {
		t.Fatalf("initialization wrote %q", got)
	}
	started = true
	Enter(1)
	I[Int](5, 8)
	Leave(2)
	want := "1 2 1 0|5 2 1 8|2 2 1 0|"
	if got := strings.Join(trace(buf), " "); got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
}
