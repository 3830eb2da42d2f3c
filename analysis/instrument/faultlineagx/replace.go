package faultlineagx

// Value replacement: values of any type, summarised per site, forced from
// an encoded form, and several forced runs of one test in one process.
//
// V records a value of a type the formula does not model (a string, a
// slice, a struct...). Its instances are counted like every other site's,
// but only when something needs them: a summary being recorded or a value
// being forced. The summary (FAULTLINE_AGX_VALUES) keeps, per site, the
// last instance with its value and the first distinct values with their
// counts; it is rewritten whenever control leaves a test function. Values
// travel as a small self-describing text (see encode) read back through
// reflect, unexported fields included, without calling any method of the
// code under test, which would add instances of its sites.
//
// Trials (FAULTLINE_AGX_TRIALS) are sets of forced values, one per
// repetition of the test (go test -test.count): each entry of the test
// function named by FAULTLINE_AGX_TRIAL_SITE starts the next trial with the
// instance counts the first one started with, so that every repetition
// numbers instances as a fresh process would.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// More environment variables the runtime reads.
const (
	ValuesEnv    = "FAULTLINE_AGX_VALUES"     // file to write the value summary to
	TrialsEnv    = "FAULTLINE_AGX_TRIALS"     // JSON file of forced-value sets, one per repetition
	TrialSiteEnv = "FAULTLINE_AGX_TRIAL_SITE" // enter site of the test function that starts a trial
	TrialLogEnv  = "FAULTLINE_AGX_TRIAL_LOG"  // file the trials started are appended to
)

// Bounds of a summary: distinct values kept per site, and the longest
// encoded value (a longer one is recorded as unknown).
const (
	maxDistinct = 8
	maxPayload  = 2048
	maxDepth    = 12
)

// forcedEntry is one forced value as the analysis writes it: an integer,
// float (bits) or Boolean Value, or a Payload for a site recorded by V.
type forcedEntry struct {
	Site, Act, Local int32
	Value            int64
	Str              *string // a string or byte slice the formula models
	Payload          string
}

// siteValues is the summary of one site.
type siteValues struct {
	act, local int32
	seq        int // trace events written before the last instance
	last       string
	distinct   []string
	counts     []int
}

var (
	valuesPath    string
	summary       map[int32]*siteValues // nil: no summary is recorded
	forcedPayload map[key]string
	valuesOn      bool // V counts instances

	trials    [][]forcedEntry
	trialSite int32 = -1
	trialN    int
	trialLog  *os.File
	// The instance counts when the first trial started.
	startCounts, startActs map[int32]int32
)

func forceMaps(list []forcedEntry) (values map[key]int64, strs, payloads map[key]string) {
	values, strs, payloads = map[key]int64{}, map[key]string{}, map[key]string{}
	for _, f := range list {
		k := key{f.Site, f.Act, f.Local}
		switch {
		case f.Payload != "":
			payloads[k] = f.Payload
		case f.Str != nil:
			strs[k] = *f.Str
		default:
			values[k] = f.Value
		}
	}
	return values, strs, payloads
}

func initValues() {
	if p := os.Getenv(ValuesEnv); p != "" {
		valuesPath = p
		summary = map[int32]*siteValues{}
	}
	if p := os.Getenv(TrialsEnv); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			cannotRecord("read the trials", err)
		}
		if err := json.Unmarshal(data, &trials); err != nil {
			fmt.Fprintln(os.Stderr, "faultline: bad trials:", err)
			os.Exit(3)
		}
		if n, err := strconv.Atoi(os.Getenv(TrialSiteEnv)); err == nil {
			trialSite = int32(n)
		}
		if p := os.Getenv(TrialLogEnv); p != "" {
			if trialLog, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
				cannotRecord("write the trial log", err)
			}
		}
	}
	valuesOn = summary != nil || len(forcedPayload) > 0 || len(trials) > 0
}

// beginTrialLocked starts the next trial: the counts the first trial
// started with, and the trial's forced values. A trial that starts while
// the last one still has activations (a parallel test) is logged as an
// overlap, and the analysis does not trust the process's verdicts.
func beginTrialLocked() {
	if trialN == 0 {
		startCounts, startActs = clone(counts), clone(acts)
	} else {
		counts, acts = clone(startCounts), clone(startActs)
		tags = map[int32]int64{}
	}
	if trialLog != nil {
		line := strconv.Itoa(trialN)
		if len(stack) > 0 {
			line = "overlap " + line
		}
		if _, err := trialLog.WriteString(line + "\n"); err != nil {
			cannotRecord("write the trial log", err)
		}
	}
	events, strBytes = 0, 0
	forced, forcedStr, forcedPayload = nil, nil, nil
	if trialN < len(trials) {
		forced, forcedStr, forcedPayload = forceMaps(trials[trialN])
	}
	trialN++
}

