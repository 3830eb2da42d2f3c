package regress

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// errBudget stops a dynamic step that ran out of its time or runs.
var errBudget = errors.New("the explanation's budget ran out")

// oracle answers "does the test pass with these hunks reverted?" for the
// dynamic step, building each partial revert through an overlay. Every
// answer is kept: delta debugging asks again for sets it saw. A revert
// that does not compile is completed with auxiliary hunks (AFTER's
// Algorithm 4) and the completed revert is run.
type oracle struct {
	cs       *changeSet
	run      *runner
	root     string // the module root
	compiled map[string]build
	verdicts map[string]outcome
	aux      map[string][]int
	deadline time.Time
	maxRuns  int
	reruns   int // test runs with a revert applied
	builds   int // builds of reverts
	// unbuildable counts the reverts asked about that did not compile
	// alone.
	unbuildable int
	// memoryStops counts the runs with a revert that the test memory
	// bound stopped: only a pass counts, so they count as failing.
	memoryStops int
	log         func(string)
	// decls couples hunks by the declarations they touch, parsed when a
	// revert first fails to compile.
	decls *declHunks
	// best is the smallest set whose revert passed, for an answer when
	// the budget runs out before a search ends.
	best []int
	// types type-checks reverts in process, set up when a revert first
	// fails to compile (typesTried); nil when the package cannot be
	// checked alone. typed keeps its answers, typeChecks counts them.
	types      *typeChecker
	typesTried bool
	typed      map[string]string
	typeChecks int
	// phases times the type checks (nil: not timed).
	phases *phases
}

// build is one partial revert compiled: its binary, or the compiler's
// message.
type build struct {
	bin *testbuild.Binary
	msg string
}

func newOracle(cs *changeSet, run *runner, root string, deadline time.Time, maxRuns int) *oracle {
	return &oracle{cs: cs, run: run, root: root, compiled: map[string]build{}, verdicts: map[string]outcome{},
		aux: map[string][]int{}, deadline: deadline, maxRuns: maxRuns}
}

