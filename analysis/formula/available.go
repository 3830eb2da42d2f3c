package formula

import (
	"fmt"

	"github.com/faultline-go/faultline/solver/z3"
)

// Available says why this faultline cannot search for angelic fixes (it was
// built without cgo, or the Z3 library is missing), or returns nil.
func Available() error {
	if err := z3.Available(); err != nil {
		return fmt.Errorf("the angelic analysis needs Z3: %w", err)
	}
	return nil
}
