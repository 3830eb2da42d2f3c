package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/export/gzoltar"
	"github.com/faultline-go/faultline/internal/export/sarif"
	"github.com/faultline-go/faultline/internal/localize"
)

// rankFormat is one output format of faultline rank.
type rankFormat struct {
	// toDir: -o names a directory that receives several files.
	toDir bool
	// export: the output stands for the whole module, so it is not written
	// when a package does not build.
	export bool
	// defaultTop is how many lines are written when -top is not given
	// (0: every executed line).
	defaultTop int
	// defaultFunctions is how many functions are written when -functions
	// is not given (0: every function of the ranking; the formats that
	// name no function ignore it).
	defaultFunctions int
	// files returns the file contents by name; a format written to
	// standard output has one file, named "".
	files func(out rankResult) map[string]func(io.Writer) error
}

// rankResult is what faultline rank found, and how much of it to write.
type rankResult struct {
	loc          *localize.Localization
	top          int
	topFunctions int // how many functions to write (0: every one)
}

// lines returns the lines to write: down to top, none without a failure.
func (r rankResult) lines() []localize.RankedLine {
	if r.loc.Ranking.Failed == 0 {
		return nil
	}
	lines := r.loc.Ranking.Lines
	if r.top > 0 && len(lines) > r.top {
		lines = lines[:r.top]
	}
	return lines
}

// functions returns the functions to write, ranked over every ranked line
// (not only those written), each with its own spectrum: down to
// r.topFunctions, none without a failure.
func (r rankResult) functions() ([]localize.RankedFunction, error) {
	if r.loc.Ranking.Failed == 0 {
		return nil, nil
	}
	fns, err := r.loc.Functions(localize.FunctionsIn(r.loc.Sources()))
	if err != nil {
		return nil, fmt.Errorf("ranking functions: %w", err)
	}
	if r.topFunctions > 0 && len(fns) > r.topFunctions {
		fns = fns[:r.topFunctions]
	}
	return fns, nil
}

func one(write func(io.Writer) error) map[string]func(io.Writer) error {
	return map[string]func(io.Writer) error{"": write}
}

// rankFormats is the registry of faultline rank's output formats.
func rankFormats() map[string]rankFormat {
	return map[string]rankFormat{
		"text": {defaultTop: 20, defaultFunctions: 5, files: func(r rankResult) map[string]func(io.Writer) error {
			return one(func(w io.Writer) error {
				fns, err := r.functions()
				if err != nil {
					return err
				}
				return writeRankingText(w, r.loc, r.lines(), fns)
			})
		}},
		"json": {files: func(r rankResult) map[string]func(io.Writer) error {
			return one(func(w io.Writer) error {
				fns, err := r.functions()
				if err != nil {
					return err
				}
				return writeRankingJSON(w, r.loc, r.lines(), fns)
			})
		}},
		"sarif": {export: true, defaultTop: 20, files: func(r rankResult) map[string]func(io.Writer) error {
			return one(func(w io.Writer) error { return sarif.Write(w, r.loc, sarif.Options{Top: r.top}) })
		}},
		"gzoltar": {export: true, toDir: true, files: func(r rankResult) map[string]func(io.Writer) error {
			return gzoltar.Files(r.loc)
		}},
	}
}

func formatNames() string {
	var names []string
	for name := range rankFormats() {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// rankDestination is where and how faultline rank writes its result.
type rankDestination struct {
	name      string
	format    rankFormat
	path      string // -o; "" is standard output
	top       int
	functions int
}

// newRankDestination checks the output flags before any test runs, so that a
// typo or an unwritable path fails at once.
func newRankDestination(format string, asJSON bool, path string, top, functions int) (*rankDestination, error) {
	if asJSON {
		if format != "" && format != "json" {
			return nil, fmt.Errorf("-json and -format %s disagree", format)
		}
		format = "json"
	}
	if format == "" {
		format = "text"
	}
	f, ok := rankFormats()[format]
	if !ok {
		return nil, fmt.Errorf("unknown -format %q (formats: %s)", format, formatNames())
	}
	if top < 0 {
		return nil, fmt.Errorf("-top must not be negative, got %d", top)
	}
	if top == 0 {
		top = f.defaultTop
	}
	if functions < 0 {
		return nil, fmt.Errorf("-functions must not be negative, got %d", functions)
	}
	if functions == 0 {
		functions = f.defaultFunctions
	}
	if f.toDir && path == "" {
		return nil, fmt.Errorf("-format %s writes several files: name their directory with -o", format)
	}
	switch {
	case path == "":
	case f.toDir:
		if err := export.CheckWritable(path, true); err != nil {
			return nil, err
		}
	default:
		if err := checkOutputFile(path); err != nil {
			return nil, err
		}
	}
	return &rankDestination{name: format, format: f, path: path, top: top, functions: functions}, nil
}

// write writes the result completely or not at all. An export is not
// written when a package does not build (the caller reports the build).
func (o *rankDestination) write(r rankResult) error {
	if o.format.export && len(r.loc.Matrix.BuildErrors) > 0 {
		fmt.Fprintf(os.Stderr, "faultline: no %s written: packages do not build\n", o.name)
		return nil
	}
	r.top, r.topFunctions = o.top, o.functions
	files := o.format.files(r)
	switch {
	case o.format.toDir:
		return export.WriteFiles(o.path, files)
	case o.path != "":
		return export.WriteFile(o.path, files[""])
	}
	var buf bytes.Buffer
	if err := files[""](&buf); err != nil {
		return err
	}
	_, err := os.Stdout.Write(buf.Bytes())
	return err
}

// checkOutputFile reports whether a file can be written at path.
func checkOutputFile(path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("cannot write to %s: it is a directory", path)
	}
	return export.CheckWritable(filepath.Dir(path), false)
}
