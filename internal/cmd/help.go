package cmd

import (
	"context"
	"flag"
	"os"
)

// helpCommand prints faultline's usage, or a command's help as its -h
// does: `faultline help [command]`.
type helpCommand struct{}

func (*helpCommand) Name() string      { return "help" }
func (*helpCommand) Usage() string     { return "[command]" }
func (*helpCommand) ShortHelp() string { return "print the usage of faultline or of a command" }

func (*helpCommand) SetFlags(*flag.FlagSet) {}

func (c *helpCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, "Prints the list of commands, or the help of the command, as\n'faultline <command> -h' does.")
}

func (*helpCommand) Run(ctx context.Context, args ...string) error {
	switch {
	case len(args) == 0:
		usage(os.Stderr)
		return nil
	case len(args) > 1:
		return usagef("takes at most one command")
	}
	c := lookupCommand(args[0])
	if c == nil {
		return usagef("unknown command %q", args[0])
	}
	return runCommand(ctx, c, []string{"-h"})
}
