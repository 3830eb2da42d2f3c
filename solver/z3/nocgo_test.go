//go:build !cgo

package z3

import (
	"errors"
	"strings"
	"testing"
)

func TestAvailableWithoutCgo(t *testing.T) {
	err := Available()
	if err == nil || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Available() = %v, want an ErrUnavailable", err)
	}
	for _, want := range []string{"built without cgo (CGO_ENABLED=0)", "CGO_ENABLED=1 go install", `"sudo apt-get install libz3-4"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Available() = %q, does not say %q", err, want)
		}
	}
}

func TestInterruptWithoutCgo(t *testing.T) {
	var ctx *Context
	ctx.Interrupt() // no context can exist: nothing to stop, and no crash
	new(Context).Interrupt()
}
