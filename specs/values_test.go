package specs

import (
	"math"
	"strings"
	"testing"
)

// Corpus files as go test writes them (internal/fuzz's encoding): each
// reads back to the same values, and the values write back to the same
// file.
func TestCorpusFormat(t *testing.T) {
	cases := []struct {
		file string
		vals []Value
	}{
		{"go test fuzz v1\nint(3)\nstring(\"a\")\n", []Value{{Type: "int", Bits: 3}, {Type: "string", Str: "a"}}},
		{"go test fuzz v1\nint(-9223372036854775808)\nuint64(18446744073709551615)\n", []Value{{Type: "int", Bits: math.MinInt64}, {Type: "uint64", Bits: -1}}},
		{"go test fuzz v1\nint8(-1)\nuint16(65535)\nbool(true)\nbool(false)\n", []Value{{Type: "int8", Bits: -1}, {Type: "uint16", Bits: 65535}, {Type: "bool", Bits: 1}, {Type: "bool"}}},
		{"go test fuzz v1\nbyte('a')\nrune('ü')\nint32(-1)\n", []Value{{Type: "uint8", Bits: 'a'}, {Type: "int32", Bits: 'ü'}, {Type: "int32", Bits: -1}}},
		{"go test fuzz v1\nbyte('\\x00')\n[]byte(\"\\x00\\xff\")\n", []Value{{Type: "uint8", Bits: 0}, {Type: "[]byte", Str: "\x00\xff"}}},
		{"go test fuzz v1\nfloat64(1.5)\nfloat32(-0)\nfloat64(+Inf)\nfloat64(1e+100)\n", []Value{
			{Type: "float64", Bits: int64(math.Float64bits(1.5))}, {Type: "float32", Bits: int64(math.Float32bits(float32(math.Copysign(0, -1))))},
			{Type: "float64", Bits: int64(math.Float64bits(math.Inf(1)))}, {Type: "float64", Bits: int64(math.Float64bits(1e100))}}},
		{"go test fuzz v1\nmath.Float64frombits(0x7ff8000000000002)\n", []Value{{Type: "float64", Bits: 0x7ff8000000000002}}},
	}
	for _, c := range cases {
		got, err := UnmarshalCorpus([]byte(c.file))
		if err != nil {
			t.Errorf("%q: %v", c.file, err)
			continue
		}
		if len(got) != len(c.vals) {
			t.Errorf("%q: %+v, want %+v", c.file, got, c.vals)
			continue
		}
		for i := range got {
			if got[i] != c.vals[i] {
				t.Errorf("%q value %d: %+v, want %+v", c.file, i, got[i], c.vals[i])
			}
		}
		if back := string(MarshalCorpus(c.vals)); back != c.file {
			t.Errorf("%+v written as %q, want %q", c.vals, back, c.file)
		}
	}
	for _, bad := range []string{"", "int(3)\n", "go test fuzz v1\n", "go test fuzz v1\nint(\"a\")\n", "go test fuzz v1\nfoo(1)\n", "go test fuzz v1\nint8(300)\n"} {
		if _, err := UnmarshalCorpus([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Values read as Go spells them, and the runtime's exchange format reads
// back what it writes.
func TestValueSpelling(t *testing.T) {
	vals := map[int]Value{1: {Type: "int", Bits: -3}, 2: {Type: "string", Str: "a b\n"}, 3: {Type: "uint8", Bits: 200},
		4: {Type: "float64", Bits: int64(math.Float64bits(0.1))}, 5: {Type: "bool", Bits: 1}, 6: {Type: "[]byte", Str: "\x01"}}
	var spelled []string
	for i := 1; i <= 6; i++ {
		spelled = append(spelled, vals[i].String())
	}
	if got, want := strings.Join(spelled, " "), `int(-3) "a b\n" uint8(200) float64(0.1) bool(true) []byte("\x01")`; got != want {
		t.Errorf("spelled %s, want %s", got, want)
	}
	back, err := decodeInputs(encodeInputs(vals))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if back[i] != v {
			t.Errorf("argument %d read back as %+v, want %+v", i, back[i], v)
		}
	}
}

// A name is what go test names an entry: 16 hexadecimal digits of the
// content's SHA-256.
func TestCorpusName(t *testing.T) {
	if got := CorpusName([]byte("go test fuzz v1\nint(3)\n")); len(got) != 16 || strings.Trim(got, "0123456789abcdef") != "" {
		t.Errorf("name %q", got)
	}
}
