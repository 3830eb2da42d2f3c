package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/server"
)

// serveMemoryLimit is the server's soft memory limit (GOMEMLIMIT overrides
// it); analyses run in worker processes with limits of their own.
const serveMemoryLimit = 80 << 20

// serveCommand runs the language server on stdin and stdout:
// `faultline serve`.
type serveCommand struct {
	debounce time.Duration
}

func (*serveCommand) Name() string  { return "serve" }
func (*serveCommand) Usage() string { return "[flags]" }
func (*serveCommand) ShortHelp() string {
	return "run the language server on standard input and output"
}

func (c *serveCommand) SetFlags(fs *flag.FlagSet) {
	fs.DurationVar(&c.debounce, "debounce", 300*time.Millisecond, "how long a save waits for further saves before tests rerun")
}

func (c *serveCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, "Runs the faultline language server over stdin and stdout (LSP, JSON-RPC 2.0).")
}

func (c *serveCommand) Run(ctx context.Context, args ...string) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		// The server lives as long as the editor: collect garbage harder
		// before its heap grows past this, rather than double it as the
		// default pacing would after a large collection.
		debug.SetMemoryLimit(serveMemoryLimit)
	}
	if len(args) > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", args)
	}
	if c.debounce <= 0 {
		return fmt.Errorf("serve: -debounce must be positive, got %s", c.debounce)
	}
	opts := server.Options{Debounce: c.debounce}
	if err := localize.AnalysisAvailable(); err != nil {
		fmt.Fprintf(os.Stderr, "faultline serve: serving formula rankings only: %v\n", err)
	}
	srv := server.New(opts)
	// ErrExitWithoutShutdown makes the process exit with status 1, as the
	// LSP asks of a server told to exit before shutdown.
	if err := srv.Serve(ctx, newStdio(os.Stdin, os.Stdout)); err != nil {
		return err
	}
	return nil
}

// stdio is the server's transport over standard input and output. Reading
// happens on a goroutine of its own, piped to the connection, so that Close
// ends a read in progress at once: closing a blocking file (a pipe, a
// terminal) does not interrupt a read blocked on it, and the connection
// waits for its read loop to stop before the server can return.
type stdio struct {
	in  *io.PipeReader
	out io.WriteCloser
}

func newStdio(in io.Reader, out io.WriteCloser) *stdio {
	r, w := io.Pipe()
	go func() {
		_, err := io.Copy(w, in)
		w.CloseWithError(err) // nil: the reader sees io.EOF
	}()
	return &stdio{in: r, out: out}
}

func (s *stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s *stdio) Write(p []byte) (int, error) { return s.out.Write(p) }

// Close ends pending and later reads; the copying goroutine stays blocked
// on the input until the process exits, which follows.
func (s *stdio) Close() error {
	return errors.Join(s.in.Close(), s.out.Close())
}

var _ io.ReadWriteCloser = (*stdio)(nil)
