//go:build !cgo

package formula

import "time"

// PathFormula needs the Z3 binding: without cgo it cannot be made.
type PathFormula struct{}

// Formula cannot replay a run without cgo.
func (s *InputSession) Formula(run *RecordedRun, timeout time.Duration) (*PathFormula, error) {
	return nil, Available()
}

func (f *PathFormula) Close()                  {}
func (f *PathFormula) Restart()                {}
func (f *PathFormula) Inputs() []InputValue    { return nil }
func (f *PathFormula) Conditions() []Condition { return nil }

func (f *PathFormula) Flip(i int, exclude [][]InputValue) ([]InputValue, error) {
	return nil, Available()
}

func (f *PathFormula) Core() ([]Suspect, error) { return nil, Available() }
