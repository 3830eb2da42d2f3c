package testbuild

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeEvent decodes one line of test2json's output into ev, as
// json.Unmarshal would, and reports whether the line was a valid event.
//
// A module of thousands of tiny tests makes tens of thousands of events;
// decoding them through reflection took about a third of faultline's own
// time on such a module. test2json writes each event compactly, its keys
// spelled exactly, its values strings and one number: that shape is read
// here directly, and any other (whitespace, escapes of surrogates, keys
// differing only in case, values of other types) goes to json.Unmarshal,
// so that the result is always json.Unmarshal's.
func decodeEvent(line []byte, ev *Event) bool {
	if fast, ok := decodeEventFast(line); ok {
		*ev = fast
		return true
	}
	*ev = Event{}
	return json.Unmarshal(line, ev) == nil
}

// decodeEventFast reads a compact event; ok is false when the line is not
// of the shape it reads, whether or not it is valid JSON.
func decodeEventFast(line []byte) (ev Event, ok bool) {
	s := string(line)
	s = strings.TrimSuffix(s, "\n")
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return Event{}, false
	}
	s = s[1 : len(s)-1]
	for first := true; s != ""; first = false {
		if !first {
			if s[0] != ',' {
				return Event{}, false
			}
			s = s[1:]
		}
		key, rest, ok := jsonString(s)
		if !ok || rest == "" || rest[0] != ':' {
			return Event{}, false
		}
		s = rest[1:]
		if s == "" {
			return Event{}, false
		}
		var target *string
		switch key {
		case "Action":
			target = &ev.Action
		case "Test":
			target = &ev.Test
		case "Output":
			target = &ev.Output
		case "Elapsed":
			end := strings.IndexAny(s, ",}")
			if end < 0 {
				end = len(s)
			}
			f, ok := jsonNumber(s[:end])
			if !ok {
				return Event{}, false
			}
			ev.Elapsed, s = f, s[end:]
			continue
		default:
			// A key matching a field but for case is that field to
			// json.Unmarshal.
			for _, field := range []string{"Action", "Test", "Output", "Elapsed"} {
				if strings.EqualFold(key, field) {
					return Event{}, false
				}
			}
		}
		if s[0] == '"' {
			v, rest, ok := jsonString(s)
			if !ok {
				return Event{}, false
			}
			if target != nil {
				*target = v
			}
			s = rest
			continue
		}
		if target != nil {
			return Event{}, false // not a string where one is expected
		}
		end := strings.IndexAny(s, ",}")
		if end < 0 {
			end = len(s)
		}
		if _, ok := jsonNumber(s[:end]); !ok {
			return Event{}, false // an object, array, literal: json.Unmarshal's
		}
		s = s[end:]
	}
	return ev, true
}

// jsonString reads the JSON string s starts with and returns its value and
// what follows it. It takes escapes of one UTF-16 unit and valid UTF-8;
// anything else (surrogate escapes, invalid bytes, control characters) is
// left to json.Unmarshal.
func jsonString(s string) (value, rest string, ok bool) {
	if s == "" || s[0] != '"' {
		return "", "", false
	}
	var b []byte // the value, once an escape makes it differ from the input
	start := 1
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			if b == nil {
				return s[1:i], s[i+1:], true
			}
			return string(append(b, s[start:i]...)), s[i+1:], true
		case c < 0x20:
			return "", "", false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", "", false
			}
			i += size
			continue
		case c != '\\':
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", "", false
		}
		b = append(b, s[start:i]...)
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
			i += 2
		case 'b':
			b, i = append(b, '\b'), i+2
		case 'f':
			b, i = append(b, '\f'), i+2
		case 'n':
			b, i = append(b, '\n'), i+2
		case 'r':
			b, i = append(b, '\r'), i+2
		case 't':
			b, i = append(b, '\t'), i+2
		case 'u':
			if i+6 > len(s) {
				return "", "", false
			}
			n, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
			if err != nil || n >= 0xd800 && n < 0xe000 {
				return "", "", false
			}
			b, i = utf8.AppendRune(b, rune(n)), i+6
		default:
			return "", "", false
		}
		start = i
	}
	return "", "", false
}

// jsonNumber parses a JSON number; it refuses what JSON does not allow
// (leading zeros, a bare sign or point, Inf, hexadecimal).
func jsonNumber(s string) (float64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits[0] < '0' || digits[0] > '9' || len(digits) > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9' {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
		if c == '.' && (i+1 >= len(digits) || digits[i+1] < '0' || digits[i+1] > '9') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
