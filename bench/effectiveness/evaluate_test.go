package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/bench/internal/mutation"
)

// fakeFaultline writes a script that stands in for the faultline binary:
// it records its arguments and working directory and prints report.
func fakeFaultline(t *testing.T, report string) (bin, logPath string) {
	t.Helper()
	dir := t.TempDir()
	logPath = filepath.Join(dir, "calls.log")
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$(pwd) $*\" >> " + logPath + "\ncat " + filepath.Join(dir, "report.json") + "\n"
	bin = filepath.Join(dir, "faultline")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, logPath
}

// statsReport ranks every line of testdata/stats/stats.go with one failing
// and one passing test, line 7 alone on top.
const statsReport = `{"formula":"ochiai","failed":1,"passed":1,"lines":[
 {"file":"stats.go","line":7,"score":1,"rank":1,"tie":[1,1],"ef":1,"ep":0,"nf":0,"np":1},
 {"file":"stats.go","line":6,"score":0.7,"rank":2,"tie":[2,5],"ef":1,"ep":1,"nf":0,"np":0},
 {"file":"stats.go","line":9,"score":0.7,"rank":3,"tie":[2,5],"ef":1,"ep":1,"nf":0,"np":0},
 {"file":"stats.go","line":12,"score":0.7,"rank":4,"tie":[2,5],"ef":1,"ep":1,"nf":0,"np":0},
 {"file":"stats.go","line":17,"score":0.7,"rank":5,"tie":[2,5],"ef":1,"ep":1,"nf":0,"np":0},
 {"file":"stats.go","line":18,"score":0,"rank":6,"tie":[6,8],"ef":0,"ep":1,"nf":1,"np":0},
 {"file":"stats.go","line":19,"score":0,"rank":7,"tie":[6,8],"ef":0,"ep":1,"nf":1,"np":0},
 {"file":"stats.go","line":21,"score":0,"rank":8,"tie":[6,8],"ef":0,"ep":1,"nf":1,"np":0}]}`

func testConfig(t *testing.T, bin string) *Config {
	return &Config{
		MutantsPerModule: 2,
		MaxAttempts:      6,
		Seed:             1,
		HeldOut:          0.5,
		Faultline:        Faultline{Binary: bin, TestTimeout: "30s", Deadline: time.Minute},
		TestTimeout:      time.Minute,
		Work:             t.TempDir(),
		Formulas:         formulas(t, "ochiai", "op2"),
	}
}

func TestEvaluateMutatesALocalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on mutants")
	}
	bin, logPath := fakeFaultline(t, statsReport)
	cfg := testConfig(t, bin)
	cfg.Subjects = []mutation.SubjectSpec{{Dir: "testdata/stats"}}
	res, err := Evaluate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Subjects[0]
	if st.Err != "" || st.Module != "example.com/stats" || st.Tests != 2 || st.Files != 1 || st.Sites == 0 {
		t.Fatalf("subject stats %+v", st)
	}
	if st.Kept != 2 || len(res.Faults) != 2 || st.Tried > 6 || st.Kept+st.NoBuild+st.AllPass+st.AllFail+st.TimedOut != st.Tried {
		t.Fatalf("selection %+v with %d faults", st, len(res.Faults))
	}
	for _, f := range res.Faults {
		if f.Site == nil || f.Failed != 1 || f.Passed != 1 || f.Scored == nil || f.Err != "" {
			t.Errorf("fault %+v", f)
			continue
		}
		if f.Fault.File != "stats.go" || f.Fault.Lines[0] != f.Site.Line {
			t.Errorf("fault location %+v for site %s", f.Fault, f.Site.ID())
		}
	}
	calls, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(calls), "rank -json -timeout 30s example.com/stats"); n != 2 {
		t.Errorf("faultline calls:\n%s", calls)
	}
	// The working copy is restored after each mutant.
	orig, _ := os.ReadFile("testdata/stats/stats.go")
	copied, err := os.ReadFile(filepath.Join(cfg.Work, "testdata_stats", "stats.go"))
	if err != nil || string(orig) != string(copied) {
		t.Errorf("working copy not restored (%v)", err)
	}

	// Same seed, same mutants.
	cfg2 := testConfig(t, bin)
	cfg2.Subjects = cfg.Subjects
	cfg2.SelectOnly = true
	again, err := Evaluate(context.Background(), cfg2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Faults {
		if again.Faults[i].Site.ID() != res.Faults[i].Site.ID() || again.Faults[i].HeldOut != res.Faults[i].HeldOut {
			t.Errorf("rerun chose %s, first run %s", again.Faults[i].Site.ID(), res.Faults[i].Site.ID())
		}
	}
}

