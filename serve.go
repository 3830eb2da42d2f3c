package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"faultline/server"
)

// runServe runs the language server on stdin and stdout: `faultline serve`.
func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	debounce := fs.Duration("debounce", 300*time.Millisecond, "how long a save waits for further saves before tests rerun")
	angelicTests := fs.Int("angelic-tests", 3, "failing tests the angelic analysis looks at after each run, when the \"angelic\" setting is on (0: never)")
	angelicBudget := fs.Duration("angelic-budget", 20*time.Second, "time the angelic analysis may spend per failing test")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: faultline serve [flags]\n\nRuns the faultline language server over stdin and stdout (LSP, JSON-RPC 2.0).\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}
	if *debounce <= 0 {
		return fmt.Errorf("serve: -debounce must be positive, got %s", *debounce)
	}
	if *angelicTests < 0 || *angelicBudget <= 0 {
		return fmt.Errorf("serve: -angelic-tests must be >= 0 and -angelic-budget positive")
	}
	opts := server.Options{Debounce: *debounce}
	if *angelicTests > 0 {
		p, err := newAngelicProvider(*angelicBudget, *angelicTests)
		if err != nil {
			fmt.Fprintf(os.Stderr, "faultline serve: serving formula rankings only: %v\n", err)
		} else {
			opts.Providers = append(opts.Providers, p)
		}
	}
	srv := server.New(opts)
	// ErrExitWithoutShutdown makes the process exit with status 1, as the
	// LSP asks of a server told to exit before shutdown.
	if err := srv.Serve(ctx, stdio{}); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// stdio is the server's transport: it reads stdin and writes stdout.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error {
	return errors.Join(os.Stdin.Close(), os.Stdout.Close())
}

var _ io.ReadWriteCloser = stdio{}
