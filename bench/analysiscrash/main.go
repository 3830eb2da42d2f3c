// Command analysiscrash checks that the angelic analysis survives real
// code. For each module (fetched through the module proxy into a writable
// copy) it seeds single-token mutants, keeps those that make some of their
// package's tests fail, and runs `faultline rank -json` on that package with
// the analysis on for every failing test. It counts what must never happen:
// a panic (recovered or not), an internal bug report, an analysis that
// ended abnormally, a rank run that did not finish; and writes a markdown
// table per module.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/mutation"
)

// defaultModules are small and medium pure-Go modules with offline tests,
// none of them among the build check's (bench/instrument.md). Left out
// after a first run: go-difflib and doublestar, whose own tests fail under
// this Go, and gojq, one of whose dependencies the proxy does not serve.
var defaultModules = []string{
	"github.com/agnivade/levenshtein@v1.2.2",
	"github.com/gobwas/glob@v1.1.0",
	"github.com/sergi/go-diff@v1.4.0",
	"github.com/iancoleman/strcase@v0.3.0",
	"github.com/emirpasic/gods@v1.18.1",
	"github.com/google/shlex@v0.0.0-20191202100458-e7afc7fbc510",
	"github.com/tidwall/pretty@v1.3.0",
	"github.com/tidwall/sjson@v1.2.9",
	"github.com/valyala/fastjson@v1.6.10",
	"github.com/pelletier/go-toml/v2@v2.4.3",
	"github.com/joho/godotenv@v1.5.1",
	"github.com/rivo/uniseg@v0.4.7",
	"github.com/google/go-querystring@v1.2.0",
	"github.com/julienschmidt/httprouter@v1.3.0",
	"github.com/hashicorp/golang-lru/v2@v2.0.7",
	"github.com/hashicorp/go-multierror@v1.1.1",
	"github.com/cockroachdb/apd/v3@v3.2.3",
	"github.com/beevik/etree@v1.8.1",
	"github.com/vmihailenco/msgpack/v5@v5.4.1",
	"github.com/fxamacker/cbor/v2@v2.10.0",
	"github.com/deckarep/golang-set/v2@v2.9.0",
	"github.com/rs/xid@v1.6.0",
	"github.com/oklog/ulid/v2@v2.1.2",
	"github.com/segmentio/ksuid@v1.0.4",
	"github.com/hashicorp/go-immutable-radix/v2@v2.1.0",
	"github.com/kelseyhightower/envconfig@v1.4.0",
	"github.com/caarlos0/env/v11@v11.4.2",
	"github.com/bits-and-blooms/bloom/v3@v3.7.1",
	"github.com/gorilla/mux@v1.8.1",
	"github.com/alecthomas/participle/v2@v2.1.4",
	"github.com/dlclark/regexp2/v2@v2.13.0",
	"github.com/tidwall/btree@v1.8.2",
	"github.com/tidwall/rtree@v1.10.0",
	"github.com/go-viper/mapstructure/v2@v2.5.0",
	"github.com/spaolacci/murmur3@v1.1.0",
	"github.com/sahilm/fuzzy@v0.1.3",
	"github.com/lithammer/fuzzysearch@v1.1.8",
	"github.com/hbollon/go-edlib@v1.7.0",
	"github.com/yuin/gopher-lua@v1.1.2",
	"github.com/goccy/go-yaml@v1.19.2",
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "analysiscrash:", err)
		os.Exit(1)
	}
}

// config is one harness run's settings.
type config struct {
	faultline    string
	mutants      int           // kept mutants per module
	attempts     int           // mutants tried per module at most
	maxFailing   int           // a mutant failing more tests is not kept
	seed         uint64        // chooses the mutants
	budget       string        // faultline's -budget per failing test
	testTimeout  time.Duration // one plain go test run
	rankDeadline time.Duration // one faultline rank run
	moduleTime   time.Duration // no new mutant is tried after this per module
	work         string
	log          io.Writer
}