func TestEvaluateScoresAKnownFault(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/stats/stats.go")
	if err != nil {
		t.Fatal(err)
	}
	buggy := strings.Replace(string(src), "if x > hi {", "if x >= hi+1 {", 1) // still correct
	buggy = strings.Replace(buggy, "return lo\n", "return lo + 1\n", 1)       // line 7: the fault
	for name, data := range map[string]string{
		"go.mod":        "module example.com/stats\n\ngo 1.22\n",
		"stats.go":      buggy,
		"stats_test.go": mustRead(t, "testdata/stats/stats_test.go"),
		"fault.json":    `{"file": "stats.go", "line": 7, "description": "clamps below to lo+1"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, _ := fakeFaultline(t, statsReport)
	cfg := testConfig(t, bin)
	cfg.Subjects = []mutation.SubjectSpec{{Dir: dir}}
	res, err := Evaluate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Faults) != 1 {
		t.Fatalf("faults %+v, subjects %+v", res.Faults, res.Subjects)
	}
	f := res.Faults[0]
	if f.Site != nil || f.Description != "clamps below to lo+1" || f.Failed != 1 || f.Passed != 1 || f.Scored == nil {
		t.Fatalf("known fault %+v", f)
	}
	if fs := f.Scored.ByFormula["ochiai"]; fs.Pos != [3]float64{1, 1, 1} {
		t.Errorf("ochiai position %v, want 1", fs.Pos)
	}
	var b strings.Builder
	if err := WriteReport(&b, ReportMeta{Command: "go run ./bench/effectiveness -dirs x", Formulas: []string{"ochiai", "op2"}}, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Known faults (fault.json)", "| ochiai | 1.0 | 1/1 | 1/1 | 1/1 | 1/1 | 0.1250 | 0.1250 | 0.1250 | 0 |", "| known | example.com/stats | stats.go:7 | clamps below to lo+1 | 1/1 | 1/1 | 8 | 1–1 | true |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestParseSubjectSpec(t *testing.T) {
	s, err := mutation.ParseSubjectSpec("github.com/a/b@v1.2.3=./x,./y/...")
	if err != nil || s.Module != "github.com/a/b" || s.Version != "v1.2.3" || strings.Join(s.Pkgs, " ") != "./x ./y/..." {
		t.Errorf("got %+v, %v", s, err)
	}
	if s, err := mutation.ParseSubjectSpec("golang.org/x/text@v0.20.0"); err != nil || s.Pkgs != nil || s.String() != "golang.org/x/text@v0.20.0" {
		t.Errorf("got %+v, %v", s, err)
	}
	for _, bad := range []string{"", "github.com/a/b", "@v1", "github.com/a/b@", "github.com/a/b@v1=", "git hub@v1"} {
		if _, err := mutation.ParseSubjectSpec(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestEvaluateStopsWhenInterrupted(t *testing.T) {
	cfg := testConfig(t, "faultline")
	cfg.Subjects = []mutation.SubjectSpec{{Dir: "testdata/stats"}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Evaluate(ctx, cfg)
	if err == nil || len(res.Subjects) != 0 || len(res.Faults) != 0 {
		t.Fatalf("interrupted run: %+v, %v", res, err)
	}
}
