package localize

import (
	"os"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// IsBuildHelper reports whether args run this executable as go test's
// -exec program, in place of a test binary that go test just linked.
func IsBuildHelper(args []string) bool {
	return len(args) > 0 && args[0] == testbuild.BuildHelperArg
}

// RunBuildHelper hands the just-linked test binary named in args over to
// the build that started go test, and returns the process exit code.
func RunBuildHelper(args []string) int {
	return testbuild.BuildHelper(args[1:])
}

// OfferBuildHelper makes builds started from this process (and from the
// workers it starts, which inherit the environment) hand over each test
// binary as soon as it is linked, through this executable. A variable
// already set is kept.
func OfferBuildHelper() {
	if os.Getenv(testbuild.BuildHelperEnv) != "" {
		return
	}
	if exe, err := os.Executable(); err == nil {
		os.Setenv(testbuild.BuildHelperEnv, exe)
	}
}
