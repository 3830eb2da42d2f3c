package main

import (
	"github.com/faultline-go/faultline/bench/internal/gocmd"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/faultline-go/faultline/bench/internal/mutation"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Config is everything one evaluation run depends on.
type Config struct {
	Subjects         []mutation.SubjectSpec
	MutantsPerModule int
	MaxAttempts      int // mutants tried per module before giving up; 0: 8 per wanted mutant
	Seed             uint64
	HeldOut          float64 // fraction of kept mutants in the held-out set
	Faultline        Faultline
	SelectOnly       bool // choose mutants but do not run faultline
	FreshStore       bool // give every faultline run its own spectrum store
	TestTimeout      time.Duration
	Work             string // scratch directory for working copies and stores
	Formulas         []rank.Formula
	// Rankings, when set, is a directory where each fault's ranking is
	// kept as JSON (SavedRanking), for training and scoring orders later.
	Rankings string
	// BlockRank ranks with -formula blockrank (edge profiles collected in
	// the same run) and scores the BlockRank orders beside the formulas.
	BlockRank bool
	// SatTar ranks the same collection once more with -formula sattar
	// (the unsat cores of the failing tests) and scores SAT-TAR's order.
	SatTar bool
	Log    io.Writer
}

// FaultResult is the evaluation of one fault: a seeded mutant or a known
// fault of a local subject.
type FaultResult struct {
	Module      string         `json:"module"`
	Site        *mutation.Site `json:"site,omitempty"` // nil for a known fault
	Fault       Fault          `json:"fault"`
	Description string         `json:"description,omitempty"`
	// Construct is the kind of code the faulty line is in (constructs).
	Construct  string  `json:"construct,omitempty"`
	HeldOut    bool    `json:"heldOut"`
	Failed     int     `json:"failed"` // plain go test, leaf tests
	Passed     int     `json:"passed"`
	RankFailed int     `json:"rankFailed"` // as faultline counted them
	RankPassed int     `json:"rankPassed"`
	Seconds    float64 `json:"seconds"` // faultline rank wall time
	// Analysis times each failing test's angelic analysis (seconds in all
	// and in the solver), when faultline ran one.
	Analysis []AnalysisTime `json:"analysis,omitempty"`
	Scored   *Scored        `json:"scored,omitempty"`
	Err      string         `json:"error,omitempty"`
	// Unsettled counts the functions whose BlockRank iteration did not
	// settle (solved directly, or their last iterate kept).
	Unsettled int `json:"unsettled,omitempty"`
}

// AnalysisTime is one failing test's angelic analysis.
type AnalysisTime struct {
	Seconds      float64 `json:"seconds"`
	SolveSeconds float64 `json:"solveSeconds"`
}

// SubjectStats records how mutant selection went for one subject.
type SubjectStats struct {
	Spec      string `json:"spec"`
	Module    string `json:"module"`
	Packages  int    `json:"packages"`
	Tests     int    `json:"tests"`
	Files     int    `json:"files"`
	Lines     int    `json:"lines"`
	Sites     int    `json:"sites"`
	Tried     int    `json:"tried"`
	Kept      int    `json:"kept"`
	NoBuild   int    `json:"noBuild"`   // did not compile or vet
	AllPass   int    `json:"allPass"`   // equivalent or untested
	AllFail   int    `json:"allFail"`   // every test fails: no spectrum signal
	TimedOut  int    `json:"timedOut"`  // hangs under plain go test
	KnownBugs int    `json:"knownBugs"` // fault.json subjects
	Err       string `json:"error,omitempty"`
}

// Results is the outcome of an evaluation run.
type Results struct {
	Subjects []SubjectStats `json:"subjects"`
	Faults   []FaultResult  `json:"faults"`
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// Evaluate prepares each subject, selects its faults and scores faultline's
// ranking of each under every formula.
func Evaluate(ctx context.Context, cfg *Config) (*Results, error) {
	res := &Results{}
	for _, spec := range cfg.Subjects {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		stats, faults := cfg.evaluateSubject(ctx, spec)
		res.Subjects = append(res.Subjects, stats)
		res.Faults = append(res.Faults, faults...)
	}
	return res, ctx.Err()
}

func (c *Config) evaluateSubject(ctx context.Context, spec mutation.SubjectSpec) (SubjectStats, []FaultResult) {
	stats := SubjectStats{Spec: spec.String()}
	c.logf("subject %s: preparing", spec)
	subj, err := Prepare(ctx, spec, c.Work, c.TestTimeout)
	if err != nil {
		stats.Err = err.Error()
		c.logf("subject %s: %v", spec, err)
		return stats, nil
	}
	stats.Module, stats.Packages, stats.Tests = subj.Module, len(subj.Packages), subj.Tests
	stats.Files, stats.Lines = len(subj.Files), subj.Lines
	c.logf("subject %s: %d packages, %d passing leaf tests, %d files, %d lines", spec, stats.Packages, stats.Tests, stats.Files, stats.Lines)
	if subj.Fault != nil {
		stats.KnownBugs = 1
		r := c.evaluateFault(ctx, subj, nil, *subj.Fault)
		r.Description = subj.FaultDoc
		if r.Err == "" {
			stats.Kept = 1
		}
		results := []FaultResult{r}
		c.classify(subj, results)
		return stats, results
	}
	sites, err := mutation.ModuleSites(subj.Root, subj.Files)
	if err != nil {
		stats.Err = err.Error()
		return stats, nil
	}
	stats.Sites = len(sites)
	maxAttempts := c.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = 8 * c.MutantsPerModule
	}
	var results []FaultResult
	for _, site := range mutation.Shuffle(sites, c.Seed, subj.Module) {
		if stats.Kept >= c.MutantsPerModule || stats.Tried >= maxAttempts || ctx.Err() != nil {
			break
		}
		stats.Tried++
		r, verdict, err := c.tryMutant(ctx, subj, site)
		if ctx.Err() != nil {
			stats.Tried-- // interrupted midway: no verdict
			break
		}
		if err != nil {
			stats.Err = err.Error()
			c.logf("subject %s: %v", spec, err)
			break
		}
		switch verdict {
		case verdictNoBuild:
			stats.NoBuild++
		case verdictAllPass:
			stats.AllPass++
		case verdictAllFail:
			stats.AllFail++
		case verdictTimeout:
			stats.TimedOut++
		case verdictKept:
			stats.Kept++
			results = append(results, r)
		}
		c.logf("  %s: %s", site.ID(), verdict)
	}
	c.classify(subj, results)
	return stats, results
}

// classify names the construct of each fault from the working copy, which
// holds the unmutated sources again; a module that does not load leaves
// them unclassified, for -report-from -classify to retry.
func (c *Config) classify(subj *Subject, results []FaultResult) {
	if err := classifyFaults(subj.Root, results); err != nil {
		c.logf("subject %s: %v", subj.Spec, err)
	}
}

type verdict string

const (
	verdictNoBuild verdict = "does not build"
	verdictAllPass verdict = "all tests pass"
	verdictAllFail verdict = "no test passes"
	verdictTimeout verdict = "times out"
	verdictKept    verdict = "kept"
)

// tryMutant applies one mutation, classifies it with plain go test and, if
// some but not all tests fail, scores faultline on it. The source file is
// restored whatever happens.
func (c *Config) tryMutant(ctx context.Context, subj *Subject, site mutation.Site) (_ FaultResult, _ verdict, err error) {
	path := filepath.Join(subj.Root, filepath.FromSlash(site.File))
	orig, err := os.ReadFile(path)
	if err != nil {
		return FaultResult{}, "", fmt.Errorf("read %s: %w", site.File, err)
	}
	mutated, err := site.Apply(orig)
	if err != nil {
		return FaultResult{}, "", err
	}
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return FaultResult{}, "", fmt.Errorf("write mutant: %w", err)
	}
	defer func() {
		if rerr := os.WriteFile(path, orig, 0o644); rerr != nil && err == nil {
			err = fmt.Errorf("restore %s after mutant: %w", site.File, rerr)
		}
	}()
	o, err := gocmd.RunGoTest(ctx, subj.Root, subj.Packages, c.TestTimeout, nil)
	if err != nil {
		return FaultResult{}, "", fmt.Errorf("mutant %s: %w", site.ID(), err)
	}
	switch {
	case o.BuildFailed:
		return FaultResult{}, verdictNoBuild, nil
	case o.TimedOut:
		return FaultResult{}, verdictTimeout, nil
	case o.Failed == 0:
		return FaultResult{}, verdictAllPass, nil
	case o.Passed == 0:
		return FaultResult{}, verdictAllFail, nil
	}
	lines := []int{site.Line}
	if site.StmtLine != site.Line {
		lines = append(lines, site.StmtLine)
	}
	r := c.evaluateFault(ctx, subj, &site, Fault{File: site.File, Lines: lines})
	r.Failed, r.Passed = o.Failed, o.Passed
	return r, verdictKept, nil
}

