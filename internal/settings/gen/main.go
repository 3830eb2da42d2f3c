// Command gen writes doc/settings.md from the settings registry:
//
//	go generate ./internal/settings
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/faultline-go/faultline/internal/settings"
)

func main() {
	out := flag.String("o", "doc/settings.md", "the file to write")
	flag.Parse()
	if err := os.WriteFile(*out, settings.Markdown(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
