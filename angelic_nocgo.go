//go:build !cgo

// Without cgo there is no Z3 and so no angelic analysis: rank orders by the
// formula, fix fails and serve runs without the angelic provider, each
// saying why (angelicUnavailable). See angelic_cgo.go.

package main

import (
	"context"
	"time"

	"faultline/server"
	"faultline/spectra"
)

// angelicLocation stands in for analysis.Location, which needs cgo: no fix
// is ever found without it.
type angelicLocation struct {
	File, Expr, Original, Angelic string
	Line, Col                     int
}

func (a *angelicFlags) analyze(context.Context, *spectra.Workspace, *spectra.Matrix, *spectra.Ranking) (*spectra.Ranking, *angelicSummary, error) {
	return nil, nil, angelicUnavailable()
}

func newAngelicProvider(time.Duration, int) (server.Provider, error) {
	return nil, angelicUnavailable()
}

// runFix is faultline fix, which is the angelic analysis.
func runFix(context.Context, []string) error {
	return angelicUnavailable()
}
