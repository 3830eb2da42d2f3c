// Command realfaults is faultline's benchmark of real faults, mined from Go
// projects' histories the way Defects4J was built: a commit that fixes a
// fault and adds or changes a test gives a fault whose faulty version is
// that commit's tree with the non-test files the fix changed put back as
// they were before it. The faults are data (faults.json: repository,
// commits, packages, faulty lines, failing tests); no project's source is
// kept here, and materialize rebuilds a fault's versions from the
// project's history or from the Go module proxy.
//
// Subcommands:
//
//	mine         find and validate faults in fetched histories (resumable)
//	materialize  write a fault's faulty (or fixed) version into a directory
//	eval         run faultline on every fault's faulty version (resumable)
//	augment      copy eval's rankings with the evidence computed from
//	             source alone (the failing tests' identity) and, with
//	             -mirrors, from the history (how recently lines changed)
//	             added
//	train        score every technique and order on the rankings eval kept
//	             (and on bench/effectiveness' seeded faults), learn the
//	             order's model on the tuning halves, decide the default
//	score        rank every fault with the shipped model, learning nothing
//	tune         compare variants of the learned order (window, guard,
//	             the order below the window) on the tuning half alone,
//	             then score the chosen ones on the held-out half (-final)
//	compare      compare two eval directories fault by fault: rank time,
//	             lines listed elsewhere, the faulty line's place
//	times        how long one eval directory's ranks and their mutation
//	             analyses took
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "realfaults:", err)
		os.Exit(1)
	}
}

// defaultBenchmark is the benchmark file, relative to the module root.
const defaultBenchmark = "bench/realfaults/faults.json"

func defaultWork() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "faultline-realfaults")
}

// rankingsFlagSet is the flag set of a subcommand that writes or reads
// eval's rankings (eval, augment, train, score) with the flags they share:
// -bench, the benchmark file, and -work, eval's directory, whose help
// (workHelp) says how the subcommand uses it.
func rankingsFlagSet(name, workHelp string) (fs *flag.FlagSet, benchPath, work *string) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	benchPath = fs.String("bench", defaultBenchmark, "the benchmark file")
	work = fs.String("work", defaultWork(), workHelp)
	return fs, benchPath, work
}

// commaList splits a flag's comma-separated list, leaving out empty
// items and the spaces around each.
func commaList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// subcommand is one of realfaults' subcommands: what it is called and
// what runs it.
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string) error
}

// noContext adapts a subcommand that needs no context.
func noContext(run func([]string) error) func(context.Context, []string) error {
	return func(_ context.Context, args []string) error { return run(args) }
}

// subcommands are the subcommands in the order usage names them.
var subcommands = []subcommand{
	{"mine", runMine},
	{"materialize", runMaterialize},
	{"eval", runEval},
	{"augment", noContext(runAugment)},
	{"train", noContext(runTrain)},
	{"score", noContext(runScore)},
	{"tune", noContext(runTune)},
	{"compare", noContext(runCompare)},
	{"times", noContext(runTimes)},
}

func run(args []string) error {
	names := make([]string, len(subcommands))
	for i, c := range subcommands {
		names[i] = c.name
	}
	if len(args) == 0 {
		return fmt.Errorf("usage: realfaults %s [flags]", strings.Join(names, "|"))
	}
	i := slices.IndexFunc(subcommands, func(c subcommand) bool { return c.name == args[0] })
	if i < 0 {
		return fmt.Errorf("unknown subcommand %q: want one of %s", args[0], strings.Join(names, ", "))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return subcommands[i].run(ctx, args[1:])
}

func runMine(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mine", flag.ContinueOnError)
	benchPath := fs.String("bench", defaultBenchmark, "the benchmark file: its projects are mined, its faults extended")
	mirrors := fs.String("mirrors", "/work/.mirror", "directory holding the projects' git histories (owner+name/repo, owner+name.git or owner+name)")
	work := fs.String("work", defaultWork(), "scratch and state directory (verdicts of tried commits are kept here, so a run resumes)")
	only := fs.String("projects", "", "comma-separated repositories to mine (default: every project of the benchmark)")
	want := fs.Int("want", 12, "faults to keep per project")
	maxTries := fs.Int("max-tries", 60, "candidates to try per project, counting earlier runs")
	timeout := fs.Duration("timeout", 90*time.Second, "go test's timeout for one version's packages")
	budget := fs.Duration("budget", 8*time.Hour, "stop trying new candidates after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := realfault.LoadBenchmark(*benchPath)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(*budget)
	selected := map[string]bool{}
	for _, r := range commaList(*only) {
		if _, ok := b.Project(r); !ok {
			return fmt.Errorf("%s is not a project of %s", r, *benchPath)
		}
		selected[r] = true
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	for _, p := range b.Projects {
		if len(selected) > 0 && !selected[p.Repo] {
			continue
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		g, err := realfault.FindGitDir(*mirrors, p.Repo)
		if err != nil {
			logf("%s: %v", p.Repo, err)
			continue
		}
		flat := strings.ReplaceAll(p.Repo, "/", "+")
		m := &miner{project: p, git: g, work: filepath.Join(*work, "scratch", flat), state: filepath.Join(*work, "verdicts", flat),
			timeout: *timeout, log: logf}
		kept, err := m.mineProject(ctx, *want, *maxTries, deadline)
		if serr := addFaults(*benchPath, p.Repo, kept); serr != nil {
			return serr
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			// One project's broken history does not stop the others.
			logf("%s: %v", p.Repo, err)
		}
	}
	return nil
}

// addFaults makes kept the faults of a project in the benchmark file,
// under a lock so that several miners can share it.
func addFaults(path, repo string, kept []realfault.Fault) error {
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	b, err := realfault.LoadBenchmark(path)
	if err != nil {
		return err
	}
	b.Faults = slices.DeleteFunc(b.Faults, func(f realfault.Fault) bool { return f.Repo == repo })
	addKept(b, kept)
	return b.Save(path)
}

// addFaults puts kept faults into the benchmark, keeping those it already
// has, in project order.
func addKept(b *realfault.Benchmark, kept []realfault.Fault) {
	have := map[string]bool{}
	for _, f := range b.Faults {
		have[f.ID] = true
	}
	for _, f := range kept {
		if !have[f.ID] {
			b.Faults = append(b.Faults, f)
		}
	}
	rank := map[string]int{}
	for i, p := range b.Projects {
		rank[p.Repo] = i
	}
	sortFaults(b.Faults, rank)
}

func sortFaults(fs []realfault.Fault, rank map[string]int) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && less(fs[j], fs[j-1], rank); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

func less(a, b realfault.Fault, rank map[string]int) bool {
	if rank[a.Repo] != rank[b.Repo] {
		return rank[a.Repo] < rank[b.Repo]
	}
	if a.Date != b.Date {
		return a.Date > b.Date
	}
	return a.ID < b.ID
}
