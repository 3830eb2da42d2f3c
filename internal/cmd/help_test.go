package cmd

import (
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the help goldens in usage/ from the binary's output")

// Every page of help is checked in as usage/NAME.hlp (usage.hlp for the
// list of commands), so that a change to it shows in review.
// `faultline help NAME` and `faultline NAME -h` print it on standard
// error and exit 0; -update rewrites the goldens.
func TestHelpGoldens(t *testing.T) {
	pages := map[string][][]string{"usage": {{"help"}, {"-h"}}}
	for _, c := range commands() {
		pages[c.Name()] = [][]string{{"help", c.Name()}, {c.Name(), "-h"}}
	}
	for name, invocations := range pages {
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("usage", name+".hlp")
			for _, args := range invocations {
				stdout, stderr, code := runBinary(t, faultlineBin, t.TempDir(), nil, args...)
				if code != 0 || stdout != "" {
					t.Errorf("faultline %s: exit %d, standard output %q; want exit 0 and nothing", strings.Join(args, " "), code, stdout)
				}
				if *update {
					if err := os.WriteFile(golden, []byte(stderr), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test -run TestHelpGoldens -update writes it)", err)
				}
				if stderr != string(want) {
					t.Errorf("faultline %s differs from %s (go test -run TestHelpGoldens -update rewrites it):\n%s\nwant:\n%s", strings.Join(args, " "), golden, stderr, want)
				}
			}
		})
	}
	// No golden is left over from a command that is gone.
	files, err := filepath.Glob(filepath.Join("usage", "*.hlp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := pages[strings.TrimSuffix(filepath.Base(f), ".hlp")]; !ok {
			t.Errorf("%s is the help of no command", f)
		}
	}
}

// The command list in cmd/faultline's package documentation names the
// registry's commands, in its order, each with its arguments.
func TestDocListsCommands(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../cmd/faultline/main.go", nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(line, "\tfaultline ") {
			listed = append(listed, line)
		}
	}
	cmds := commands()
	if len(listed) != len(cmds) {
		t.Errorf("the documentation lists %d commands, the registry holds %d:\n%s", len(listed), len(cmds), strings.Join(listed, "\n"))
	}
	for i, c := range cmds {
		synopsis := "faultline " + c.Name()
		if c.Usage() != "" {
			synopsis += " " + c.Usage()
		}
		if i >= len(listed) || !strings.HasPrefix(listed[i], "\t"+synopsis+"  ") {
			t.Errorf("command %d of the documentation's list should be %q followed by its description", i+1, synopsis)
		}
	}
}
