// Package cmd implements faultline's command line: one subcommand per
// file, each a thin layer over the localization service (internal/localize)
// or the language server (server). cmd/faultline's main calls Main.
package cmd

import (
	"context"
	"fmt"
	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/scratch"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"syscall"
)

// command is one subcommand of faultline.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

// commands is the registry of subcommands, by name.
func commands() map[string]command {
	return map[string]command{
		"rank":    {"collect spectra and print the ranked suspicious lines", runRank},
		"test":    {"run tests like go test and record their spectra", runTest},
		"fix":     {"find and verify angelic fix candidates for the failing tests", runFix},
		"explain": {"explain failing tests from the git history: the changes since a passing commit that make them fail", runExplain},
		"report":  {"write an HTML report of the suspicious lines and the test suite", runReport},
		"serve":   {"run the language server on standard input and output", runServe},
		"suggest": {"suggest fuzz inputs that sharpen the ranking of failing fuzz targets (sfo, SAT-TAR)", runSuggest},
		"cache":   {"show faultline's cache (size by kind, bound) or clean it", runCache},
		"trust":   {"trust a module: the language server runs its tests without asking", runTrust},
		"version": {"print faultline's version and the Go version it was built with", runVersion},
	}
}

// exitError carries a process exit code without a message of its own.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Main runs faultline with the given arguments (without the program name)
// and returns the process exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if localize.IsWorker(args) {
		// An analysis worker of the localization service: it reports on
		// standard output, failures included.
		if err := localize.RunWorker(ctx, os.Stdin, os.Stdout); err != nil {
			return 1
		}
		return 0
	}
	return run(ctx, args)
}

func run(ctx context.Context, args []string) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "-version" || args[0] == "--version" {
		args[0] = "version"
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "faultline: unknown command %q\n", args[0])
		usage(cmds)
		return 2
	}
	if args[0] != "serve" { // the server logs its reports to the client
		defer bug.Default.Handle(printBug(os.Stderr))()
	}
	if path := os.Getenv("FAULTLINE_CPUPROFILE"); path != "" {
		if stop, err := startCPUProfile(path); err != nil {
			fmt.Fprintf(os.Stderr, "faultline: %v\n", err)
		} else {
			defer stop()
		}
	}
	if path := os.Getenv("FAULTLINE_MEMPROFILE"); path != "" {
		defer writeAllocProfile(path)
	}
	// What a faultline killed before it could clean up left behind.
	if _, err := scratch.RemoveStale(); err != nil {
		fmt.Fprintf(os.Stderr, "faultline: removing stale temporary directories: %v\n", err)
	}
	return exitCode(os.Stderr, args[0], cmd.run(ctx, args[1:]))
}

// printBug writes a bug report on one line: the command goes on with its
// fallback, and the user learns of the bug and where to look.
func printBug(w io.Writer) func(bug.Report) {
	return func(r bug.Report) {
		fmt.Fprintf(w, "faultline: internal bug (please report it): %s (at %s)\n", r.Message, r.Location)
	}
}

// startCPUProfile writes a CPU profile of the command to path, for finding
// where the time goes on a real module.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting the CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeAllocProfile writes the profile of every allocation the command
// made, for finding what drives its peak memory.
func writeAllocProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultline: writing the allocation profile: %v\n", err)
	}
}

func usage(cmds map[string]command) {
	fmt.Fprintln(os.Stderr, "usage: faultline <command> [flags] [packages]\n\ncommands:")
	var names []string
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(os.Stderr, "  %-7s %s\n", name, cmds[name].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'faultline <command> -h' for a command's flags.")
}
