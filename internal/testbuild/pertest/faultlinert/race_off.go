//go:build !race

package faultlinert

// raceBuild says the binary is built with the race detector (race_on.go).
const raceBuild = false
