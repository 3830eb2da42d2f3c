//go:build !unix

package testbuild

import (
	"fmt"
	"os"
)

// QuietPipe is the read end of a pipe from a test process; elsewhere than
// on Unix it is a plain pipe.
type QuietPipe struct{ *os.File }

// NewQuietPipe returns a pipe's read end and its write end, the latter for
// a child process (the caller closes its copy once the child has started).
func NewQuietPipe() (*QuietPipe, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("creating a pipe: %w", err)
	}
	return &QuietPipe{r}, w, nil
}

// Wake does nothing: reads of a plain pipe do not sleep.
func (p *QuietPipe) Wake() {}
