//go:build !cgo

package formula

// Close releases what the run holds.
func (r *FailingRun) Close() {}

// Cause needs the Z3 binding, which needs cgo.
func (r *FailingRun) Cause() (*Cause, error) { return nil, Available() }

// PredicateCause needs the Z3 binding, which needs cgo.
func (r *FailingRun) PredicateCause(p Predicate) (*Cause, error) { return nil, Available() }

type semanticState struct{}
