// Command effectiveness measures how well faultline's rankings localise
// faults. It downloads real Go modules through the module proxy (or takes
// local module directories), seeds single-token faults into copies of them,
// keeps the mutants that make some but not all tests fail, ranks each with
// `faultline rank -json`, rescores every formula from the reported counts,
// and writes Top-N and EXAM figures as a markdown report. Local directories
// holding a fault.json (as the bundled examples do) are scored on their
// known fault instead of being mutated.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/mutation"
)

// defaultSubjects are small-to-medium pure-Go modules with fast,
// deterministic, offline tests.
var defaultSubjects = []string{
	"github.com/hashicorp/go-version@v1.7.0",
	"github.com/dustin/go-humanize@v1.0.1",
	"github.com/google/uuid@v1.6.0",
	"github.com/mattn/go-runewidth@v0.0.16",
	"github.com/spf13/cast@v1.7.1",
	"github.com/BurntSushi/toml@v1.4.0",
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "effectiveness:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("effectiveness", flag.ContinueOnError)
	subjects := fs.String("subjects", strings.Join(defaultSubjects, ","), "comma-separated module@version[=pkg;pkg] subjects from the module proxy; empty for none")
	dirs := fs.String("dirs", "", "comma-separated local module directories; one holding fault.json is scored on that fault, others are mutated")
	mutants := fs.Int("mutants-per-module", 8, "mutants to keep per module")
	attempts := fs.Int("max-attempts", 0, "mutants to try per module before giving up (0: 8 per wanted mutant)")
	seed := fs.Uint64("seed", 1, "seed for choosing mutants and the held-out split")
	heldOut := fs.Float64("heldout", 0.5, "fraction of kept mutants placed in the held-out set")
	faultline := fs.String("faultline", "faultline", "path of the faultline binary")
	rankTimeout := fs.String("timeout", "30s", "faultline's per-test timeout (its -timeout flag)")
	deadline := fs.Duration("rank-deadline", 15*time.Minute, "hard limit on one faultline rank run")
	rankFlags := fs.String("rank-flags", "", "extra flags for faultline rank, space-separated (e.g. \"-budget 10s -max-analyzed 5\", or -angelic=false for the formulas alone)")
	testTimeout := fs.Duration("test-timeout", 2*time.Minute, "timeout of one plain go test run over a subject")
	out := fs.String("out", "-", "markdown report path (- for standard output)")
	resultsPath := fs.String("results", "", "also write the raw results as JSON to this path")
	work := fs.String("work", "", "scratch directory for working copies (default: a temporary directory, removed afterwards)")
	formulaList := fs.String("formulas", "", "comma-separated formulas to score (default: every registered formula and opt- of each bounded one)")
	selectOnly := fs.Bool("select-only", false, "choose and classify mutants without running faultline")
	reportFrom := fs.String("report-from", "", "write the report of the raw results (-results) of an earlier run instead of running; -command and -elapsed describe that run")
	command := fs.String("command", "", "with -report-from: the command that made the results")
	elapsed := fs.String("elapsed", "", "with -report-from: that run's wall time")
	classify := fs.Bool("classify", false, "with -report-from: classify every fault's construct again from each subject's sources, fetched but not run (results of an earlier harness)")
	freshStore := fs.Bool("fresh-store", true, "give every faultline run an empty spectrum store")
	blockRank := fs.Bool("blockrank", true, "rank with -formula blockrank (edge profiles in the same run) and score the BlockRank orders too")
	satTar := fs.Bool("sattar", false, "rank each fault once more with -formula sattar (unsat cores; needs Z3) and score SAT-TAR's order too")
	quiet := fs.Bool("q", false, "no progress on standard error")
	rankings := fs.String("rankings", "", "keep each fault's ranking as JSON in this directory (with -rank-flags -evidence, every line's evidence, to train and score orders)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	if *mutants <= 0 {
		return fmt.Errorf("-mutants-per-module must be positive, got %d", *mutants)
	}
	if *heldOut < 0 || *heldOut > 1 {
		return fmt.Errorf("-heldout must be a fraction in [0,1], got %g", *heldOut)
	}
	cfg := &Config{
		MutantsPerModule: *mutants,
		MaxAttempts:      *attempts,
		Seed:             *seed,
		HeldOut:          *heldOut,
		SelectOnly:       *selectOnly,
		FreshStore:       *freshStore,
		BlockRank:        *blockRank,
		SatTar:           *satTar,
		TestTimeout:      *testTimeout,
		Rankings:         *rankings,
		Log:              os.Stderr,
	}
	if *quiet {
		cfg.Log = nil
	}
	for _, s := range splitList(*subjects) {
		spec, err := mutation.ParseSubjectSpec(strings.ReplaceAll(s, ";", ","))
		if err != nil {
			return err
		}
		cfg.Subjects = append(cfg.Subjects, spec)
	}
	for _, d := range splitList(*dirs) {
		cfg.Subjects = append(cfg.Subjects, mutation.SubjectSpec{Dir: d})
	}
	if len(cfg.Subjects) == 0 {
		return errors.New("no subjects: give -subjects or -dirs")
	}
	formulas, err := ResolveFormulas(splitList(*formulaList))
	if err != nil {
		return err
	}
	cfg.Formulas = formulas
	if !*selectOnly && *reportFrom == "" {
		bin, err := exec.LookPath(*faultline)
		if err != nil {
			return fmt.Errorf("faultline binary: %w (build it with go build -o /tmp/faultline ./cmd/faultline and pass -faultline)", err)
		}
		if bin, err = filepath.Abs(bin); err != nil {
			return fmt.Errorf("faultline binary: %w", err)
		}
		cfg.Faultline = Faultline{Binary: bin, TestTimeout: *rankTimeout, Deadline: *deadline, Flags: strings.Fields(*rankFlags)}
	}
	if *work == "" {
		dir, err := os.MkdirTemp("", "faultline-effectiveness-")
		if err != nil {
			return fmt.Errorf("scratch directory: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.Work = dir
	} else {
		if err := os.MkdirAll(*work, 0o755); err != nil {
			return fmt.Errorf("scratch directory: %w", err)
		}
		if cfg.Work, err = filepath.Abs(*work); err != nil {
			return fmt.Errorf("scratch directory: %w", err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	var res *Results
	var evalErr error
	if *reportFrom != "" {
		data, err := os.ReadFile(*reportFrom)
		if err != nil {
			return fmt.Errorf("raw results: %w", err)
		}
		res = &Results{}
		if err := json.Unmarshal(data, res); err != nil {
			return fmt.Errorf("raw results %s: %w", *reportFrom, err)
		}
		if *classify {
			if err := Classify(ctx, res, cfg.Work); err != nil {
				return err
			}
		}
	} else {
		res, evalErr = Evaluate(ctx, cfg)
	}
	if evalErr != nil && !errors.Is(evalErr, context.Canceled) {
		return evalErr
	}
	// An interrupted run still reports the faults scored so far.
	var names []string
	for _, f := range formulas {
		names = append(names, f.Name())
		if combinedWith[f.Name()] {
			names = append(names, f.Name()+combinedSuffix)
		}
	}
	if *blockRank {
		names = append(names, BlockRankOrders(!slices.Contains(strings.Fields(*rankFlags), "-angelic=false"))...)
	}
	if *satTar {
		names = append(names, SatTarOrders(!slices.Contains(strings.Fields(*rankFlags), "-angelic=false"))...)
	}
	meta := ReportMeta{
		Command:  "go run ./bench/effectiveness " + strings.Join(args, " "),
		Seed:     *seed,
		HeldOut:  *heldOut,
		Elapsed:  time.Since(start).Round(time.Second).String(),
		Partial:  evalErr != nil,
		Formulas: names,
	}
	if *reportFrom != "" {
		meta.Command, meta.Elapsed = *command, *elapsed
	}
	if *resultsPath != "" {
		data, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("encode results: %w", err)
		}
		if err := os.WriteFile(*resultsPath, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	if *out == "-" {
		if err := WriteReport(os.Stdout, meta, res); err != nil {
			return err
		}
		return evalErr
	}
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("create report: %w", err)
	}
	if err := WriteReport(f, meta, res); err != nil {
		f.Close()
		return fmt.Errorf("write report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return evalErr
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
