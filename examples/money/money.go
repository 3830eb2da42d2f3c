// Package money represents amounts of money exactly, in the minor units of
// their currency, and splits them without losing or inventing a cent.
package money

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Currency describes how many decimal places an ISO 4217 currency uses.
type Currency struct {
	Code     string
	Decimals int
}

var currencies = map[string]Currency{
	"EUR": {"EUR", 2},
	"USD": {"USD", 2},
	"JPY": {"JPY", 0},
	"BHD": {"BHD", 3},
}

// Lookup returns the currency with the given code.
func Lookup(code string) (Currency, error) {
	c, ok := currencies[code]
	if !ok {
		return Currency{}, fmt.Errorf("money: unknown currency %q", code)
	}
	return c, nil
}

// Amount is an exact quantity of money in minor units (cents for EUR).
type Amount struct {
	Units    int64
	Currency Currency
}

// ErrCurrencyMismatch is returned when amounts of different currencies meet.
var ErrCurrencyMismatch = errors.New("money: currency mismatch")

// Parse reads a decimal amount such as "-12.345" and rounds it half to even
// to the currency's number of decimals.
func Parse(s, code string) (Amount, error) {
	cur, err := Lookup(code)
	if err != nil {
		return Amount{}, err
	}
	text := s
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimPrefix(text, "-")
	whole, frac, hasDot := strings.Cut(text, ".")
	if whole == "" || (hasDot && frac == "") || !digitsOnly(whole) || !digitsOnly(frac) {
		return Amount{}, fmt.Errorf("money: %q is not a decimal amount", s)
	}
	digits := whole + frac
	exp := len(frac) - cur.Decimals // digits beyond the currency's precision
	var dropped string
	if exp > 0 {
		digits, dropped = digits[:len(digits)-exp], digits[len(digits)-exp:]
	} else {
		digits += strings.Repeat("0", -exp)
	}
	units, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return Amount{}, fmt.Errorf("money: %q is out of range: %w", s, err)
	}
	if roundsUp(units, dropped) {
		units++
	}
	if neg {
		units = -units
	}
	return Amount{Units: units, Currency: cur}, nil
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// roundsUp decides banker's rounding: more than half rounds up, exactly half
// rounds to the even neighbour.
func roundsUp(kept int64, dropped string) bool {
	if dropped == "" || dropped[0] < '5' {
		return false
	}
	if dropped[0] > '5' || strings.TrimRight(dropped[1:], "0") != "" {
		return true
	}
	return kept%2 == 1
}

// String formats the amount with its currency's decimals, e.g. "-1234.50 EUR".
func (a Amount) String() string {
	units := a.Units
	sign := ""
	if units < 0 {
		sign, units = "-", -units
	}
	digits := strconv.FormatInt(units, 10)
	d := a.Currency.Decimals
	if d == 0 {
		return fmt.Sprintf("%s%s %s", sign, digits, a.Currency.Code)
	}
	if len(digits) <= d {
		digits = strings.Repeat("0", d-len(digits)+1) + digits
	}
	return fmt.Sprintf("%s%s.%s %s", sign, digits[:len(digits)-d], digits[len(digits)-d:], a.Currency.Code)
}

// Add returns a+b.
func (a Amount) Add(b Amount) (Amount, error) {
	if a.Currency != b.Currency {
		return Amount{}, fmt.Errorf("%w: %s + %s", ErrCurrencyMismatch, a.Currency.Code, b.Currency.Code)
	}
	return Amount{Units: a.Units + b.Units, Currency: a.Currency}, nil
}

// Allocate splits a non-negative amount in proportion to the ratios. Every
// share is rounded down and the left-over minor units go, one each, to the
// shares that lost the most to rounding, so the shares always add up to a.
func (a Amount) Allocate(ratios ...int) ([]Amount, error) {
	if a.Units < 0 {
		return nil, fmt.Errorf("money: cannot allocate negative %v", a)
	}
	if len(ratios) == 0 {
		return nil, errors.New("money: allocate needs at least one ratio")
	}
	var total int64
	for _, r := range ratios {
		if r < 0 {
			return nil, fmt.Errorf("money: negative ratio %d", r)
		}
		total += int64(r)
	}
	if total == 0 {
		return nil, errors.New("money: ratios add up to zero")
	}
	shares := make([]Amount, len(ratios))
	lost := make([]int64, len(ratios)) // remainder of each share's division, in units of 1/total
	var given int64
	for i, r := range ratios {
		shares[i] = Amount{Units: a.Units * int64(r) / total, Currency: a.Currency}
		lost[i] = a.Units * int64(r) % total
		given = shares[i].Units
	}
	order := make([]int, len(ratios))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return lost[order[x]] > lost[order[y]] })
	for i := int64(0); i < a.Units-given; i++ {
		shares[order[i]].Units++
	}
	return shares, nil
}