func key(set []int) string {
	var b strings.Builder
	for _, id := range set {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	return b.String()
}

func sorted(set []int) []int {
	out := slices.Clone(set)
	slices.Sort(out)
	return slices.Compact(out)
}

// files returns the replacements that revert the set.
func (o *oracle) files(set []int) map[string]replacement {
	in := setOf(set)
	out := map[string]replacement{}
	for _, f := range o.cs.files {
		if !slices.ContainsFunc(f.Hunks, func(h *Hunk) bool { return in(h.ID) }) {
			continue
		}
		data, present, _ := f.compose(in)
		out[f.Abs] = replacement{data: data, present: present}
	}
	return out
}

// knowBase takes the base's verdict, a pass, for reverting all when that
// revert reads exactly as the base (no neutral hunk kept, no other file
// changed): the same files build the same binary, so building and running
// it again would only repeat the base's run.
func (o *oracle) knowBase(ctx context.Context, hist *history, base string, all []int) error {
	at, err := hist.filesAt(ctx, base)
	if err != nil {
		return err
	}
	reverted := o.files(all)
	if len(at) != len(reverted) {
		return nil
	}
	for p, r := range at {
		if got, ok := reverted[p]; !ok || got != r {
			return nil
		}
	}
	o.verdicts[key(sorted(all))] = outcome{Verdict: pass, Message: "as at the base"}
	return nil
}

// compile builds the test with the set reverted.
func (o *oracle) compile(ctx context.Context, set []int) (build, error) {
	set = sorted(set)
	k := key(set)
	if b, ok := o.compiled[k]; ok {
		return b, nil
	}
	if !o.deadline.IsZero() && time.Now().After(o.deadline) {
		return build{}, errBudget
	}
	if msg, decided := o.typeCheck(set); decided && msg != "" {
		b := build{msg: msg} // no build can compile it
		o.compiled[k] = b
		return b, nil
	}
	bin, msg, err := o.run.build(ctx, o.files(set))
	if err != nil {
		return build{}, err
	}
	o.builds++
	b := build{bin: bin, msg: msg}
	o.compiled[k] = b
	return b, nil
}

// compiles reports whether the test builds with the set reverted.
func (o *oracle) compiles(ctx context.Context, set []int) (bool, error) {
	msg, err := o.check(ctx, set)
	return msg == "", err
}

// check returns the compiler's errors about the set reverted, "" when it
// compiles: from a build made, from the type checker when it can tell
// (without a build), or else from a build.
func (o *oracle) check(ctx context.Context, set []int) (string, error) {
	set = sorted(set)
	if b, ok := o.compiled[key(set)]; ok {
		return b.msg, nil
	}
	if !o.deadline.IsZero() && time.Now().After(o.deadline) {
		return "", errBudget
	}
	if msg, decided := o.typeCheck(set); decided {
		return msg, nil
	}
	b, err := o.compile(ctx, set)
	return b.msg, err
}

// startTypes sets up the type checker, once; a failure leaves builds to
// decide.
func (o *oracle) startTypes(ctx context.Context) {
	if o.typesTried {
		return
	}
	o.typesTried = true
	start := time.Now()
	defer o.phases.since("type checker setup", start)
	tc, err := newTypeChecker(ctx, o.run.mod, o.run.pkg)
	if o.log != nil {
		switch {
		case err != nil:
			o.log(fmt.Sprintf("reverts are built to tell whether they compile: %v", err))
		case tc != nil:
			o.log(fmt.Sprintf("reverts of %s are type-checked in process (the dependencies' export data took %.1fs)", o.run.pkg.ImportPath, time.Since(start).Seconds()))
		}
	}
	o.types, o.typed = tc, map[string]string{}
}

// typeCheck returns the type errors of the set reverted, "" when it
// type-checks, and whether the type checker could tell.
func (o *oracle) typeCheck(set []int) (string, bool) {
	if o.types == nil {
		return "", false
	}
	k := key(set)
	if msg, ok := o.typed[k]; ok {
		return msg, true
	}
	start := time.Now()
	msg, decided := o.types.check(o.files(set))
	o.phases.since("type check", start)
	if decided {
		o.typeChecks++
		o.typed[k] = msg
	}
	return msg, decided
}

// outcome runs the test with exactly the set reverted.
func (o *oracle) outcome(ctx context.Context, set []int) (outcome, error) {
	set = sorted(set)
	k := key(set)
	if v, ok := o.verdicts[k]; ok {
		return v, nil
	}
	b, err := o.compile(ctx, set)
	if err != nil {
		return outcome{}, err
	}
	if b.bin == nil {
		v := outcome{Verdict: noBuild, Message: b.msg}
		o.verdicts[k] = v
		return v, nil
	}
	if o.maxRuns > 0 && o.reruns >= o.maxRuns {
		return outcome{}, errBudget
	}
	if !o.deadline.IsZero() && time.Now().After(o.deadline) {
		return outcome{}, errBudget
	}
	v, err := o.run.exec(ctx, b.bin)
	if err != nil {
		return outcome{}, err
	}
	os.Remove(b.bin.Path)
	if len(set) > 0 {
		o.reruns++
		if v.Verdict == memoryStopped {
			o.memoryStops++
		}
	}
	if o.log != nil {
		o.log(fmt.Sprintf("reverting %d hunks: %s", len(set), v.Verdict))
	}
	o.verdicts[k] = v
	return v, nil
}

// passes reports whether the test passes with the set reverted, together
// with the auxiliary hunks a revert that does not compile alone needs.
func (o *oracle) passes(ctx context.Context, set []int) (bool, error) {
	v, err := o.outcome(ctx, set)
	if err != nil {
		return false, err
	}
	if v.Verdict != noBuild {
		o.notePass(set, v)
		return v.Verdict == pass, nil
	}
	o.unbuildable++
	aux, err := o.auxFor(ctx, set)
	if err != nil || aux == nil {
		return false, err
	}
	v, err = o.outcome(ctx, union(set, aux))
	o.notePass(set, v)
	return v.Verdict == pass, err
}

// notePass keeps set as the best answer so far when its revert passed
// and it is the smallest such set.
func (o *oracle) notePass(set []int, v outcome) {
	if v.Verdict == pass && (o.best == nil || len(set) < len(o.best)) {
		o.best = sorted(set)
	}
}

// auxFor returns the auxiliary hunks a revert of set needs to compile:
// none when it compiles alone, nil when nothing makes it compile. The
// other hunks of the declarations set touches are tried first; then the
// compiler's errors point at hunks (those holding the lines it complains
// about, and those adding or removing the names it names); failing that
// every other hunk is taken. The set found is then shrunk by AFTER's
// Algorithm 4.
func (o *oracle) auxFor(ctx context.Context, set []int) ([]int, error) {
	set = sorted(set)
	k := key(set)
	if a, ok := o.aux[k]; ok {
		return a, nil
	}
	if v, ok := o.verdicts[k]; ok && v.Verdict != noBuild {
		o.aux[k] = []int{} // it ran, so it built
		return []int{}, nil
	}
	b, err := o.compile(ctx, set)
	if err != nil {
		return nil, err
	}
	if b.bin != nil {
		o.aux[k] = []int{}
		return []int{}, nil
	}
	o.startTypes(ctx)
	var aux []int
	msg := b.msg
	if o.decls == nil {
		o.decls = newDeclHunks(o.cs)
	}
	if same := o.decls.sameDecl(set); len(same) > 0 {
		m, err := o.check(ctx, union(set, same))
		if err != nil {
			return nil, err
		}
		aux, msg = same, m
	}
	for round := 0; round < 8 && msg != ""; round++ {
		more := without(o.errorHunks(union(set, aux), msg), union(set, aux))
		if len(more) == 0 {
			break
		}
		aux = union(aux, more)
		if msg, err = o.check(ctx, union(set, aux)); err != nil {
			return nil, err
		}
	}
	if msg != "" { // the errors did not lead anywhere: start from every other hunk
		var all []int
		for _, h := range o.cs.hunks {
			all = append(all, h.ID)
		}
		aux = without(all, set)
		ok, err := o.compiles(ctx, union(set, aux))
		if err != nil {
			return nil, err
		}
		if !ok {
			o.aux[k] = nil
			return nil, nil
		}
	}
	aux, err = minimizeAux(ctx, set, aux, 2, o.compiles)
	if err != nil {
		return nil, err
	}
	o.aux[k] = aux
	return aux, nil
}

// compileError matches a position and message of the compiler.
var compileError = regexp.MustCompile(`(?m)^(\S+\.go):(\d+)(?::\d+)?: (.*)$`)

// identifier matches the names a compiler message may mention.
var identifier = regexp.MustCompile(`"[^"\s]+"|[\p{L}_][\p{L}\p{N}_]*`)

// messageWords are words of the compiler's messages, not names.
var messageWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`undefined declared and not used imported but is a an the of in to call
		too many not enough arguments return values have want cannot use as value type variable assignment
		missing redeclared this block other declaration field method has no or with without for on at
		invalid operation mismatched types expected found syntax error unexpected non name
		string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64 bool byte rune error any
		func struct interface map chan var const package import nil true false`) {
		messageWords[w] = true
	}
}

