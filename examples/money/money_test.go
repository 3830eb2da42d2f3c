package money

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in, code string
		want     int64
		wantErr  bool
	}{
		{in: "12.34", code: "EUR", want: 1234},
		{in: "12", code: "EUR", want: 1200},
		{in: "0.5", code: "USD", want: 50},
		{in: "-3.07", code: "USD", want: -307},
		{in: "2.345", code: "EUR", want: 234},
		{in: "2.355", code: "EUR", want: 236},
		{in: "2.3451", code: "EUR", want: 235},
		{in: "-0.125", code: "EUR", want: -12},
		{in: "1500", code: "JPY", want: 1500},
		{in: "1499.5", code: "JPY", want: 1500},
		{in: "1.2345", code: "BHD", want: 1234},
		{in: "12.", code: "EUR", wantErr: true},
		{in: "1,50", code: "EUR", wantErr: true},
		{in: "5", code: "XYZ", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.in+" "+tc.code, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in, tc.code)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Parse(%q, %s) error = %v, wantErr %v", tc.in, tc.code, err, tc.wantErr)
			}
			if err == nil && got.Units != tc.want {
				t.Errorf("Parse(%q, %s) = %d units, want %d", tc.in, tc.code, got.Units, tc.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	eur, _ := Lookup("EUR")
	jpy, _ := Lookup("JPY")
	cases := map[string]Amount{
		"12.34 EUR":  {1234, eur},
		"0.05 EUR":   {5, eur},
		"-0.50 EUR":  {-50, eur},
		"1500 JPY":   {1500, jpy},
		"0.00 EUR":   {0, eur},
		"-10.00 EUR": {-1000, eur},
	}
	for want, a := range cases {
		if got := a.String(); got != want {
			t.Errorf("String of %d %s = %q, want %q", a.Units, a.Currency.Code, got, want)
		}
	}
}

func TestAdd(t *testing.T) {
	a, _ := Parse("1.25", "EUR")
	b, _ := Parse("2.80", "EUR")
	sum, err := a.Add(b)
	if err != nil || sum.Units != 405 {
		t.Errorf("1.25 + 2.80 = %v, %v; want 4.05 EUR", sum, err)
	}
	c, _ := Parse("1", "USD")
	if _, err := a.Add(c); !errors.Is(err, ErrCurrencyMismatch) {
		t.Errorf("EUR + USD error = %v, want ErrCurrencyMismatch", err)
	}
}

func TestAllocate(t *testing.T) {
	cases := []struct {
		name    string
		amount  string
		ratios  []int
		want    []int64
		wantErr bool
	}{
		{name: "single share", amount: "10.00", ratios: []int{1}, want: []int64{1000}},
		{name: "one cent two ways", amount: "0.01", ratios: []int{1, 1}, want: []int64{1, 0}},
		{name: "last takes all", amount: "0.05", ratios: []int{0, 1}, want: []int64{0, 5}},
		{name: "halves", amount: "1.00", ratios: []int{1, 1}, want: []int64{50, 50}},
		{name: "thirds", amount: "0.10", ratios: []int{1, 1, 1}, want: []int64{4, 3, 3}},
		{name: "rent 70/30", amount: "1000.00", ratios: []int{70, 30}, want: []int64{70000, 30000}},
		{name: "remainder to largest loss", amount: "0.05", ratios: []int{1, 3}, want: []int64{1, 4}},
		{name: "first takes all", amount: "0.07", ratios: []int{1, 0}, want: []int64{7, 0}},
		{name: "zero amount", amount: "0", ratios: []int{2, 5}, want: []int64{0, 0}},
		{name: "no ratios", amount: "1", ratios: nil, wantErr: true},
		{name: "negative ratio", amount: "1", ratios: []int{2, -1}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.amount, "EUR")
			if err != nil {
				t.Fatal(err)
			}
			shares, err := a.Allocate(tc.ratios...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Allocate(%v) error = %v, wantErr %v", tc.ratios, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if len(shares) != len(tc.want) {
				t.Fatalf("Allocate(%v) gave %d shares, want %d", tc.ratios, len(shares), len(tc.want))
			}
			var sum int64
			for i, s := range shares {
				sum += s.Units
				if s.Units != tc.want[i] {
					t.Errorf("share %d = %d, want %d", i, s.Units, tc.want[i])
				}
			}
			if sum != a.Units {
				t.Errorf("shares add up to %d, want %d", sum, a.Units)
			}
		})
	}
}