func run(args []string) error {
	fs := flag.NewFlagSet("analysiscrash", flag.ContinueOnError)
	modules := fs.String("modules", strings.Join(defaultModules, ","), "comma-separated module@version list")
	c := config{log: os.Stderr}
	fs.StringVar(&c.faultline, "faultline", "faultline", "path of the faultline binary (built with cgo and Z3)")
	fs.IntVar(&c.mutants, "mutants", 2, "mutants to keep per module")
	fs.IntVar(&c.attempts, "max-attempts", 10, "mutants to try per module at most")
	fs.IntVar(&c.maxFailing, "max-failing", 15, "keep only mutants that fail at most this many tests (every one is analysed)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed for choosing mutants")
	fs.StringVar(&c.budget, "budget", "4s", "faultline's angelic analysis budget per failing test")
	fs.DurationVar(&c.testTimeout, "test-timeout", 2*time.Minute, "timeout of one plain go test run")
	fs.DurationVar(&c.rankDeadline, "rank-deadline", 6*time.Minute, "hard limit on one faultline rank run")
	fs.DurationVar(&c.moduleTime, "module-time", 4*time.Minute, "try no new mutant of a module after this")
	out := fs.String("out", "-", "markdown report path (- for standard output)")
	fs.StringVar(&c.work, "work", "", "scratch directory (default: a temporary directory, removed afterwards)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	if c.mutants <= 0 || c.attempts <= 0 || c.maxFailing <= 0 {
		return errors.New("-mutants, -max-attempts and -max-failing must be positive")
	}
	bin, err := exec.LookPath(c.faultline)
	if err != nil {
		return fmt.Errorf("faultline binary: %w (build it with go build -o /tmp/faultline ./cmd/faultline and pass -faultline)", err)
	}
	if c.faultline, err = filepath.Abs(bin); err != nil {
		return fmt.Errorf("faultline binary: %w", err)
	}
	var specs []mutation.SubjectSpec
	for _, m := range strings.Split(*modules, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		spec, err := mutation.ParseSubjectSpec(m)
		if err != nil {
			return err
		}
		specs = append(specs, spec)
	}
	if len(specs) == 0 {
		return errors.New("no modules")
	}
	if c.work == "" {
		dir, err := os.MkdirTemp("", "faultline-analysiscrash-")
		if err != nil {
			return fmt.Errorf("scratch directory: %w", err)
		}
		defer os.RemoveAll(dir)
		c.work = dir
	} else if err := os.MkdirAll(c.work, 0o755); err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	var rows []moduleRow
	for _, spec := range specs {
		if ctx.Err() != nil {
			break
		}
		rows = append(rows, c.module(ctx, spec))
	}
	w := os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("create report: %w", err)
		}
		defer f.Close()
		w = f
	}
	return writeReport(w, "go run ./bench/analysiscrash "+strings.Join(args, " "), time.Since(start), rows)
}

func (c *config) logf(format string, args ...any) {
	if c.log != nil {
		fmt.Fprintf(c.log, format+"\n", args...)
	}
}

// moduleRow is what one module's mutants showed.
type moduleRow struct {
	Spec    string
	Err     string // preparing the module failed
	Tried   int    // mutants tried
	Kept    int    // mutants ranked
	Failing int    // failing tests of the kept mutants, as faultline counted them
	Ended   int    // of which the analysis ended as the code decided: a finding, none, its budget
	// Found counts the analysed tests with a verified fix.
	Found int
	// The failures this harness exists to find.
	Panics, Bugs, Abnormal, RankFailures int
	// Errors counts the tests faultline gave up on with an error: not a
	// crash, but a case the analysis should have handled.
	Errors int
	// Bounded counts the tests stopped by a memory or time bound of the
	// whole analysis, which is not a failure.
	Bounded int
	Seconds float64 // faultline rank wall time, summed
	// Evidence quotes the first lines that showed each failure.
	Evidence []string
}

