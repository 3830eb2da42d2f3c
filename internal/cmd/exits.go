package cmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"

	"github.com/faultline-go/faultline/internal/localize"
)

// Exit codes follow go test: 1 when tests fail, packages do not build or a
// pattern selects nothing; 2 for a command line that cannot be obeyed.

// usageError is a command line that cannot be obeyed: an unknown flag or a
// flag's value out of its range. It exits 2, as the go command does.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef is a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// parseFlags parses a command's flags. The flag package has already
// printed what was wrong and the command's usage when it fails, so a
// failure is only an exit code.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return exitError(2)
	}
	return err
}

// exitCode prints a command's error the way the go command would and
// returns the process's exit code.
func exitCode(w io.Writer, name string, err error) int {
	var code exitError
	var usage usageError
	var patterns *localize.PatternError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(w, "faultline %s: %v\nRun 'faultline %s -h' for usage.\n", name, err, name)
		return 2
	case errors.As(err, &patterns):
		for _, m := range patterns.Misses {
			fmt.Fprintf(w, "faultline %s: %s\n", name, m)
			if testName.MatchString(m.Pattern) {
				fmt.Fprintf(w, "\t%s looks like a test name, not a package: select tests with -run, as in faultline %s -run '^%s$'\n", m.Pattern, name, m.Pattern)
			}
		}
		return 1
	default:
		fmt.Fprintf(w, "faultline %s: %v\n", name, err)
		return 1
	}
}

// testName matches the names of the functions go test runs (Test, then
// no lower-case letter: TestSuffix, not Testdata), with any subtest, which
// a user may type where a package pattern goes.
var testName = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)([^\p{Ll}/.][\pL\pN_]*)?(/.*)?$`)

// buildFailure prints the compiler's message for each package whose test
// binary did not build, the way go test does, and then is the exit status
// 1; it is nil when every package built.
func buildFailure(w io.Writer, m *localize.Matrix) error {
	if len(m.BuildErrors) == 0 {
		return nil
	}
	writeBuildErrors(w, m)
	return exitError(1)
}

// noFailureMessage is the one wording of "there is nothing to localize",
// shared by every command.
func noFailureMessage(m *localize.Matrix) string {
	passed := 0
	for _, t := range m.Tests {
		if t.Verdict.Counted() && !t.Verdict.Failing() {
			passed++
		}
	}
	broken := ""
	if n := len(m.BuildErrors); n == 1 {
		broken = "; 1 package does not build"
	} else if n > 1 {
		broken = fmt.Sprintf("; %d packages do not build", n)
	}
	if passed == 0 {
		if broken != "" {
			return "no tests ran" + broken
		}
		return "no tests to run: nothing to localize"
	}
	return fmt.Sprintf("no failing tests: %s passed%s, nothing to localize", count(passed, "test"), broken)
}

// failingTests counts the failing leaf tests of a matrix.
func failingTests(m *localize.Matrix) int {
	n := 0
	for _, t := range m.Tests {
		if t.Verdict.Failing() {
			n++
		}
	}
	return n
}
