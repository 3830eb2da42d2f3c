package fakeeditor

import (
	"os/exec"
	"strings"
	"testing"
)

// The editor is a client of the server: only tests and the benchmarks may
// import it, never the command or anything it is built from.
func TestOnlyTestsAndBenchImportTheEditor(t *testing.T) {
	const self = "github.com/faultline-go/faultline/internal/fakeeditor"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "github.com/faultline-go/faultline/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "github.com/faultline-go/faultline/bench/") {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == self {
				t.Errorf("%s imports the fake editor outside its tests", fields[0])
			}
		}
	}
}
