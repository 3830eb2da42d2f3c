// Command instrument checks that faultline's instrumentation compiles
// wherever the original code does. For every package with tests of each
// module it builds the test binary three ways through the instrumented-build
// layer: plain (no overlay), as spectra collects it (a collection whose
// filter selects no test), and as the angelic analysis instruments it
// (analysis.BuildInstrumented, which runs nothing). A package whose plain
// build fails is excluded; every other failure is the instrumentation's.
// With -verdicts it also runs every test, plainly with go test -json and
// as spectra collects them, and lists the leaf tests whose verdicts differ;
// with -mutants N as well, the same on N faulty versions of each module,
// one mutation each, whose tests fail, panic and hang.
//
//	go run ./bench/instrument -out /tmp/instrument-report.md \
//	    -modules github.com/robfig/cron/v3@v3.0.1,github.com/yuin/goldmark@v1.8.7 [DIR...]
//
// Modules given as module@version are fetched through the module proxy and
// copied to a writable directory; directories are used in place (only the
// cache directory is written to). Each module's table is printed as soon as
// it is done, with the first line of each failure; the report file holds
// the summary and every failure's full message.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra"
)

func main() {
	modules := flag.String("modules", "", "comma-separated module@version to fetch through the module proxy")
	out := flag.String("out", "", "file to write the full report to (markdown)")
	skipAnalysis := flag.Bool("spectra-only", false, "check only the spectra instrumentation")
	skipSpectra := flag.Bool("analysis-only", false, "check only the angelic analysis's instrumentation")
	verdicts := flag.Bool("verdicts", false, "also run every test plainly and as spectra collects it, and compare the verdicts")
	mutants := flag.Int("mutants", 0, "with -verdicts, also compare the verdicts of this many faulty versions of each module, one mutation each")
	seed := flag.Uint64("seed", 1, "with -mutants, the seed that draws the mutations")
	flag.Parse()
	if *skipAnalysis && *skipSpectra {
		fail(errors.New("-spectra-only and -analysis-only exclude each other"))
	}
	var subjects []subject
	for _, m := range strings.Split(*modules, ",") {
		if m = strings.TrimSpace(m); m != "" {
			subjects = append(subjects, subject{name: m, module: m})
		}
	}
	for _, d := range flag.Args() {
		subjects = append(subjects, subject{name: d, dir: d})
	}
	if len(subjects) == 0 {
		fail(errors.New("no subjects: give -modules module@version,... or module directories"))
	}
	scratch, err := os.MkdirTemp("", "faultline-instbench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(scratch)
	ctx := context.Background()
	var reports []*report
	for i, s := range subjects {
		r := &report{subject: s.name, loadBefore: loadAverage()}
		work := filepath.Join(scratch, fmt.Sprint(i))
		if err := check(ctx, s, work, !*skipSpectra, !*skipAnalysis, *verdicts, *mutants, *seed, r); err != nil {
			r.err = err
		}
		os.RemoveAll(work)
		r.loadAfter = loadAverage()
		r.print(os.Stdout, false)
		reports = append(reports, r)
	}
	fmt.Println()
	summary(os.Stdout, reports)
	if *mutants > 0 {
		mutantSummary(os.Stdout, reports)
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fail(err)
		}
		summary(f, reports)
		if *mutants > 0 {
			mutantSummary(f, reports)
		}
		for _, r := range reports {
			r.print(f, true)
		}
		if err := f.Close(); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "instrument:", err)
	os.Exit(1)
}

type subject struct {
	name   string
	module string // module@version, or "" for dir
	dir    string
}

// report is one module's outcome.
type report struct {
	subject   string
	goVersion string
	packages  []string          // packages with tests
	plain     map[string]string // package -> plain build failure
	spectra   map[string]string // package -> spectra instrumentation failure
	analysis  map[string]string // package -> analysis instrumentation failure
	timePlain time.Duration
	timeSpec  time.Duration
	timeAnal  time.Duration
	analysed  bool
	collected bool // the spectra were checked
	// verdicts compares the tests' verdicts plainly and collected, when
	// verdictsChecked.
	verdicts        verdictCheck
	verdictsChecked bool
	// mutants compares the verdicts of faulty versions, when mutantsChecked.
	mutants        mutantCheck
	mutantsChecked bool
	loadBefore     string
	loadAfter      string
	err            error // the module could not be checked at all
}

// instrumentationMessage starts the message spectra stores for a package
// whose instrumented build failed while a plain one works.
const instrumentationMessage = "faultline could not instrument this package"

