// Package faultlinein substitutes the arguments of a fuzz function, so
// that faultline can run a fuzz target on inputs of its choosing through
// the target's own seed entry. It is injected into instrumented test
// binaries as <module>/internal/faultlinein; nothing else imports it.
//
// The instrumentation assigns each parameter of the fuzz function, on
// entry, V(index, parameter): the value listed for that index in the file
// named by FAULTLINE_INPUT, or the parameter's own value. With
// FAULTLINE_INPUT_DUMP set, the values the function was entered with are
// written there first. One line per value: "index type literal", a number
// in the trace encoding of faultline's analysis (an integer as itself, a
// float as its IEEE bits, a Boolean as 0 or 1), a string quoted as Go
// quotes it.
package faultlinein

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// Environment variables the runtime reads.
const (
	InputEnv = "FAULTLINE_INPUT"      // values to substitute
	DumpEnv  = "FAULTLINE_INPUT_DUMP" // where the entry values are written
)

var (
	mu     sync.Mutex
	inputs map[int]string // literal by parameter index
	dump   *os.File
)

func init() {
	if p := os.Getenv(InputEnv); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "faultline: cannot read the inputs:", err)
			os.Exit(3)
		}
		inputs = map[int]string{}
		for _, line := range strings.Split(string(data), "\n") {
			parts := strings.SplitN(line, " ", 3)
			if len(parts) != 3 {
				continue
			}
			if i, err := strconv.Atoi(parts[0]); err == nil {
				inputs[i] = parts[2]
			}
		}
	}
	if p := os.Getenv(DumpEnv); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "faultline: cannot write the inputs:", err)
			os.Exit(3)
		}
		dump = f
	}
}

// V returns the substitute for parameter i of the fuzz function, or def,
// its own value.
func V[T any](i int, def T) T {
	mu.Lock()
	defer mu.Unlock()
	if dump != nil {
		typ, lit := encode(any(def))
		fmt.Fprintf(dump, "%d %s %s\n", i, typ, lit)
	}
	lit, ok := inputs[i]
	if !ok {
		return def
	}
	v := def
	if err := decode(any(&v), lit); err != nil {
		fmt.Fprintf(os.Stderr, "faultline: bad input %d %q: %v\n", i, lit, err)
		os.Exit(3)
	}
	return v
}

func encode(v any) (string, string) {
	switch v := v.(type) {
	case string:
		return "string", strconv.Quote(v)
	case []byte:
		return "[]byte", strconv.Quote(string(v))
	case bool:
		if v {
			return "bool", "1"
		}
		return "bool", "0"
	case float32:
		return "float32", strconv.FormatInt(int64(math.Float32bits(v)), 10)
	case float64:
		return "float64", strconv.FormatInt(int64(math.Float64bits(v)), 10)
	case int:
		return "int", strconv.FormatInt(int64(v), 10)
	case int8:
		return "int8", strconv.FormatInt(int64(v), 10)
	case int16:
		return "int16", strconv.FormatInt(int64(v), 10)
	case int32:
		return "int32", strconv.FormatInt(int64(v), 10)
	case int64:
		return "int64", strconv.FormatInt(v, 10)
	case uint:
		return "uint", strconv.FormatInt(int64(v), 10)
	case uint8:
		return "uint8", strconv.FormatInt(int64(v), 10)
	case uint16:
		return "uint16", strconv.FormatInt(int64(v), 10)
	case uint32:
		return "uint32", strconv.FormatInt(int64(v), 10)
	case uint64:
		return "uint64", strconv.FormatInt(int64(v), 10)
	}
	return fmt.Sprintf("%T", v), "?"
}

func decode(p any, lit string) error {
	if s, ok := p.(*string); ok {
		v, err := strconv.Unquote(lit)
		*s = v
		return err
	}
	if b, ok := p.(*[]byte); ok {
		v, err := strconv.Unquote(lit)
		*b = []byte(v)
		return err
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		return err
	}
	switch p := p.(type) {
	case *bool:
		*p = n != 0
	case *float32:
		*p = math.Float32frombits(uint32(n))
	case *float64:
		*p = math.Float64frombits(uint64(n))
	case *int:
		*p = int(n)
	case *int8:
		*p = int8(n)
	case *int16:
		*p = int16(n)
	case *int32:
		*p = int32(n)
	case *int64:
		*p = n
	case *uint:
		*p = uint(n)
	case *uint8:
		*p = uint8(n)
	case *uint16:
		*p = uint16(n)
	case *uint32:
		*p = uint32(n)
	case *uint64:
		*p = uint64(n)
	default:
		return fmt.Errorf("unsupported type %T", p)
	}
	return nil
}

// failer is the part of *testing.T that Recover needs.
type failer interface {
	Errorf(format string, args ...any)
}

// recoveredMarker starts the failure Recover reports.
const recoveredMarker = "faultline: the fuzz function panicked: "

// Recover returns a function that, deferred in the fuzz function, turns a
// panic into a failure of t reported with the panicking goroutine's stack,
// so that the test process lives to write its coverage profile.
func Recover(t failer) func() {
	return func() {
		r := recover()
		if r == nil {
			return
		}
		stack := string(debug.Stack())
		// The stack from the panicking call down: the frames above it are
		// this function's and the runtime's.
		if i := strings.Index(stack, "\npanic("); i >= 0 {
			if j := strings.Index(stack[i+1:], "\n\t"); j >= 0 {
				if k := strings.Index(stack[i+1+j+2:], "\n"); k >= 0 {
					stack = "goroutine 1 [running]:\n" + stack[i+1+j+2+k+1:]
				}
			}
		}
		t.Errorf("%spanic: %v\n\n%s", recoveredMarker, r, stack)
	}
}
