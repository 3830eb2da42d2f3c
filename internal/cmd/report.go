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

// reportCommand writes the HTML report of the module's localization:
// `faultline report [-o FILE] [packages]`.
type reportCommand struct {
	cf          collectFlags
	af          angelicFlags
	formulaName string
	outPath     string
	files       int
	lines       int
	functions   int
}

func (*reportCommand) Name() string  { return "report" }
func (*reportCommand) Usage() string { return "[flags] [packages]" }
func (*reportCommand) ShortHelp() string {
	return "write an HTML report of the suspicious lines and the test suite"
}

func (c *reportCommand) SetFlags(fs *flag.FlagSet) {
	c.cf.register(fs)
	c.af.register(fs)
	fs.StringVar(&c.formulaName, "formula", "ochiai", "suspiciousness formula: "+localize.FormulaHelp())
	fs.StringVar(&c.outPath, "o", "faultline-report.html", "the HTML file to write")
	fs.IntVar(&c.files, "files", 5, "how many of the most suspicious files to show in full")
	fs.IntVar(&c.lines, "lines", 20, "how many ranked lines the table lists")
	fs.IntVar(&c.functions, "functions", 10, "how many ranked functions the function table lists")
}

func (c *reportCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, `Collects spectra and ranks lines as faultline rank does, then writes one
self-contained HTML page: an overview of the module coloured by
suspiciousness, the most suspicious files' source, the failing tests with
their verified angelic values, and the test suite's diagnosability.`)
}

func (c *reportCommand) Run(ctx context.Context, args ...string) error {
	if c.files < 1 || c.lines < 1 || c.functions < 1 {
		return usagef("-files, -lines and -functions must be positive")
	}
	if err := checkOutputFile(c.outPath); err != nil {
		return usageError{err}
	}
	technique, err := localize.ParseTechnique(c.formulaName)
	if err != nil {
		return usageError{err}
	}
	if technique.Formula == nil {
		return usagef("-formula %s: faultline report ranks by a formula of the four counts; faultline rank takes %s", c.formulaName, technique.Name)
	}
	res, err := localizeModule(ctx, &c.cf, &c.af, lineOrder{technique: technique}, args)
	if err != nil {
		return err
	}
	if err := buildFailure(os.Stderr, res.loc.Matrix); err != nil {
		fmt.Fprintf(os.Stderr, "faultline: no report written: packages do not build\n")
		return err
	}
	opts := report.Options{Files: c.files, Lines: c.lines, Functions: c.functions, Generated: time.Now()}
	err = export.WriteFile(c.outPath, func(w io.Writer) error { return report.Write(w, res.loc, opts) })
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "faultline: wrote %s (%d failing and %d passing tests)\n", c.outPath, res.loc.Ranking.Failed, res.loc.Ranking.Passed)
	return nil
}
