package instrument

import (
	"context"
	"go/ast"
	"go/types"
	"go/version"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// rangeFuncVersion is the language version of a range over a function,
// which a range over a map becomes in key order.
const rangeFuncVersion = "go1.23"

// canSortRanges reports whether the instrumented files may range over
// maps in key order: the toolchain must compile a range over a function,
// and the module must declare Go 1.22 or later, so that raising a file to
// 1.23 changes nothing else (1.22 gave loops their per-iteration
// variables).
func canSortRanges(mod *testbuild.Module) bool {
	if mod.GoVersion == "" || version.Compare("go"+mod.GoVersion, "go1.22") < 0 {
		return false
	}
	env, err := mod.GoEnv(context.Background())
	if err != nil {
		return false
	}
	tool, _, _ := strings.Cut(env, "\n") // GOVERSION comes first
	return version.Compare(version.Lang(strings.TrimSpace(tool)), rangeFuncVersion) >= 0
}

// sortRange makes a range over a map with integer or string keys run in
// key order (faultlineagx.SortedRange). Go ranges over a map in a random
// order, so a test whose code does would give a different trace, and the
// analysis a different answer, on every run.
func (fi *fileInstrumenter) sortRange(s *ast.RangeStmt) {
	if !fi.prog.sortRanges {
		return
	}
	t := fi.info.TypeOf(s.X)
	if t == nil {
		return
	}
	if _, param := t.(*types.TypeParam); param {
		return
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok {
		return
	}
	k, ok := m.Key().Underlying().(*types.Basic)
	if !ok || k.Info()&(types.IsInteger|types.IsString) == 0 {
		return
	}
	fi.surround(s.X, fi.call("SortedRange", ""), ")")
	if version.Compare(rangeFuncVersion, fi.lang) > 0 {
		fi.lang = rangeFuncVersion
	}
}