// check builds every test package of one subject plainly, as spectra does
// and as the analysis does.
func check(ctx context.Context, s subject, scratch string, withSpectra, withAnalysis, withVerdicts bool, mutants int, seed uint64, r *report) error {
	dir := s.dir
	if s.module != "" {
		var err error
		if dir, err = fetch(s.module, filepath.Join(scratch, "src")); err != nil {
			return err
		}
	}
	cache := filepath.Join(scratch, "cache")
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: cache})
	if err != nil {
		return err
	}
	r.goVersion = mod.GoVersion
	if r.goVersion == "" {
		r.goVersion = "none"
	}
	if s.module == "" {
		r.subject = mod.Path + " (" + dir + ")"
	}
	listing, err := mod.List(ctx)
	if err != nil {
		return err
	}
	var pkgs []*testbuild.Package
	for _, p := range listing.All {
		if p.HasTests() {
			pkgs = append(pkgs, p)
			r.packages = append(r.packages, p.ImportPath)
		}
	}

	// Plain: an empty overlay.
	start := time.Now()
	overlay, err := mod.NewOverlay()
	if err != nil {
		return err
	}
	_, r.plain, err = mod.BuildTests(ctx, overlay, pkgs, nil, filepath.Join(scratch, "plain"))
	if err != nil {
		return err
	}
	r.timePlain = time.Since(start)

	// Spectra: a whole collection that runs no test.
	r.spectra = map[string]string{}
	if withSpectra {
		r.collected = true
		if err := checkSpectra(ctx, dir, cache, r); err != nil {
			return err
		}
	}
	if withVerdicts {
		r.verdictsChecked = true
		if err := checkVerdicts(ctx, dir, cache, r); err != nil {
			return err
		}
		if mutants > 0 {
			r.mutantsChecked = true
			if err := checkMutantVerdicts(ctx, dir, mod.Path, cache, pkgs, mutants, seed, r); err != nil {
				return err
			}
		}
	}

	// Analysis: each package's test binary, instrumented and built.
	r.analysis = map[string]string{}
	if !withAnalysis {
		return nil
	}
	r.analysed = true
	start = time.Now()
	for _, p := range pkgs {
		if _, plainFailed := r.plain[p.ImportPath]; plainFailed {
			continue
		}
		err := analysis.BuildInstrumented(ctx, mod, p.ImportPath)
		var ce *testbuild.CompileError
		switch {
		case errors.As(err, &ce):
			r.analysis[p.ImportPath] = ce.Message
		case err != nil:
			r.analysis[p.ImportPath] = "(not built) " + err.Error()
		}
	}
	r.timeAnal = time.Since(start)
	return nil
}

