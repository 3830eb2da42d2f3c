//go:build cgo

package formula

import (
	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/solver/z3"
)

// errorCodes bounds an error's code to those that mean something: nil,
// another error, or one of the program's sentinels. A larger code would
// be one more name for "another error", and each would be tried in turn
// as an angelic value.
func (e *encoder) errorCodes(v z3.Expr) z3.Bool {
	max := int64(1)
	if e.prog.Sentinels != nil {
		max += int64(len(e.prog.Sentinels.Codes))
	}
	return v.AsBV().ULE(e.z.BVInt(max, instrument.ErrorBits))
}
