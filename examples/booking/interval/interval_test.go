package interval

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		want    Span
		wantErr bool
	}{
		{in: "09:00-10:30", want: Span{540, 630}},
		{in: "00:00-24:00", want: Span{0, 1440}},
		{in: " 08:15 - 08:45 ", want: Span{495, 525}},
		{in: "10:00-09:00", wantErr: true},
		{in: "10:00", wantErr: true},
		{in: "9:5-10:00", wantErr: true},
		{in: "25:00-26:00", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Parse(%q) error = %v, wantErr %v", tc.in, err, tc.wantErr)
			}
			if err == nil && got != tc.want {
				t.Errorf("Parse(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	cases := []struct {
		name string
		in   []Span
		want []Span
	}{
		{name: "none", in: nil, want: nil},
		{name: "disjoint unsorted", in: []Span{{600, 660}, {480, 540}}, want: []Span{{480, 540}, {600, 660}}},
		{name: "touching join", in: []Span{{480, 540}, {540, 600}}, want: []Span{{480, 600}}},
		{name: "nested", in: []Span{{480, 720}, {500, 510}}, want: []Span{{480, 720}}},
		{name: "empty dropped", in: []Span{{500, 500}, {600, 610}}, want: []Span{{600, 610}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Merge(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestOverlapsOfSeparateSpans(t *testing.T) {
	a, b := MustParse("08:00-09:00"), MustParse("13:00-14:00")
	if a.Overlaps(b) || b.Overlaps(a) {
		t.Errorf("%v and %v should not overlap", a, b)
	}
	c := MustParse("08:30-13:30")
	if !a.Overlaps(c) || !c.Overlaps(b) {
		t.Errorf("%v should overlap both %v and %v", c, a, b)
	}
}

func TestSubtract(t *testing.T) {
	day := Span{480, 1080}
	got := Subtract(day, []Span{{540, 600}, {570, 660}, {1000, 1200}})
	want := []Span{{480, 540}, {660, 1000}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Subtract = %v, want %v", got, want)
	}
}
