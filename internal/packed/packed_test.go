package packed

import (
	"reflect"
	"slices"
	"testing"
)

func TestAppendAllDecode(t *testing.T) {
	var s Set
	for _, x := range []int{-1, 0, 3, 3, 2, 200, 100000} {
		s.Append(x)
	}
	want := []int{0, 3, 200, 100000}
	if got := slices.Collect(s.All()); !reflect.DeepEqual(got, want) || s.Len() != len(want) {
		t.Fatalf("members %v (Len %d), want %v", got, s.Len(), want)
	}
	d, err := Decode(slices.Clone(s.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Collect(d.All()); !reflect.DeepEqual(got, want) || d.Len() != len(want) {
		t.Fatalf("decoded %v (Len %d), want %v", got, d.Len(), want)
	}
	d.Append(100000) // not above the last: dropped
	d.Append(100001)
	if d.Len() != 5 {
		t.Errorf("appending to a decoded set: Len %d, want 5", d.Len())
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	for _, data := range [][]byte{{0x80}, {1, 0}} { // a torn varint; a zero gap
		if _, err := Decode(data); err == nil {
			t.Errorf("Decode(%v) accepted damaged data", data)
		}
	}
}