// evaluateFault runs faultline on the subject's working copy as it stands
// and scores the ranking against the fault.
func (c *Config) evaluateFault(ctx context.Context, subj *Subject, site *mutation.Site, fault Fault) FaultResult {
	r := FaultResult{Module: subj.Module, Site: site, Fault: fault}
	if site != nil {
		r.HeldOut = mutation.HeldOut(c.Seed, subj.Module, *site, c.HeldOut)
	} else {
		o, err := gocmd.RunGoTest(ctx, subj.Root, subj.Packages, c.TestTimeout, nil)
		if err != nil {
			r.Err = err.Error()
			return r
		}
		r.Failed, r.Passed = o.Failed, o.Passed
	}
	if c.SelectOnly {
		return r
	}
	fl := c.Faultline
	if c.FreshStore {
		store, err := os.MkdirTemp(c.Work, "store-")
		if err != nil {
			r.Err = fmt.Sprintf("spectrum store directory: %v", err)
			return r
		}
		defer os.RemoveAll(store)
		fl.Env = append(fl.Env, "FAULTLINE_CACHE="+store)
	}
	if c.BlockRank {
		fl.Flags = append([]string{"-formula", spectra.BlockRankName}, fl.Flags...)
	}
	rep, elapsed, err := fl.Rank(ctx, subj.Root, subj.Packages)
	r.Seconds = elapsed.Seconds()
	if err != nil {
		r.Err = err.Error()
		c.logf("    faultline: %v", err)
		return r
	}
	r.RankFailed, r.RankPassed = rep.Failed, rep.Passed
	if rep.Failed == 0 {
		r.Err = whyEmpty(rep)
		return r
	}
	if c.Rankings != "" {
		if err := c.saveRanking(&r, rep); err != nil {
			c.logf("    keep ranking: %v", err)
		}
	}
	scored := Score(rep, fault, c.Formulas)
	if c.BlockRank {
		// The same collection (the store is kept) in the calibrated
		// reading, without the angelic analysis: nothing runs again.
		cal := fl
		cal.Flags = append(slices.Clone(fl.Flags), "-blockrank-mode", "calibrated", "-angelic=false")
		calibrated, _, err := cal.Rank(ctx, subj.Root, subj.Packages)
		if err != nil {
			c.logf("    faultline (calibrated BlockRank): %v", err)
			calibrated = nil
		}
		ScoreBlockRank(&scored, rep, calibrated, fault)
		if rep.BlockRank != nil {
			r.Unsettled = len(rep.BlockRank.Unsettled)
		}
	}
	if c.SatTar {
		// The same collection (the store is kept); the cores come from
		// their own cache, so nothing but the cores runs again.
		stf := fl
		stf.Flags = append(slices.Clone(fl.Flags), "-formula", localize.SatTarName, "-angelic=false")
		st, _, err := stf.Rank(ctx, subj.Root, subj.Packages)
		if err != nil {
			c.logf("    faultline (SAT-TAR): %v", err)
		} else {
			ScoreSatTar(&scored, rep, st, fault)
		}
	}
	r.Scored = &scored
	if rep.Angelic != nil {
		for _, t := range rep.Angelic.Tests {
			if !t.Cached {
				r.Analysis = append(r.Analysis, AnalysisTime{Seconds: t.Seconds, SolveSeconds: t.SolveSeconds})
			}
		}
	}
	if fs, ok := scored.ByFormula[rank.Default().Name()]; ok {
		c.logf("    faultline %.1fs: %d failed, %d passed, %d lines; %s puts the fault at %.1f (executed by a failing test: %v)",
			r.Seconds, rep.Failed, rep.Passed, scored.Lines, rank.Default().Name(), fs.Pos[1], scored.FaultExecutedByFailing)
	}
	return r
}

// SavedRanking is one fault's ranking as -rankings keeps it.
type SavedRanking struct {
	Module  string      `json:"module"`
	Site    string      `json:"site,omitempty"`
	Fault   Fault       `json:"fault"`
	HeldOut bool        `json:"heldOut"`
	Report  *RankReport `json:"report"`
}

// saveRanking writes a fault's ranking into c.Rankings, named by a hash of
// its module and site.
func (c *Config) saveRanking(r *FaultResult, rep *RankReport) error {
	s := SavedRanking{Module: r.Module, Fault: r.Fault, HeldOut: r.HeldOut, Report: rep}
	if r.Site != nil {
		s.Site = r.Site.ID()
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(s.Module + "\x00" + s.Site + "\x00" + s.Fault.File))
	if err := os.MkdirAll(c.Rankings, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Rankings, hex.EncodeToString(sum[:8])+".json"), data, 0o644)
}