func clone(m map[int32]int32) map[int32]int32 {
	c := make(map[int32]int32, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// V records a value at a site of a type the formula does not model and
// returns it, or the value forced there.
func V[T any](site int32, v T) T {
	if !valuesOn {
		return v
	}
	mu.Lock()
	k := instanceLocked(site)
	p, ok := forcedPayload[k]
	if !ok && len(forcedPayload) > 0 {
		p, ok = forcedPayload[key{site, EveryInstance, EveryInstance}]
	}
	seq := events
	mu.Unlock()
	if ok {
		var x T
		if strings.HasPrefix(p, "+") || p == "!" {
			x = v // a shift or negation starts from the value itself
		}
		if err := force(p, reflect.ValueOf(&x).Elem()); err != nil {
			fmt.Fprintf(os.Stderr, "faultline: cannot force %s at site %d: %v\n", p, site, err)
		} else {
			v = x
		}
	}
	if summary != nil {
		enc := encode(reflect.ValueOf(&v).Elem())
		mu.Lock()
		noteAtLocked(k, seq, enc)
		mu.Unlock()
	}
	return v
}

// EveryInstance in a forced entry's Act and Local forces the site at every
// instance that has no entry of its own.
const EveryInstance = -1

// force sets v to the value p encodes, or, for p = "+d", adds d to the
// integer v holds, or, for p = "!", negates the Boolean: a change every
// instance can take, whatever its value.
func force(p string, v reflect.Value) error {
	if p == "!" {
		if v.Kind() != reflect.Bool {
			return errShape
		}
		v.SetBool(!v.Bool())
		return nil
	}
	d, isShift, err := shiftOf(p)
	if !isShift {
		return decode(p, v)
	}
	if err != nil {
		return err
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + d)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(v.Uint() + uint64(d))
	default:
		return errShape
	}
	return nil
}

// shiftOf reads a payload "+d": d, and whether p is a shift at all.
func shiftOf(p string) (int64, bool, error) {
	if !strings.HasPrefix(p, "+") {
		return 0, false, nil
	}
	d, err := strconv.ParseInt(p[1:], 10, 64)
	if err != nil {
		return 0, true, fmt.Errorf("bad shift %q: %w", p, err)
	}
	return d, true, nil
}

// The predeclared types V is instantiated with where a value's type comes
// from its context, under names the code under test cannot shadow.
type (
	Complex64  = complex64
	Complex128 = complex128
	Any        = interface{}
)

func encodeEvent(v int64) string { return strconv.FormatInt(v, 10) }

func noteLocked(k key, enc string) { noteAtLocked(k, events, enc) }

func noteAtLocked(k key, seq int, enc string) {
	s := summary[k.site]
	if s == nil {
		s = &siteValues{}
		summary[k.site] = s
	}
	s.act, s.local, s.seq, s.last = k.act, k.local, seq, enc
	for i, d := range s.distinct {
		if d == enc {
			s.counts[i]++
			return
		}
	}
	if len(s.distinct) < maxDistinct {
		s.distinct = append(s.distinct, enc)
		s.counts = append(s.counts, 1)
	}
}

// writeValuesLocked rewrites the summary file: per site one line
// "L site act local seq value" for its last instance and one line
// "D site count value" per distinct value.
func writeValuesLocked() {
	ids := make([]int, 0, len(summary))
	for id := range summary {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	var b strings.Builder
	for _, id := range ids {
		s := summary[int32(id)]
		fmt.Fprintf(&b, "L %d %d %d %d %s\n", id, s.act, s.local, s.seq, s.last)
		for i, d := range s.distinct {
			fmt.Fprintf(&b, "D %d %d %s\n", id, s.counts[i], d)
		}
	}
	tmp := valuesPath + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		cannotRecord("write the values", err)
	}
	if err := os.Rename(tmp, valuesPath); err != nil {
		cannotRecord("write the values", err)
	}
}

// encode writes a value as text: n nil, t/f a Boolean, i/u an integer, d a
// float's bits (hex), c a complex's two, s a quoted string, [...] a slice
// or array, {...} a struct's fields, &x a pointer, m[k:v,...] a map, e a
// quoted error message (errors.New), y a basic value in an interface
// (ykind:x); ? a value that cannot be rebuilt (a function, a channel, a
// value of a type defined in the module held in an interface, one too
// large or too deep).
func encode(v reflect.Value) string {
	var b strings.Builder
	if !encodeTo(&b, v, 0) || b.Len() > maxPayload {
		return "?"
	}
	return b.String()
}

func encodeTo(b *strings.Builder, v reflect.Value, depth int) bool {
	if depth > maxDepth || b.Len() > maxPayload {
		return false
	}
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("n")
	case reflect.Bool:
		if v.Bool() {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString("i" + strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString("u" + strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString("d" + strconv.FormatUint(math.Float64bits(v.Float()), 16))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		b.WriteString("c" + strconv.FormatUint(math.Float64bits(real(c)), 16) + ":" + strconv.FormatUint(math.Float64bits(imag(c)), 16))
	case reflect.String:
		b.WriteString("s" + strconv.Quote(v.String()))
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("n")
			return true
		}
		return encodeElems(b, v, depth)
	case reflect.Array:
		return encodeElems(b, v, depth)
	case reflect.Struct:
		b.WriteString("{")
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				b.WriteString(",")
			}
			if !encodeTo(b, v.Field(i), depth+1) {
				return false
			}
		}
		b.WriteString("}")
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("n")
			return true
		}
		b.WriteString("&")
		return encodeTo(b, v.Elem(), depth+1)
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("n")
			return true
		}
		var entries []string
		for it := v.MapRange(); it.Next(); {
			var e strings.Builder
			if !encodeTo(&e, it.Key(), depth+1) {
				return false
			}
			e.WriteString(":")
			if !encodeTo(&e, it.Value(), depth+1) {
				return false
			}
			entries = append(entries, e.String())
			if b.Len()+len(entries)*8 > maxPayload {
				return false
			}
		}
		sort.Strings(entries)
		b.WriteString("m[" + strings.Join(entries, ",") + "]")
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("n")
			return true
		}
		return encodeDynamic(b, v.Elem(), depth)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			b.WriteString("n")
			return true
		}
		return false
	default:
		return false
	}
	return true
}

