//go:build !cgo

// Without cgo there is no Z3 and so no angelic provider; see angelic_cgo.go.

package main

import (
	"time"

	"faultline/analysis"
	"faultline/server"
)

func newAngelicProvider(time.Duration, int) (server.Provider, error) {
	return nil, analysis.Available()
}
