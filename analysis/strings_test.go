//go:build cgo

package analysis

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestStringFaults checks that faults in functions building strings are
// found by the formula, which models strings as sequences of bytes when
// Options.Strings is set: a
// decimal padder counting its digits one too many (checked with != and
// through testify's Equal on strings) and a label joined by a helper's
// wrong separator. Plural builds a byte slice; it passes uninstrumented
// and must pass instrumented too.
func TestStringFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "strings.txtar")
	checkFormulaFindsWith(t, Options{MaxSize: 1, Strings: true}, dir, "example.com/text", "text.go", map[string]int{
		"TestWithDigits":        13,
		"TestWithDigitsTestify": 13,
		"TestLabel":             30,
	})
	checkPassesInstrumented(t, dir, "example.com/text", "TestPlural")
}

// TestByteSliceFault checks that a fault in a loop updating a byte slice
// in place is localized by a verified candidate. The formula models the
// slice's stores, but the solver gives up on them within the budget and
// predicate switching finds the condition.
func TestByteSliceFault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "strings.txtar")
	res, err := Analyze(context.Background(), open(t, dir), []testbuild.Target{{Package: "example.com/text", Test: "TestUpper"}},
		Options{MaxSize: 1, Budget: 20 * time.Second, Strings: true}.WithWallCap(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	checkFaultFound(t, res[0], "text.go", 22)
}

// TestStringsConcreteIsSaid checks that a result says when the failing
// check compares strings the formula kept concrete, so that a reader can
// be told that Options.Strings may find more, and says nothing once they
// are modelled.
func TestStringsConcreteIsSaid(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "strings.txtar")
	mod := open(t, dir)
	target := []testbuild.Target{{Package: "example.com/text", Test: "TestWithDigits"}}
	for _, modelled := range []bool{false, true} {
		res, err := Analyze(context.Background(), mod, target, Options{MaxSize: 1, Strings: modelled})
		if err != nil {
			t.Fatal(err)
		}
		if got := res[0].StringsConcrete; got == modelled {
			t.Errorf("with Strings %v: StringsConcrete %v; notes %v", modelled, got, res[0].Notes)
		}
	}
}
