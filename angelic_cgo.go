//go:build cgo

// The language server's angelic provider calls Z3 through cgo: this file
// and angelic_nocgo.go are the serve command's seam between builds with and
// without cgo.

package main

import (
	"time"

	"faultline/analysis"
	"faultline/server"
	"faultline/server/angelic"
)

// newAngelicProvider is the language server's angelic analysis, or the
// reason it cannot run.
func newAngelicProvider(budget time.Duration, maxTests int) (server.Provider, error) {
	if err := analysis.Available(); err != nil {
		return nil, err
	}
	return angelic.New(analysis.Options{Budget: budget}, maxTests), nil
}
