package instrument

import (
	"embed"
	"io/fs"

	"github.com/faultline-go/faultline/internal/testbuild"
)

//go:embed faultlineagx/rt.go faultlineagx/replace.go faultlineagx/guards.go faultlineagx/list.go faultlineagx/maps.go faultlineagx/sortedrange.go
var runtimeFS embed.FS

// Environment variables the runtime reads (see package faultlineagx).
const (
	TraceEnv     = "FAULTLINE_AGX_TRACE"
	forceEnv     = "FAULTLINE_AGX_FORCE"
	maxEventsEnv = "FAULTLINE_AGX_MAX_EVENTS"
)

// exitCannotRecord is the runtime's exit status when its own I/O failed,
// its message on standard error starting cannotRecordPrefix
// (faultlineagx.ExitCannotRecord).
const (
	exitCannotRecord   = 3
	cannotRecordPrefix = "faultline: cannot "
)

// genericsVersion is the language version the instrumentation needs: the
// runtime's recording functions are generic so that a wrapped expression
// keeps its type.
const genericsVersion = "go1.18"

// recorderRuntime is the value recorder and forcer compiled into the
// analysis's test binaries.
func recorderRuntime() testbuild.Runtime {
	files, err := fs.Sub(runtimeFS, "faultlineagx")
	if err != nil {
		panic(err) // the embedded directory is part of this package
	}
	return testbuild.Runtime{Name: "faultlineagx", Files: files, Lang: genericsVersion}
}