// add sums another row's counts into r.
func (r *moduleRow) add(o moduleRow) {
	r.Tried += o.Tried
	r.Kept += o.Kept
	r.Failing += o.Failing
	r.Ended += o.Ended
	r.Found += o.Found
	r.Panics += o.Panics
	r.Bugs += o.Bugs
	r.Abnormal += o.Abnormal
	r.RankFailures += o.RankFailures
	r.Errors += o.Errors
	r.Bounded += o.Bounded
	r.Seconds += o.Seconds
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// module prepares one module and ranks its kept mutants.
func (c *config) module(ctx context.Context, spec mutation.SubjectSpec) moduleRow {
	row := moduleRow{Spec: spec.String()}
	c.logf("module %s: preparing", spec)
	subj, err := mutation.Prepare(ctx, spec, c.work, c.testTimeout, false)
	if err != nil {
		row.Err = err.Error()
		c.logf("module %s: %v", spec, err)
		return row
	}
	defer os.RemoveAll(subj.Root)
	sites, err := mutation.ModuleSites(subj.Root, subj.Files)
	if err != nil {
		row.Err = err.Error()
		return row
	}
	begin := time.Now()
	for _, site := range mutation.Shuffle(sites, c.seed, subj.Module) {
		if row.Kept >= c.mutants || row.Tried >= c.attempts || time.Since(begin) > c.moduleTime || ctx.Err() != nil {
			break
		}
		row.Tried++
		if err := c.mutant(ctx, subj, site, &row); err != nil {
			row.Err = err.Error()
			c.logf("module %s: %v", spec, err)
			break
		}
	}
	c.logf("module %s: %d tried, %d kept, %d failing tests, %d ended; %d errors, %d panics, %d bug reports, %d abnormal ends, %d rank failures",
		spec, row.Tried, row.Kept, row.Failing, row.Ended, row.Errors, row.Panics, row.Bugs, row.Abnormal, row.RankFailures)
	return row
}

// packageOf is the import path of the package holding a module-relative
// file.
func packageOf(module, file string) string {
	if dir := path.Dir(file); dir != "." {
		return module + "/" + dir
	}
	return module
}

// mutant applies one mutation to its package, ranks it if some of the
// package's tests fail (at most maxFailing), and restores the source
// whatever happens.
func (c *config) mutant(ctx context.Context, subj *mutation.Subject, site mutation.Site, row *moduleRow) (err error) {
	file := filepath.Join(subj.Root, filepath.FromSlash(site.File))
	orig, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read %s: %w", site.File, err)
	}
	mutated, err := site.Apply(orig)
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return fmt.Errorf("write mutant: %w", err)
	}
	defer func() {
		if rerr := os.WriteFile(file, orig, 0o644); rerr != nil && err == nil {
			err = fmt.Errorf("restore %s after mutant: %w", site.File, rerr)
		}
	}()
	pkg := packageOf(subj.Module, site.File)
	o, err := gocmd.RunGoTest(ctx, subj.Root, []string{pkg}, c.testTimeout, nil)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		// The test binary ended before any test reported (a panic in an
		// init, say): no failing test to analyse.
		c.logf("  %s: not kept (%v)", site.ID(), oneLine(err.Error()))
		return nil
	}
	// A panicking test ends its package's binary, so go test may see no
	// passing test; faultline runs each test alone and sees them. Such
	// mutants are kept: a panic is a failing check the analysis handles.
	if o.Failed == 0 || o.BuildFailed || o.TimedOut || o.Failed > c.maxFailing {
		c.logf("  %s: not kept (%d failed, %d passed, build failed %v, timed out %v)", site.ID(), o.Failed, o.Passed, o.BuildFailed, o.TimedOut)
		return nil
	}
	row.Kept++
	store, err := os.MkdirTemp(c.work, "store-")
	if err != nil {
		return fmt.Errorf("spectrum store directory: %w", err)
	}
	defer os.RemoveAll(store)
	args := []string{"rank", "-json", "-top", "5", "-budget", c.budget, "-max-analyzed", "1000", pkg}
	res, rerr := gocmd.Run(ctx, subj.Root, append(gocmd.GoEnv(), "FAULTLINE_CACHE="+store), c.rankDeadline, c.faultline, args...)
	row.Seconds += res.Elapsed.Seconds()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	s := scan(res.Stdout, res.Stderr, rerr)
	row.add(moduleRow{Failing: s.failing, Ended: s.ended, Found: s.found, Panics: s.panics, Bugs: s.bugs,
		Abnormal: s.abnormal, RankFailures: boolCount(s.rankFailed), Errors: s.errors, Bounded: s.bounded})
	for _, e := range s.evidence {
		row.Evidence = append(row.Evidence, site.ID()+": "+e)
	}
	c.logf("  %s: %d failing (go test %d), %d ended, %d with a fix, %.0fs; errors %d, panics %d, bugs %d, abnormal %d, bounded %d, rank failed %v",
		site.ID(), s.failing, o.Failed, s.ended, s.found, res.Elapsed.Seconds(), s.errors, s.panics, s.bugs, s.abnormal, s.bounded, s.rankFailed)
	for _, e := range append(s.evidence, s.boundNotes...) {
		c.logf("    %s", e)
	}
	return nil
}

