package server

import (
	"context"
	"os"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
)

// TestMain lets the test binary serve as the analysis worker the real
// localization service starts (os.Executable is this binary in tests).
func TestMain(m *testing.M) {
	if localize.IsWorker(nil) {
		if err := localize.RunWorker(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
