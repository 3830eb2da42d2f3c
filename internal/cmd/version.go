package cmd

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// versionCommand prints faultline's version from its build information,
// as gopls version does: the module version ("(devel)" when built from a
// clone without version information) and the Go version it was built with.
type versionCommand struct{}

func (*versionCommand) Name() string  { return "version" }
func (*versionCommand) Usage() string { return "" }
func (*versionCommand) ShortHelp() string {
	return "print faultline's version and the Go version it was built with"
}

func (*versionCommand) SetFlags(*flag.FlagSet) {}

func (c *versionCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, "Prints faultline's module version and the Go version it was built with.")
}

func (*versionCommand) Run(_ context.Context, args ...string) error {
	if len(args) > 0 {
		return usagef("takes no arguments")
	}
	fmt.Println(versionText())
	return nil
}

// versionText is "faultline VERSION GOVERSION".
func versionText() string {
	version, goVersion := "(devel)", runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
	}
	return fmt.Sprintf("faultline %s %s", version, goVersion)
}
