package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/report"
)

// runReport writes the HTML report of the module's localization:
// `faultline report [-o FILE] [packages]`.
func runReport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var cf collectFlags
	cf.register(fs)
	var af angelicFlags
	af.register(fs)
	formulaName := fs.String("formula", "ochiai", "suspiciousness formula: "+localize.FormulaHelp())
	outPath := fs.String("o", "faultline-report.html", "the HTML file to write")
	files := fs.Int("files", 5, "how many of the most suspicious files to show in full")
	lines := fs.Int("lines", 20, "how many ranked lines the table lists")
	functions := fs.Int("functions", 10, "how many ranked functions the function table lists")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: faultline report [flags] [packages]\n\nCollects spectra and ranks lines as faultline rank does, then writes one\nself-contained HTML page: an overview of the module coloured by\nsuspiciousness, the most suspicious files' source, the failing tests with\ntheir verified angelic values, and the test suite's diagnosability.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *files < 1 || *lines < 1 || *functions < 1 {
		return usagef("-files, -lines and -functions must be positive")
	}
	if err := checkOutputFile(*outPath); err != nil {
		return usageError{err}
	}
	technique, err := localize.ParseTechnique(*formulaName)
	if err != nil {
		return usageError{err}
	}
	if technique.Formula == nil {
		return usagef("-formula %s: faultline report ranks by a formula of the four counts; faultline rank takes %s", *formulaName, technique.Name)
	}
	res, err := localizeModule(ctx, &cf, &af, lineOrder{technique: technique}, fs.Args())
	if err != nil {
		return err
	}
	if err := buildFailure(os.Stderr, res.loc.Matrix); err != nil {
		fmt.Fprintf(os.Stderr, "faultline: no report written: packages do not build\n")
		return err
	}
	opts := report.Options{Files: *files, Lines: *lines, Functions: *functions, Generated: time.Now()}
	err = export.WriteFile(*outPath, func(w io.Writer) error { return report.Write(w, res.loc, opts) })
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "faultline: wrote %s (%d failing and %d passing tests)\n", *outPath, res.loc.Ranking.Failed, res.loc.Ranking.Passed)
	return nil
}