// rankOutput is the part of `faultline rank -json` the harness reads.
type rankOutput struct {
	Failed  int    `json:"failed"`
	Message string `json:"message"`
	Lines   []struct {
		File string `json:"file"`
	} `json:"lines"`
	Angelic *struct {
		Failing     int      `json:"failing"`
		Analyzed    int      `json:"analyzed"`
		Notes       []string `json:"notes"`
		Unavailable string   `json:"unavailable"`
		Fixes       []struct {
			Test string `json:"test"`
		} `json:"fixes"`
	} `json:"angelic"`
}

// scanned is what one rank run showed.
type scanned struct {
	failing, ended, found                   int
	errors, panics, bugs, abnormal, bounded int
	rankFailed                              bool
	evidence                                []string // the failures' first lines
	boundNotes                              []string // the tests a bound stopped
}

// The marks of each failure: a panic recovered in one test's analysis
// ("faultline failed on this test: ..."), an unrecovered one, an internal
// bug report printed by the command, an analysis worker that died, a test
// given up with an error; and of a test stopped by a bound.
var (
	recoveredPanic = regexp.MustCompile(`not analysed: faultline failed on this test`)
	rawPanic       = regexp.MustCompile(`(?m)^(panic: |fatal error: )`)
	bugReport      = regexp.MustCompile(`(?m)^faultline: internal bug`)
	abnormalEnd    = regexp.MustCompile(`ended abnormally`)
	boundReached   = regexp.MustCompile(`not analysed: .*(memory bound|time bound|time for this ranking's analyses ran out)`)
	notAnalysed    = regexp.MustCompile(`not analysed: `)
)

// scan reads one rank run's output and error.
func scan(stdout, stderr []byte, runErr error) scanned {
	var s scanned
	// Standard error repeats the notes, counted from the JSON below: only
	// a bug report and an unrecovered panic are counted from it.
	for _, line := range strings.Split(string(stderr), "\n") {
		switch {
		case bugReport.MatchString(line):
			s.count(bugKind, line)
		case rawPanic.MatchString(line):
			s.count(panicKind, line)
		}
	}
	var rep rankOutput
	if err := json.Unmarshal(stdout, &rep); err != nil {
		s.rankFailed = true
		s.quote("rank output", fmt.Sprintf("%v; %v; stderr %s", runErr, err, gocmd.Tail(stderr, 300)))
		return s
	}
	if runErr != nil || len(rep.Lines) == 0 {
		// The formula must rank whatever the analysis does.
		s.rankFailed = true
		s.quote("rank", fmt.Sprintf("%v, %d lines, %s; stderr %s", runErr, len(rep.Lines), rep.Message, gocmd.Tail(stderr, 300)))
	}
	if rep.Angelic == nil {
		s.failing = rep.Failed
		return s
	}
	if rep.Angelic.Unavailable != "" {
		s.rankFailed = true
		s.quote("analysis unavailable", rep.Angelic.Unavailable)
	}
	s.failing = rep.Angelic.Failing
	// Every test the analysis gave up on has a note; a test with no result
	// at all was left when the whole analysis ran out of time.
	s.ended = rep.Angelic.Analyzed
	s.bounded = rep.Angelic.Failing - rep.Angelic.Analyzed
	fixed := map[string]bool{}
	for _, f := range rep.Angelic.Fixes {
		fixed[f.Test] = true
	}
	s.found = len(fixed)
	for _, n := range rep.Angelic.Notes {
		s.count(kindOf(n), n)
		if notAnalysed.MatchString(n) {
			s.ended--
		}
	}
	return s
}

