//go:build !cgo

package formula

import "context"

// search cannot run without cgo: the formula needs the Z3 binding.
func search(ctx context.Context, prog *program, bin *testBinary, t Target, opts Options, res *TestResult) error {
	return Available()
}
