// Command faultline localizes the faults behind failing Go tests. It runs
// the tests of a module with per-test coverage, ranks the lines most likely
// to cause the failures, and serves the results to editors as a language
// server.
//
//	faultline rank [flags] [packages]        collect spectra and print the ranked suspicious lines
//	faultline test [flags] [packages]        run tests like go test, recording spectra
//	faultline fix [flags] [packages]         print verified angelic fix candidates per failing test
//	faultline explain [flags] [packages]     print the changes since a passing commit that make each failing test fail
//	faultline report [flags] [packages]      write an HTML report of the localization
//	faultline suggest [flags] [packages]     suggest fuzz inputs that sharpen the ranking
//	faultline serve [flags]                  run the language server on stdin/stdout
//	faultline trust [-list | -revoke] [DIR]  manage the modules whose tests the server runs without asking
//	faultline cache [-clean [-older DURATION]]  show faultline's cache (size by kind, bound) or clean it
//	faultline version                        print faultline's version and the Go version it was built with
//	faultline help [command]                 print the usage of faultline or of a command
//
// Exit codes follow go test: 0 on success, 1 when tests fail, packages do
// not build or a pattern matches no package, 2 for a usage error.
package main

import (
	"os"

	"github.com/faultline-go/faultline/internal/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args[1:]))
}
