// Package cmd implements faultline's command line: one typed command per
// file, held in the registry commands(), each a thin layer over the
// localization service (internal/localize) or the language server (server).
// The help each prints is checked in under usage/. cmd/faultline's main
// calls Main.
package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/scratch"
)

// command is one subcommand of faultline, shaped like gopls's commands:
// a value that holds its flags, described by its methods and run by
// runCommand, which parses the flags first.
type command interface {
	// Name is the word after faultline that selects the command.
	Name() string
	// Usage is the command's arguments, as in "faultline NAME USAGE".
	Usage() string
	// ShortHelp is the command's line in the list of commands.
	ShortHelp() string
	// SetFlags binds the command's flags to its fields.
	SetFlags(fs *flag.FlagSet)
	// DetailedHelp writes what -h shows (usage, description and flags) to
	// fs.Output().
	DetailedHelp(fs *flag.FlagSet)
	// Run runs the command with the arguments that follow its flags.
	Run(ctx context.Context, args ...string) error
}

// commands is the registry of subcommands, in the order of the command
// list in cmd/faultline's documentation; each call makes fresh values.
func commands() []command {
	return []command{
		&rankCommand{},
		&testCommand{},
		&fixCommand{},
		&explainCommand{},
		&reportCommand{},
		&suggestCommand{},
		&serveCommand{},
		&trustCommand{},
		&cacheCommand{},
		&versionCommand{},
		&helpCommand{},
	}
}

// lookupCommand is the command of the registry named name, or nil.
func lookupCommand(name string) command {
	for _, c := range commands() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// runCommand parses the command's flags from args, printing its help on
// -h or a bad flag, and runs it with the arguments left.
func runCommand(ctx context.Context, c command, args []string) error {
	fs := flag.NewFlagSet(c.Name(), flag.ContinueOnError)
	c.SetFlags(fs)
	fs.Usage = func() { c.DetailedHelp(fs) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return c.Run(ctx, fs.Args()...)
}

// printHelp writes the help of a command in the shape every command's -h
// shares: its usage line, the description, and its flags if it has any.
func printHelp(fs *flag.FlagSet, c command, description string) {
	w := fs.Output()
	fmt.Fprintf(w, "usage: faultline %s", c.Name())
	if args := c.Usage(); args != "" {
		fmt.Fprintf(w, " %s", args)
	}
	fmt.Fprintf(w, "\n\n%s\n", description)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
}

// exitError carries a process exit code without a message of its own.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Main runs faultline with the given arguments (without the program name)
// and returns the process exit code.
func Main(args []string) int {
	if localize.IsBuildHelper(args) {
		// Run by go test in place of a test binary that it just linked.
		return localize.RunBuildHelper(args)
	}
	localize.OfferBuildHelper()
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
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		usage(os.Stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "-version" || args[0] == "--version" {
		args[0] = "version"
	}
	cmd := lookupCommand(args[0])
	if cmd == nil {
		fmt.Fprintf(os.Stderr, "faultline: unknown command %q\n", args[0])
		usage(os.Stderr)
		return 2
	}
	if args[0] != "serve" { // the server logs its reports to the client
		defer bug.Default.Handle(printBug(os.Stderr, os.Getenv("FAULTLINE_DEBUG") != ""))()
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
	if path := os.Getenv("FAULTLINE_HEAPPROFILE"); path != "" {
		watchCtx, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		// One file per process: a bench starts many servers.
		go watchHeapPeak(watchCtx, fmt.Sprintf("%s.%d", path, os.Getpid()))
	}
	// What a faultline killed before it could clean up left behind.
	if _, err := scratch.RemoveStale(); err != nil {
		fmt.Fprintf(os.Stderr, "faultline: removing stale temporary directories: %v\n", err)
	}
	return exitCode(os.Stderr, args[0], runCommand(ctx, cmd, args[1:]))
}

// printBug writes a bug report on one line: the command goes on with its
// fallback, and the user learns of the bug and where to look. With stacks
// (FAULTLINE_DEBUG set) the goroutine's stack follows, for the report.
func printBug(w io.Writer, stacks bool) func(bug.Report) {
	return func(r bug.Report) {
		fmt.Fprintf(w, "faultline: internal bug (please report it): %s (at %s)\n", r.Message, r.Location)
		if stacks && r.Stack != "" {
			fmt.Fprintf(w, "%s\n", strings.TrimRight(r.Stack, "\n"))
		}
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

// usage writes faultline's usage: the commands in the order of their
// names, each with its short help.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: faultline <command> [flags] [packages]\n\ncommands:")
	cmds := commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-7s %s\n", c.Name(), c.ShortHelp())
	}
	fmt.Fprintln(w, "\nRun 'faultline <command> -h' for a command's flags.")
}
