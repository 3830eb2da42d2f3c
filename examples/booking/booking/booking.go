// Package booking keeps a day's calendar of meeting rooms: it accepts
// bookings that do not clash, lists free time and finds the first slot
// that fits a meeting.
package booking

import (
	"errors"
	"fmt"
	"sort"

	"example.com/booking/interval"
)

// ErrClash is returned when a booking overlaps an existing one.
var ErrClash = errors.New("booking: clashes with an existing booking")

// Booking is one accepted reservation of a room.
type Booking struct {
	Who  string
	When interval.Span
}

// Calendar holds the bookings of every room for one day.
type Calendar struct {
	open  interval.Span
	rooms map[string][]Booking
}

// New returns an empty calendar whose rooms can be booked within open hours.
func New(open interval.Span) *Calendar {
	return &Calendar{open: open, rooms: make(map[string][]Booking)}
}

// Book reserves room for who during when, unless the span lies outside
// opening hours or overlaps another booking of the same room.
func (c *Calendar) Book(room, who string, when interval.Span) error {
	if when.Empty() {
		return fmt.Errorf("booking: empty span %v for %s", when, who)
	}
	if !c.open.Contains(when) {
		return fmt.Errorf("booking: %v is outside opening hours %v", when, c.open)
	}
	for _, b := range c.rooms[room] {
		if b.When.Overlaps(when) {
			return fmt.Errorf("%w: %s has %s at %v", ErrClash, b.Who, room, b.When)
		}
	}
	bookings := append(c.rooms[room], Booking{Who: who, When: when})
	sort.Slice(bookings, func(i, j int) bool { return bookings[i].When.Start < bookings[j].When.Start })
	c.rooms[room] = bookings
	return nil
}

// Bookings returns the room's bookings in order of start time.
func (c *Calendar) Bookings(room string) []Booking {
	return append([]Booking(nil), c.rooms[room]...)
}

// Free returns the room's unbooked spans within opening hours.
func (c *Calendar) Free(room string) []interval.Span {
	taken := make([]interval.Span, 0, len(c.rooms[room]))
	for _, b := range c.rooms[room] {
		taken = append(taken, b.When)
	}
	return interval.Subtract(c.open, taken)
}

// FirstFit books the earliest slot of the given length in any of the
// rooms, trying rooms in the order given, and reports where it went.
func (c *Calendar) FirstFit(rooms []string, who string, minutes int) (string, interval.Span, error) {
	if minutes <= 0 {
		return "", interval.Span{}, fmt.Errorf("booking: meeting length %d must be positive", minutes)
	}
	type candidate struct {
		room string
		slot interval.Span
	}
	var best *candidate
	for _, room := range rooms {
		for _, free := range c.Free(room) {
			if free.Len() < minutes {
				continue
			}
			slot := interval.Span{Start: free.Start, End: free.Start + minutes}
			if best == nil || slot.Start < best.slot.Start {
				best = &candidate{room: room, slot: slot}
			}
			break
		}
	}
	if best == nil {
		return "", interval.Span{}, fmt.Errorf("booking: no room has %d free minutes", minutes)
	}
	if err := c.Book(best.room, who, best.slot); err != nil {
		return "", interval.Span{}, err
	}
	return best.room, best.slot, nil
}

// Utilisation is the fraction of opening hours the room is booked.
func (c *Calendar) Utilisation(room string) float64 {
	if c.open.Len() == 0 {
		return 0
	}
	busy := 0
	for _, b := range c.rooms[room] {
		busy += b.When.Len()
	}
	return float64(busy) / float64(c.open.Len())
}
