package booking

import (
	"errors"
	"testing"

	"example.com/booking/interval"
)

var officeHours = interval.MustParse("08:00-18:00")

func TestBook(t *testing.T) {
	cases := []struct {
		name     string
		existing []string
		request  string
		wantErr  error // nil: accepted; ErrClash: rejected as a clash; errAny: rejected otherwise
	}{
		{name: "empty room", request: "09:00-10:00"},
		{name: "back-to-back after 09:00–10:00", existing: []string{"09:00-10:00"}, request: "10:00-11:00"},
		{name: "back-to-back before 10:00–11:00", existing: []string{"10:00-11:00"}, request: "09:00-10:00"},
		{name: "rooms/A/overlap at start", existing: []string{"09:00-10:00"}, request: "09:30-10:30", wantErr: ErrClash},
		{name: "rooms/A/overlap at end", existing: []string{"09:30-10:30"}, request: "09:00-10:00", wantErr: ErrClash},
		{name: "contained inside", existing: []string{"09:00-12:00"}, request: "10:00-11:00", wantErr: ErrClash},
		{name: "réunion d'équipe à midi", existing: []string{"09:00-10:00", "14:00-15:00"}, request: "12:00-13:00"},
		{name: "squeezed between two", existing: []string{"09:00-10:00", "11:00-12:00"}, request: "10:00-11:00"},
		{name: "before opening", request: "07:00-08:30", wantErr: errAny},
		{name: "last slot of the day", existing: []string{"16:00-17:00"}, request: "17:00-18:00"},
	}
	accepted, wantAccepted := 0, 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cal := New(officeHours)
			for _, e := range tc.existing {
				if err := cal.Book("A", "existing", interval.MustParse(e)); err != nil {
					t.Fatalf("setting up %s: %v", e, err)
				}
			}
			err := cal.Book("A", "me", interval.MustParse(tc.request))
			if tc.wantErr == nil {
				wantAccepted++
			}
			if err == nil {
				accepted++
			}
			switch {
			case tc.wantErr == nil && err != nil:
				t.Errorf("Book(%s) = %v, want it accepted", tc.request, err)
			case tc.wantErr == ErrClash && !errors.Is(err, ErrClash):
				t.Errorf("Book(%s) = %v, want a clash", tc.request, err)
			case tc.wantErr == errAny && err == nil:
				t.Errorf("Book(%s) accepted, want an error", tc.request)
			}
		})
	}
	// The calendar totals must agree with the cases that ran.
	if accepted != wantAccepted {
		t.Errorf("accepted %d bookings, want %d", accepted, wantAccepted)
	}
}

var errAny = errors.New("any error")

func TestFree(t *testing.T) {
	cases := []struct {
		name     string
		existing []string
		want     []string
	}{
		{name: "nothing booked", want: []string{"08:00-18:00"}},
		{name: "morning taken", existing: []string{"08:00-12:00"}, want: []string{"12:00-18:00"}},
		{name: "two meetings", existing: []string{"09:00-10:00", "13:00-14:30"}, want: []string{"08:00-09:00", "10:00-13:00", "14:30-18:00"}},
		{name: "fully booked", existing: []string{"08:00-13:00", "13:00-18:00"}, want: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cal := New(officeHours)
			for _, e := range tc.existing {
				if err := cal.Book("A", "existing", interval.MustParse(e)); err != nil {
					t.Fatalf("setting up %s: %v", e, err)
				}
			}
			got := cal.Free("A")
			if len(got) != len(tc.want) {
				t.Fatalf("Free = %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].String() != tc.want[i] {
					t.Errorf("Free[%d] = %v, want %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestFirstFit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		booked   map[string][]string
		minutes  int
		wantRoom string
		wantSlot string
	}{
		{name: "empty calendar", minutes: 30, wantRoom: "A", wantSlot: "08:00-08:30"},
		{name: "A busy early, B free", booked: map[string][]string{"A": {"08:00-09:00"}}, minutes: 60, wantRoom: "B", wantSlot: "08:00-09:00"},
		{name: "gap before first meeting", booked: map[string][]string{"A": {"09:00-10:00"}, "B": {"08:00-12:00"}}, minutes: 60, wantRoom: "A", wantSlot: "08:00-09:00"},
		{name: "only afternoon left", booked: map[string][]string{"A": {"08:00-13:00"}, "B": {"08:00-14:00"}}, minutes: 90, wantRoom: "A", wantSlot: "13:00-14:30"},
		{name: "long meeting skips short gaps", booked: map[string][]string{"A": {"08:30-09:00", "10:00-17:00"}}, minutes: 120, wantRoom: "B", wantSlot: "08:00-10:00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cal := New(officeHours)
			for room, spans := range tc.booked {
				for _, s := range spans {
					if err := cal.Book(room, "existing", interval.MustParse(s)); err != nil {
						t.Fatalf("setting up %s %s: %v", room, s, err)
					}
				}
			}
			room, slot, err := cal.FirstFit([]string{"A", "B"}, "me", tc.minutes)
			if err != nil {
				t.Fatalf("FirstFit(%d) failed: %v", tc.minutes, err)
			}
			if room != tc.wantRoom || slot.String() != tc.wantSlot {
				t.Errorf("FirstFit(%d) = %s %v, want %s %s", tc.minutes, room, slot, tc.wantRoom, tc.wantSlot)
			}
		})
	}
}

func TestUtilisation(t *testing.T) {
	cal := New(officeHours)
	for _, s := range []string{"08:00-10:00", "12:00-13:00"} {
		if err := cal.Book("A", "x", interval.MustParse(s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := cal.Utilisation("A"); got != 0.3 {
		t.Errorf("Utilisation = %v, want 0.3", got)
	}
	if got := cal.Utilisation("B"); got != 0 {
		t.Errorf("Utilisation of an unused room = %v, want 0", got)
	}
}