func encodeElems(b *strings.Builder, v reflect.Value, depth int) bool {
	b.WriteString("[")
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			b.WriteString(",")
		}
		if !encodeTo(b, v.Index(i), depth+1) {
			return false
		}
	}
	b.WriteString("]")
	return true
}

// basicTypes are the dynamic types an interface value may hold and still
// be rebuilt: the unnamed basic types.
var basicTypes = map[string]reflect.Type{}

func init() {
	for _, v := range []interface{}{false, 0, int8(0), int16(0), int32(0), int64(0), uint(0), uint8(0), uint16(0), uint32(0),
		uint64(0), uintptr(0), float32(0), 0.0, complex64(0), complex128(0), ""} {
		t := reflect.TypeOf(v)
		basicTypes[t.Name()] = t
	}
}

// encodeDynamic encodes what an interface holds: a basic value, or an
// error of the standard library made from a message alone, whose message
// is read from its field (no method of the value is called).
func encodeDynamic(b *strings.Builder, e reflect.Value, depth int) bool {
	t := e.Type()
	if basicTypes[t.Name()] == t {
		b.WriteString("y" + t.Name() + ":")
		return encodeTo(b, e, depth+1)
	}
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && !e.IsNil() {
		field := map[string]string{"errors.errorString": "s", "fmt.wrapError": "msg", "fmt.wrapErrors": "msg"}[t.Elem().String()]
		if field != "" {
			if f := e.Elem().FieldByName(field); f.IsValid() && f.Kind() == reflect.String {
				b.WriteString("e" + strconv.Quote(f.String()))
				return true
			}
		}
	}
	return false
}

// decode sets v, which must be settable, to the value p encodes.
func decode(p string, v reflect.Value) error {
	rest, err := decodeInto(p, v)
	if err != nil {
		return err
	}
	if rest != "" {
		return fmt.Errorf("trailing %q", rest)
	}
	return nil
}

var errShape = errors.New("the value does not fit the type")

