package cmd

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
)

// rankJSON runs faultline rank -json with the given flags and decodes it.
func rankJSON(t *testing.T, dir, store string, args ...string) localize.Ranking {
	t.Helper()
	stdout, stderr, code := faultlineWithStore(t, dir, store, append([]string{"rank", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("rank -json: exit %d\n%s", code, stderr)
	}
	var r localize.Ranking
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// The SARIF log holds rank's lines in rank's order, with the angelic
// fixes, relative to the module (no repository around the copy).
func TestRankWritesSARIF(t *testing.T) {
	dir, store := copyModule(t, "../../examples/money"), t.TempDir()
	out := filepath.Join(t.TempDir(), "money.sarif")
	_, stderr, code := faultlineWithStore(t, dir, store, "rank", "-format", "sarif", "-o", out, "-top", "8")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
				Properties struct{ Rank int }
				Fixes      []json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	want := rankJSON(t, dir, store, "-top", "8")
	results := log.Runs[0].Results
	if len(results) != 8 || len(want.Lines) != 8 {
		t.Fatalf("%d results, %d ranked lines; want 8", len(results), len(want.Lines))
	}
	fixes := 0
	for i, r := range results {
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != want.Lines[i].File || loc.Region.StartLine != want.Lines[i].Line || r.Properties.Rank != want.Lines[i].Rank {
			t.Errorf("result %d at %s:%d rank %d, rank -json has %s:%d rank %d", i, loc.ArtifactLocation.URI, loc.Region.StartLine, r.Properties.Rank,
				want.Lines[i].File, want.Lines[i].Line, want.Lines[i].Rank)
		}
		fixes += len(r.Fixes)
	}
	if fixes == 0 {
		t.Error("no angelic fix in the log")
	}
}

// GZoltar's triple of the money example: read as the format says, it gives
// the Ochiai score rank prints for every line.
func TestRankWritesGZoltar(t *testing.T) {
	dir, store := copyModule(t, "../../examples/money"), t.TempDir()
	out := filepath.Join(t.TempDir(), "gzoltar")
	if _, stderr, code := faultlineWithStore(t, dir, store, "rank", "-angelic=false", "-format", "gzoltar", "-o", out); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := map[string]float64{}
	for _, l := range rankJSON(t, dir, store, "-angelic=false").Lines {
		want[l.File+":"+strconv.Itoa(l.Line)] = l.Score
	}
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows[1:]
	}
	tests, elements := read("tests.csv"), read("spectra.csv")
	data, err := os.ReadFile(filepath.Join(out, "matrix.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(rows) != len(tests) || len(elements) != len(want) {
		t.Fatalf("%d matrix rows, %d tests, %d elements, %d ranked lines", len(rows), len(tests), len(elements), len(want))
	}
	name := regexp.MustCompile(`^example\.com/money\$([^#]+)#[^:]+\(\):([0-9]+)$`)
	for j, e := range elements {
		m := name.FindStringSubmatch(e[0])
		if m == nil {
			t.Fatalf("element name %q", e[0])
		}
		var ef, ep, nf float64
		for _, row := range rows {
			fields := strings.Fields(row)
			failed := fields[len(fields)-1] == "-"
			switch {
			case fields[j] == "1" && failed:
				ef++
			case fields[j] == "1":
				ep++
			case failed:
				nf++
			}
		}
		score := 0.0
		if ef > 0 {
			score = ef / math.Sqrt((ef+nf)*(ef+ep))
		}
		if key := m[1] + ":" + m[2]; math.Abs(score-want[key]) > 1e-12 {
			t.Errorf("%s: Ochiai %v from the files, %v from rank", key, score, want[key])
		}
	}
}

// Bad output flags fail before any test runs, with a message and no file.
func TestRankOutputErrors(t *testing.T) {
	dir := copyModule(t, "../../examples/money")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-format", "xml"}, `unknown -format "xml"`},
		{[]string{"-format", "gzoltar"}, "name their directory with -o"},
		{[]string{"-format", "sarif", "-o", filepath.Join(file, "x.sarif")}, "cannot write to"},
		{[]string{"-format", "gzoltar", "-o", filepath.Join(file, "dir")}, "cannot write to"},
		{[]string{"-format", "sarif", "-o", t.TempDir()}, "is a directory"},
		{[]string{"-json", "-format", "sarif"}, "disagree"},
	} {
		_, stderr, code := faultline(t, dir, append([]string{"rank"}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("rank %q: exit %d, stderr %q; want an error with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// No failing test: an empty, valid log and status 0, so that an upload
// step in CI does not fail. A package that does not build: no log and
// status 1.
func TestRankSARIFWithoutFailuresAndWithBuildErrors(t *testing.T) {
	ok := writeModule(t, map[string]string{
		"go.mod":     "module example.com/ok\n\ngo 1.22\n",
		"ok.go":      "package ok\n\nfunc One() int { return 1 }\n",
		"ok_test.go": "package ok\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(\"not one\")\n\t}\n}\n",
	})
	stdout, stderr, code := faultline(t, ok, "rank", "-format", "sarif")
	var log struct {
		Version string
		Runs    []struct{ Results *[]any }
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &log) != nil || log.Version != "2.1.0" || log.Runs[0].Results == nil || len(*log.Runs[0].Results) != 0 {
		t.Errorf("exit %d, stderr %q, log %s; want an empty log and status 0", code, stderr, stdout)
	}

	broken := writeModule(t, map[string]string{
		"go.mod":         "module example.com/broken\n\ngo 1.22\n",
		"broken.go":      "package broken\n\nfunc One() int { return undefinedName }\n",
		"broken_test.go": "package broken\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) { One() }\n",
	})
	out := filepath.Join(t.TempDir(), "broken.sarif")
	for _, args := range [][]string{{"-format", "sarif", "-o", out}, {"-format", "gzoltar", "-o", out}} {
		_, stderr, code = faultline(t, broken, append([]string{"rank"}, args...)...)
		if code != 1 || !strings.Contains(stderr, "undefined: undefinedName") {
			t.Errorf("rank %q on a broken package: exit %d, stderr %q", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("rank %q wrote %s for a module that does not build", args, out)
		}
	}
}

// faultline report writes one page for the example, naming the fault; a
// module that does not build gets no page and status 1.
func TestReportCommand(t *testing.T) {
	dir := copyModule(t, "../../examples/money")
	out := filepath.Join(t.TempDir(), "report.html")
	_, stderr, code := faultline(t, dir, "report", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"faultline: example.com/money", ">money.go:152</a>", "TestAllocate/halves", "Diagnosability of the test suite"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}

	broken := writeModule(t, map[string]string{
		"go.mod":         "module example.com/broken\n\ngo 1.22\n",
		"broken.go":      "package broken\n\nfunc One() int { return undefinedName }\n",
		"broken_test.go": "package broken\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) { One() }\n",
	})
	out = filepath.Join(t.TempDir(), "broken.html")
	if _, stderr, code := faultline(t, broken, "report", "-o", out); code != 1 || !strings.Contains(stderr, "undefined: undefinedName") {
		t.Errorf("broken module: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report for a module that does not build")
	}
	if _, stderr, code := faultline(t, dir, "report", "-o", filepath.Join(t.TempDir(), "missing", "r.html")); code == 0 || !strings.Contains(stderr, "cannot write to") {
		t.Errorf("unwritable -o: exit %d, stderr %q", code, stderr)
	}
}
