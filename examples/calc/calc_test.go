package calc

import (
	"math"
	"strings"
	"testing"
)

func TestEval(t *testing.T) {
	env := Env{"x": 3, "rate": 0.2, "π": math.Pi}
	cases := []struct {
		name    string
		src     string
		want    float64
		wantErr bool
	}{
		{name: "precedence", src: "1 + 2*3", want: 7},
		{name: "parentheses", src: "(1 + 2) * 3", want: 9},
		{name: "left associative minus", src: "10 - 4 - 3", want: 3},
		{name: "left associative divide", src: "64 / 4 / 2", want: 8},
		{name: "square", src: "x^2", want: 9},
		{name: "power binds tighter than times", src: "2 * 3^2", want: 18},
		{name: "power tower", src: "2^3^2", want: 512},
		{name: "power tower with variable", src: "x^2^2 - 1", want: 80},
		{name: "compound growth 10^2^3", src: "10^2^3 / 1e6", want: 100},
		{name: "tower inside parentheses", src: "(2^2^3) - 200", want: 56},
		{name: "negated power", src: "-2^2", want: -4},
		{name: "unary minus", src: "-x + 5", want: 2},
		{name: "exponent literal", src: "1.5e3 * rate", want: 300},
		{name: "negative exponent literal", src: "25e-2 * 4", want: 1},
		{name: "unicode variable π", src: "2 * π", want: 2 * math.Pi},
		{name: "functions", src: "max(1, sqrt(16), abs(-3))", want: 4},
		{name: "function of a tower", src: "sqrt(2^2^2)", want: 4},
		{name: "division by zero", src: "1 / (x - 3)", wantErr: true},
		{name: "undefined variable", src: "y + 1", wantErr: true},
		{name: "unknown function", src: "sin(1)", wantErr: true},
		{name: "missing paren", src: "(1 + 2", wantErr: true},
		{name: "wrong arity", src: "sqrt(1, 2)", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Eval(tc.src, env)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Eval(%q) error = %v, wantErr %v", tc.src, err, tc.wantErr)
			}
			if err == nil && math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Eval(%q) = %g, want %g", tc.src, got, tc.want)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		src  string
		want string // token texts joined by spaces
	}{
		{src: "1+2", want: "1 + 2"},
		{src: " rate*1.5e-3 ", want: "rate * 1.5e-3"},
		{src: "max(a_1,.5)", want: "max ( a_1 , .5 )"},
		{src: "2E+10^x", want: "2E+10 ^ x"},
		{src: "1e", want: "1 e"},
		{src: "größe/2", want: "größe / 2"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			toks, err := Tokenize(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, tok := range toks[:len(toks)-1] {
				texts = append(texts, tok.Text)
			}
			if got := strings.Join(texts, " "); got != tc.want {
				t.Errorf("Tokenize(%q) = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
	if _, err := Tokenize("1 # 2"); err == nil {
		t.Error(`Tokenize("1 # 2") accepted an unknown character`)
	}
}

// FuzzEval checks that evaluation never panics and that wrapping an
// expression in parentheses does not change its value.
func FuzzEval(f *testing.F) {
	for _, seed := range []string{"1+2*3", "2^3^2", "-(x)", "max(1,2,3)", "1e-3/x", "((", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		env := Env{"x": 2}
		v, err := Eval(src, env)
		if err != nil {
			return
		}
		w, err := Eval("("+src+")", env)
		if err != nil {
			t.Fatalf("Eval(%q) = %g but its parenthesised form fails: %v", src, v, err)
		}
		if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
			t.Errorf("Eval(%q) = %g, parenthesised %g", src, v, w)
		}
	})
}
