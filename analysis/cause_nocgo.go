//go:build !cgo

package analysis

// Close releases what the run holds.
func (r *FailingRun) Close() {}

// Cause needs the Z3 binding, which needs cgo.
func (r *FailingRun) Cause() (*Cause, error) { return nil, Available() }

// PredicateCause needs the Z3 binding, which needs cgo.
func (r *FailingRun) PredicateCause(p Predicate) (*Cause, error) { return nil, Available() }

//lint:ignore U1000 FailingRun's semantic field, read only with cgo, needs the type
type semanticState struct{}
