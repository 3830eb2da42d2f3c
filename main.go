// Command faultline localizes the faults behind failing Go tests. It runs
// the tests of a module with per-test coverage, ranks the lines most likely
// to cause the failures, and serves the results to editors as a language
// server.
//
//	faultline rank [flags] [packages]    collect spectra and print the ranked suspicious lines
//	faultline test [go test flags] [packages]  run tests like go test, recording spectra
//	faultline fix [flags] [packages]     print verified angelic fix candidates per failing test
//	faultline serve                      run the language server on stdin/stdout
//	faultline trust [-list | -revoke] [DIR]  manage the modules whose tests the server runs without asking
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
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
		"rank":  {"collect spectra and print the ranked suspicious lines", runRank},
		"test":  {"run tests like go test and record their spectra", runTest},
		"fix":   {"find and verify angelic fix candidates for the failing tests", runFix},
		"serve": {"run the language server on standard input and output", runServe},
		"trust": {"trust a module: the language server runs its tests without asking", runTrust},
	}
}

// exitError carries a process exit code without a message of its own.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
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
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "faultline: unknown command %q\n", args[0])
		usage(cmds)
		return 2
	}
	err := cmd.run(ctx, args[1:])
	var code exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(os.Stderr, "faultline %s: %v\n", args[0], err)
		return 1
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
		fmt.Fprintf(os.Stderr, "  %-6s %s\n", name, cmds[name].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'faultline <command> -h' for a command's flags.")
}