// The kinds of line scan counts.
const (
	panicKind    = "panic"
	bugKind      = "bug report"
	abnormalKind = "abnormal end"
	boundKind    = "stopped by a bound"
	errorKind    = "analysis error"
)

// kindOf names what a line of standard error or a note shows, "" for
// nothing scan counts.
func kindOf(line string) string {
	switch {
	case recoveredPanic.MatchString(line), rawPanic.MatchString(line):
		return panicKind
	case bugReport.MatchString(line):
		return bugKind
	case abnormalEnd.MatchString(line):
		return abnormalKind
	case boundReached.MatchString(line):
		return boundKind
	case notAnalysed.MatchString(line):
		return errorKind
	}
	return ""
}

// count adds one line of a kind: a failure is counted and quoted, a test
// stopped by a bound only counted and kept for the log.
func (s *scanned) count(kind, line string) {
	switch kind {
	case panicKind:
		s.panics++
	case bugKind:
		s.bugs++
	case abnormalKind:
		s.abnormal++
	case errorKind:
		s.errors++
	case boundKind:
		s.bounded++
		s.boundNotes = append(s.boundNotes, line)
		return
	default:
		return
	}
	s.quote(kind, line)
}

// quote keeps the first few failures' lines as evidence.
func (s *scanned) quote(what, line string) {
	if len(s.evidence) < 6 {
		if len(line) > 400 {
			line = line[:400] + "..."
		}
		s.evidence = append(s.evidence, what+": "+line)
	}
}

// writeReport writes the per-module table, the totals and every failure's
// first lines.
func writeReport(w io.Writer, command string, elapsed time.Duration, rows []moduleRow) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s` (%s)\n\n", command, elapsed.Round(time.Second))
	b.WriteString("| module | mutants tried | kept | failing tests | analysis ended | with a verified fix | stopped by a bound | analysis errors | panics | bug reports | abnormal ends | rank failures | rank time |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var total moduleRow
	modules := 0
	for _, r := range rows {
		if r.Err != "" && r.Kept == 0 {
			fmt.Fprintf(&b, "| %s | %d | %d | | | | | | | | | | %s |\n", r.Spec, r.Tried, r.Kept, oneLine(r.Err))
			continue
		}
		if r.Kept > 0 {
			modules++
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.0f s |\n", r.Spec, r.Tried, r.Kept,
			r.Failing, r.Ended, r.Found, r.Bounded, r.Errors, r.Panics, r.Bugs, r.Abnormal, r.RankFailures, r.Seconds)
		total.add(r)
	}
	fmt.Fprintf(&b, "| **all: %d modules with a kept mutant, of %d** | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.0f s |\n",
		modules, len(rows), total.Tried, total.Kept, total.Failing, total.Ended, total.Found, total.Bounded, total.Errors,
		total.Panics, total.Bugs, total.Abnormal, total.RankFailures, total.Seconds)
	var evidence []string
	for _, r := range rows {
		for _, e := range r.Evidence {
			evidence = append(evidence, r.Spec+" "+e)
		}
		if r.Err != "" && r.Kept > 0 {
			evidence = append(evidence, r.Spec+" stopped early: "+oneLine(r.Err))
		}
	}
	if len(evidence) > 0 {
		b.WriteString("\nFailures:\n\n")
		for _, e := range evidence {
			fmt.Fprintf(&b, "- %s\n", oneLine(e))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine keeps a message on one table line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
