package cmd

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/faultline-go/faultline/internal/trust"
)

// trustCommand manages the modules whose tests the language server runs
// without asking: `faultline trust [DIR]` trusts the module holding DIR,
// -list prints the list, -revoke DIR takes a module off it.
type trustCommand struct {
	list   bool
	revoke bool
}

func (*trustCommand) Name() string  { return "trust" }
func (*trustCommand) Usage() string { return "[-list | -revoke] [DIR]" }
func (*trustCommand) ShortHelp() string {
	return "trust a module: the language server runs its tests without asking"
}

func (c *trustCommand) SetFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.list, "list", false, "print the trusted module roots, one per line")
	fs.BoolVar(&c.revoke, "revoke", false, "take the module holding DIR off the list")
}

// DetailedHelp gives a usage line for each of trust's three forms, which
// say what its flags do.
func (*trustCommand) DetailedHelp(fs *flag.FlagSet) {
	fmt.Fprintln(fs.Output(), `usage: faultline trust [DIR]         trust the module holding DIR (default .)
       faultline trust -list        print the trusted modules
       faultline trust -revoke DIR  stop trusting the module holding DIR

The language server builds and runs a module's tests, which runs the
module's code, only once its user agrees: when asked in the editor, or for
the modules in this list. faultline rank, test and fix run where they are
told without consulting it.`)
}

func (c *trustCommand) Run(ctx context.Context, args ...string) error {
	if len(args) > 1 || (c.list && (c.revoke || len(args) > 0)) {
		return usagef("give at most one directory, and none with -list")
	}
	path, err := trust.DefaultPath()
	if err != nil {
		return err
	}
	store := trust.At(path)
	if c.list {
		mods, err := store.List()
		if err != nil {
			return err
		}
		if len(mods) == 0 {
			fmt.Fprintf(os.Stderr, "no trusted modules (%s)\n", path)
		}
		for _, m := range mods {
			fmt.Println(m.Root)
		}
		return nil
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	root, err := trust.ModuleRoot(dir)
	if c.revoke {
		if err != nil {
			root = dir // a deleted module can still be revoked
		}
		removed, err := store.Remove(root)
		if err != nil {
			return err
		}
		if !removed {
			return fmt.Errorf("%s is not in the trust list %s", root, path)
		}
		fmt.Printf("revoked %s: the language server asks before running its tests\n", root)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: faultline trusts Go modules, give a directory inside one", err)
	}
	m, err := store.Add(root)
	if err != nil {
		return err
	}
	fmt.Printf("trusted %s: the language server runs its tests without asking\n", m.Root)
	return nil
}
