// Package interval works with half-open spans of time within one day,
// measured in minutes since midnight.
package interval

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Span is the half-open range [Start, End) of minutes since midnight.
type Span struct {
	Start, End int
}

// MinutesPerDay bounds every span.
const MinutesPerDay = 24 * 60

// Parse reads a span written as "HH:MM-HH:MM", for example "09:00-10:30".
func Parse(s string) (Span, error) {
	from, to, ok := strings.Cut(s, "-")
	if !ok {
		return Span{}, fmt.Errorf("interval: %q is not HH:MM-HH:MM", s)
	}
	start, err := parseClock(strings.TrimSpace(from))
	if err != nil {
		return Span{}, fmt.Errorf("interval: start of %q: %w", s, err)
	}
	end, err := parseClock(strings.TrimSpace(to))
	if err != nil {
		return Span{}, fmt.Errorf("interval: end of %q: %w", s, err)
	}
	if end <= start {
		return Span{}, fmt.Errorf("interval: %q ends before it starts", s)
	}
	return Span{Start: start, End: end}, nil
}

// MustParse is Parse for literals known to be valid.
func MustParse(s string) Span {
	sp, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return sp
}

func parseClock(s string) (int, error) {
	hh, mm, ok := strings.Cut(s, ":")
	if !ok || len(mm) != 2 {
		return 0, fmt.Errorf("clock %q is not HH:MM", s)
	}
	h, err := strconv.Atoi(hh)
	if err != nil || h < 0 || h > 24 {
		return 0, fmt.Errorf("clock %q has a bad hour", s)
	}
	m, err := strconv.Atoi(mm)
	if err != nil || m < 0 || m > 59 {
		return 0, fmt.Errorf("clock %q has a bad minute", s)
	}
	total := h*60 + m
	if total > MinutesPerDay {
		return 0, fmt.Errorf("clock %q is past midnight", s)
	}
	return total, nil
}

// String formats the span as "HH:MM-HH:MM".
func (s Span) String() string {
	return fmt.Sprintf("%02d:%02d-%02d:%02d", s.Start/60, s.Start%60, s.End/60, s.End%60)
}

// Len is the length of the span in minutes.
func (s Span) Len() int {
	if s.End < s.Start {
		return 0
	}
	return s.End - s.Start
}

// Empty reports whether the span holds no minute at all.
func (s Span) Empty() bool { return s.Len() == 0 }

// Overlaps reports whether the two spans share at least one minute.
// Spans that merely touch, such as 09:00-10:00 and 10:00-11:00, do not.
func (s Span) Overlaps(o Span) bool {
	return s.Start <= o.End && o.Start < s.End
}

// Contains reports whether o lies entirely within s.
func (s Span) Contains(o Span) bool {
	return s.Start <= o.Start && o.End <= s.End
}

// Merge returns the union of the spans as a sorted list of disjoint spans;
// touching spans are joined into one.
func Merge(spans []Span) []Span {
	sorted := make([]Span, 0, len(spans))
	for _, s := range spans {
		if !s.Empty() {
			sorted = append(sorted, s)
		}
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Start != sorted[j].Start {
			return sorted[i].Start < sorted[j].Start
		}
		return sorted[i].End < sorted[j].End
	})
	var out []Span
	for _, s := range sorted {
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			if s.End > out[n-1].End {
				out[n-1].End = s.End
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// Subtract returns the parts of from that no cut covers, in order.
func Subtract(from Span, cuts []Span) []Span {
	var free []Span
	cursor := from.Start
	for _, c := range Merge(cuts) {
		if c.End <= cursor || c.Start >= from.End {
			continue
		}
		if c.Start > cursor {
			free = append(free, Span{Start: cursor, End: c.Start})
		}
		cursor = c.End
	}
	if cursor < from.End {
		free = append(free, Span{Start: cursor, End: from.End})
	}
	return free
}
