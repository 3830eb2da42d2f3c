//go:build cgo

package formula

import (
	"errors"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// The search for a cause's core stops at the run's deadline with the
// budget's error, not after a check per statement each bounded only by
// the solver's own timeout; before the deadline it finds the core.
func TestMinimalCoreStopsAtDeadline(t *testing.T) {
	z, err := z3.NewContext(z3.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	solver, err := z.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	fixed := z.BoolConst("fixed")
	s1, s2, s3 := z.BoolConst("s1"), z.BoolConst("s2"), z.BoolConst("s3")
	if err := solver.Assert(fixed.Implies(s1.Not())); err != nil { // fixed and s1 cannot both hold
		t.Fatal(err)
	}
	st := &semanticState{z: z, solver: solver, stmts: []z3.Bool{s1, s2, s3}, deadline: time.Now().Add(time.Hour)}
	core, err := st.minimalCore([]z3.Bool{fixed})
	if err != nil || len(core) != 1 || core[0].ID() != s1.ID() {
		t.Fatalf("core before the deadline: %v, %v; want s1", core, err)
	}
	st.deadline = time.Now().Add(-time.Second)
	if core, err := st.minimalCore([]z3.Bool{fixed}); !errors.Is(err, instrument.ErrBudget) {
		t.Errorf("core past the deadline: %v, %v; want the budget's error", core, err)
	}
}