func decodeInto(p string, v reflect.Value) (string, error) {
	if p == "" {
		return "", errShape
	}
	t := v.Type()
	switch p[0] {
	case 'z':
		v.Set(reflect.Zero(t))
		return p[1:], nil
	case 'n':
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			v.Set(reflect.Zero(t))
			return p[1:], nil
		}
		return "", errShape
	case 't', 'f':
		if t.Kind() != reflect.Bool {
			return "", errShape
		}
		v.SetBool(p[0] == 't')
		return p[1:], nil
	case 'i', 'u', 'd':
		n := scalarEnd(p[1:])
		text, rest := p[1:1+n], p[1+n:]
		switch {
		case p[0] == 'i' && v.CanInt():
			x, err := strconv.ParseInt(text, 10, 64)
			if err != nil || v.OverflowInt(x) {
				return "", errShape
			}
			v.SetInt(x)
		case p[0] == 'u' && v.CanUint():
			x, err := strconv.ParseUint(text, 10, 64)
			if err != nil || v.OverflowUint(x) {
				return "", errShape
			}
			v.SetUint(x)
		case p[0] == 'd' && v.CanFloat():
			x, err := strconv.ParseUint(text, 16, 64)
			if err != nil {
				return "", errShape
			}
			v.SetFloat(math.Float64frombits(x))
		default:
			return "", errShape
		}
		return rest, nil
	case 'c':
		n := scalarEnd(p[1:])
		if !strings.HasPrefix(p[1+n:], ":") {
			return "", errShape
		}
		m := scalarEnd(p[2+n:])
		r, err1 := strconv.ParseUint(p[1:1+n], 16, 64)
		i, err2 := strconv.ParseUint(p[2+n:2+n+m], 16, 64)
		if err1 != nil || err2 != nil || !v.CanComplex() {
			return "", errShape
		}
		v.SetComplex(complex(math.Float64frombits(r), math.Float64frombits(i)))
		return p[2+n+m:], nil
	case 's':
		q, err := strconv.QuotedPrefix(p[1:])
		if err != nil || t.Kind() != reflect.String {
			return "", errShape
		}
		s, _ := strconv.Unquote(q)
		v.SetString(s)
		return p[1+len(q):], nil
	case '[':
		return decodeElems(p[1:], v)
	case '{':
		if t.Kind() != reflect.Struct {
			return "", errShape
		}
		rest := p[1:]
		for i := 0; i < t.NumField(); i++ {
			if i > 0 {
				if !strings.HasPrefix(rest, ",") {
					return "", errShape
				}
				rest = rest[1:]
			}
			var err error
			if rest, err = decodeInto(rest, settable(v.Field(i))); err != nil {
				return "", err
			}
		}
		if !strings.HasPrefix(rest, "}") {
			return "", errShape
		}
		return rest[1:], nil
	case '&':
		if t.Kind() != reflect.Pointer {
			return "", errShape
		}
		x := reflect.New(t.Elem())
		rest, err := decodeInto(p[1:], x.Elem())
		if err != nil {
			return "", err
		}
		v.Set(x)
		return rest, nil
	case 'm':
		if t.Kind() != reflect.Map || !strings.HasPrefix(p, "m[") {
			return "", errShape
		}
		m := reflect.MakeMap(t)
		rest := p[2:]
		for !strings.HasPrefix(rest, "]") {
			if m.Len() > 0 {
				if !strings.HasPrefix(rest, ",") {
					return "", errShape
				}
				rest = rest[1:]
			}
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			var err error
			if rest, err = decodeInto(rest, k); err != nil {
				return "", err
			}
			if !strings.HasPrefix(rest, ":") {
				return "", errShape
			}
			if rest, err = decodeInto(rest[1:], e); err != nil {
				return "", err
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
		return rest[1:], nil
	case 'e':
		q, err := strconv.QuotedPrefix(p[1:])
		if err != nil {
			return "", errShape
		}
		msg, _ := strconv.Unquote(q)
		e := reflect.ValueOf(errors.New(msg))
		if !e.Type().AssignableTo(t) {
			return "", errShape
		}
		v.Set(e)
		return p[1+len(q):], nil
	case 'y':
		name, rest, ok := strings.Cut(p[1:], ":")
		bt := basicTypes[name]
		if !ok || bt == nil || !bt.AssignableTo(t) {
			return "", errShape
		}
		x := reflect.New(bt).Elem()
		rest, err := decodeInto(rest, x)
		if err != nil {
			return "", err
		}
		v.Set(x)
		return rest, nil
	}
	return "", errShape
}

// scalarEnd is the length of a number's text at the start of p.
func scalarEnd(p string) int {
	if i := strings.IndexAny(p, ",]}:"); i >= 0 {
		return i
	}
	return len(p)
}

func decodeElems(p string, v reflect.Value) (string, error) {
	t := v.Type()
	var elems []reflect.Value
	rest := p
	for !strings.HasPrefix(rest, "]") {
		if len(elems) > 0 {
			if !strings.HasPrefix(rest, ",") {
				return "", errShape
			}
			rest = rest[1:]
		}
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return "", errShape
		}
		e := reflect.New(t.Elem()).Elem()
		var err error
		if rest, err = decodeInto(rest, e); err != nil {
			return "", err
		}
		elems = append(elems, e)
	}
	switch t.Kind() {
	case reflect.Slice:
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			s.Index(i).Set(e)
		}
		v.Set(s)
	case reflect.Array:
		if len(elems) != t.Len() {
			return "", errShape
		}
		for i, e := range elems {
			v.Index(i).Set(e)
		}
	default:
		return "", errShape
	}
	return rest[1:], nil
}

// settable makes a field of an addressable struct settable, unexported
// ones included.
func settable(f reflect.Value) reflect.Value {
	if f.CanSet() {
		return f
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}
