package cmd

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/faultline-go/faultline/internal/trust"
)

// runTrust manages the modules whose tests the language server runs
// without asking: `faultline trust [DIR]` trusts the module holding DIR,
// -list prints the list, -revoke DIR takes a module off it.
func runTrust(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	list := fs.Bool("list", false, "print the trusted module roots, one per line")
	revoke := fs.Bool("revoke", false, "take the module holding DIR off the list")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: faultline trust [DIR]         trust the module holding DIR (default .)
       faultline trust -list        print the trusted modules
       faultline trust -revoke DIR  stop trusting the module holding DIR

The language server builds and runs a module's tests, which runs the
module's code, only once its user agrees: when asked in the editor, or for
the modules in this list. faultline rank, test and fix run where they are
told without consulting it.`)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 || (*list && (*revoke || fs.NArg() > 0)) {
		return usagef("give at most one directory, and none with -list")
	}
	path, err := trust.DefaultPath()
	if err != nil {
		return err
	}
	store := trust.At(path)
	if *list {
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
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	root, err := trust.ModuleRoot(dir)
	if *revoke {
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
