package analysis

import (
	"context"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// BuildInstrumented instruments the test binary of the package pkg (an
// import path of mod) and every module package it is built from, as
// Analyze does, and builds it without running a test. A binary that does
// not compile is a *testbuild.CompileError (wrapped); any other error says
// the package could not be loaded or the build not attempted. It is how a
// benchmark checks that instrumented code compiles wherever the original
// does.
func BuildInstrumented(ctx context.Context, mod *testbuild.Module, pkg string) error {
	work, remove, err := scratch.MkdirTemp("agx-")
	if err != nil {
		return err
	}
	defer remove()
	_, err = buildInstrumented(ctx, mod, pkg, work)
	return err
}

// buildInstrumented loads, instruments and builds pkg's test binary, whose
// runs keep their files in work.
func buildInstrumented(ctx context.Context, mod *testbuild.Module, pkg, work string) (*instrument.TestBinary, error) {
	p, keys, prog, err := instrument.LoadPackage(ctx, mod, pkg)
	if err != nil {
		return nil, err
	}
	defer mod.Hasher().Save()
	return instrument.BuildTestBinary(ctx, mod, keys, prog, p, work)
}