// errorHunks returns the hunks the compiler's errors about a revert point
// at: the hunks holding working-tree lines it complains about, and the
// hunks whose text mentions a name the errors mention.
func (o *oracle) errorHunks(set []int, msg string) []int {
	in := setOf(set)
	var out []int
	names := map[string]bool{}
	for _, m := range compileError.FindAllStringSubmatch(msg, -1) {
		p := m[1]
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.root, p)
		}
		line, _ := strconv.Atoi(m[2])
		for _, f := range o.cs.files {
			if f.Abs != p {
				continue
			}
			_, _, from := f.compose(in)
			if line >= 1 && line <= len(from) && from[line-1].hunk < 0 {
				n := from[line-1].newLine
				for _, h := range f.Hunks {
					if !in(h.ID) && h.touches(n, n) {
						out = append(out, h.ID)
					}
				}
			}
		}
		for _, w := range identifier.FindAllString(m[3], -1) {
			if !messageWords[w] && len(w) > 1 {
				names[w] = true
			}
		}
	}
	for _, h := range o.cs.hunks {
		if in(h.ID) {
			continue
		}
		text := strings.Join(h.Old, "") + "\n" + strings.Join(h.New, "")
		for n := range names {
			if mentions(text, n) {
				out = append(out, h.ID)
				break
			}
		}
	}
	return sorted(out)
}

// mentions reports whether text holds name as a whole word (or, for a
// quoted import path, as written).
func mentions(text, name string) bool {
	if strings.HasPrefix(name, `"`) {
		return strings.Contains(text, name)
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isIdentByte(text[j-1])
		after := j+len(name) == len(text) || !isIdentByte(text[j+len(name)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