// fetch copies a module from the module cache into a writable directory
// under dst and downloads its dependencies.
func fetch(mod, dst string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", mod, err)
	}
	var info struct{ Dir, GoMod string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("reading go mod download's answer for %s: %w", mod, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("cp", "-r", info.Dir, dst).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying %s: %v\n%s", mod, err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dst).CombinedOutput(); err != nil {
		return "", fmt.Errorf("making %s writable: %v\n%s", dst, err, out)
	}
	// A module published without a go.mod gets the one the go command
	// synthesizes for it (a module line, no go directive).
	gomod := filepath.Join(dst, "go.mod")
	if _, err := os.Stat(gomod); os.IsNotExist(err) {
		data, err := os.ReadFile(info.GoMod)
		if err != nil {
			return "", fmt.Errorf("reading the go.mod of %s: %w", mod, err)
		}
		if err := os.WriteFile(gomod, data, 0o644); err != nil {
			return "", err
		}
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	f, err := modfile.ParseLax(gomod, data, nil)
	if err != nil {
		return "", fmt.Errorf("parsing the go.mod of %s: %w", mod, err)
	}
	// The module's tests need their dependencies and go.sum entries for
	// them (a published go.sum may lack test-only ones); go mod tidy
	// provides both, and a failing tidy leaves what download fetched.
	if out, err := goIn(dst, "mod", "download"); err != nil {
		return "", fmt.Errorf("go mod download in %s: %v\n%s", dst, err, out)
	}
	goIn(dst, "mod", "tidy")
	// Both add a go directive where there was none; the go command
	// compiles such a module at go1.16, and so must the instrumentation.
	if f.Go == nil {
		if out, err := goIn(dst, "mod", "edit", "-go=none", "-toolchain=none"); err != nil {
			return "", fmt.Errorf("removing the go directive again in %s: %v\n%s", dst, err, out)
		}
	}
	return dst, nil
}

// goIn runs a go command in dir.
func goIn(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// loadAverage is the one-minute load average, or "?".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func (r *report) analysisCount() string {
	if !r.analysed {
		return "–"
	}
	return fmt.Sprint(len(r.analysis))
}

func (r *report) spectraCount() string {
	if !r.collected {
		return "–"
	}
	return fmt.Sprint(len(r.spectra))
}

func (r *report) spectraTime() string {
	if !r.collected {
		return "–"
	}
	return seconds(r.timeSpec)
}

func (r *report) analysisTime() string {
	if !r.analysed {
		return "–"
	}
	return seconds(r.timeAnal)
}

// summary writes one row per module and the totals.
func summary(w io.Writer, reports []*report) {
	fmt.Fprintln(w, "| module | go | packages with tests | plain-build failures (excluded) | spectra failures | analysis failures | tests against go test | plain build | spectra | analysis | load |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	var pkgs, plain, spec, anal, differ, lost, extra, leaves int
	for _, r := range reports {
		if r.err != nil {
			fmt.Fprintf(w, "| %s | %s | not checked: %s | | | | | | | | |\n", r.subject, r.goVersion, firstLine(r.err.Error()))
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s–%s |\n", r.subject, r.goVersion, len(r.packages), len(r.plain),
			r.spectraCount(), r.analysisCount(), r.differences(), seconds(r.timePlain), r.spectraTime(), r.analysisTime(), r.loadBefore, r.loadAfter)
		pkgs += len(r.packages)
		plain += len(r.plain)
		spec += len(r.spectra)
		anal += len(r.analysis)
		differ += len(r.verdicts.differ)
		lost += len(r.verdicts.lost)
		extra += len(r.verdicts.extra)
		leaves += r.verdicts.leaves
	}
	fmt.Fprintf(w, "| **total** (%d modules) | | %d | %d | %d | %d | %d differ, %d lost, %d extra of %d | | | | |\n", len(reports), pkgs, plain, spec, anal, differ, lost, extra, leaves)
}

// mutantSummary writes one row per module checked on mutants, and the
// totals.
func mutantSummary(w io.Writer, reports []*report) {
	fmt.Fprintln(w, "\n| module | mutants tried | built | plain go test ran nothing | with a failing test | with a panic | tests against go test |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var total mutantCheck
	for _, r := range reports {
		if r.err != nil || !r.mutantsChecked {
			continue
		}
		c := r.mutants
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %s |\n", r.subject, c.tried, c.built, c.ranNothing, c.failing, c.panics, c.verdictCheck)
		total.add(c)
	}
	fmt.Fprintf(w, "| **total** | %d | %d | %d | %d | %d | %s |\n", total.tried, total.built, total.ranNothing, total.failing, total.panics, total.verdictCheck)
}

// print writes one module's table and its failures: the first line of
// each, or with full the whole message.
func (r *report) print(w io.Writer, full bool) {
	fmt.Fprintf(w, "\n## %s\n\n", r.subject)
	if r.err != nil {
		fmt.Fprintf(w, "Not checked: %s\n", r.err)
		return
	}
	fmt.Fprintln(w, "| go | packages with tests | plain-build failures (excluded) | spectra failures | analysis failures | tests against go test | plain build | spectra | analysis | load |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s–%s |\n", r.goVersion, len(r.packages), len(r.plain), r.spectraCount(),
		r.analysisCount(), r.differences(), seconds(r.timePlain), r.spectraTime(), r.analysisTime(), r.loadBefore, r.loadAfter)
	defer r.printMutants(w, full)
	defer r.printVerdicts(w, full)
	for _, f := range []struct {
		what string
		msgs map[string]string
	}{{"plain build (excluded)", r.plain}, {"spectra", r.spectra}, {"analysis", r.analysis}} {
		if len(f.msgs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n\n", f.what)
		for _, pkg := range slices.Sorted(maps.Keys(f.msgs)) {
			msg := strings.TrimPrefix(f.msgs[pkg], instrumentationMessage+" (a plain build works): ")
			fmt.Fprintf(w, "- `%s`: `%s`\n", pkg, firstLine(msg))
			if full && strings.Contains(strings.TrimSpace(msg), "\n") {
				fmt.Fprintf(w, "\n  ```\n%s\n  ```\n", indent(strings.TrimSpace(msg), "  "))
			}
		}
	}
}

// firstLine is the first line of a message that is not a go command's
// "# package" heading.
func firstLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := lines[0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "# ") {
			line = l
			break
		}
	}
	return strings.ReplaceAll(strings.TrimSpace(line), "`", "'")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// checkSpectra makes a whole collection that runs no test and records the
// packages whose spectra instrumentation failed where the plain build did
// not.
func checkSpectra(ctx context.Context, dir, cache string, r *report) error {
	start := time.Now()
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: cache})
	if err != nil {
		return err
	}
	m, err := ws.Collect(ctx, spectra.CollectOptions{Run: "^$"})
	if err != nil {
		return fmt.Errorf("spectra: %w", err)
	}
	r.timeSpec = time.Since(start)
	for pkg, msg := range m.BuildErrors {
		if _, plainFailed := r.plain[pkg]; plainFailed {
			continue
		}
		if !strings.HasPrefix(msg, instrumentationMessage) {
			// A plain build of its own failed where the batch's worked: say so.
			msg = "(spectra's own plain build failed) " + msg
		}
		r.spectra[pkg] = msg
	}
	return nil
}
