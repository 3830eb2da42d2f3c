package testbuild

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/noisytest"
)

// Whatever a test prints, with or without a final newline and wherever it
// runs in its package, its verdict is go test's: in a run of the whole
// package and in a run of the test alone.
func TestVerdictsAfterUnterminatedOutput(t *testing.T) {
	// Every third rotation: the collection's test runs them all.
	var pkgs []noisytest.Package
	for i, pkg := range noisytest.Rotations() {
		if i%3 == 0 {
			pkgs = append(pkgs, pkg)
		}
	}
	dir := t.TempDir()
	noisytest.WriteModule(t, dir, pkgs)
	want := noisytest.GoTestVerdicts(t, dir)
	m, err := Open(dir, Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, pkg := range pkgs {
		bin := build(t, m, o, noisytest.ModulePath+"/"+pkg.Dir)
		p, err := m.Start(ctx, RunConfig{Binary: bin.Path, Package: bin.Package.ImportPath, Dir: bin.Package.Dir,
			Args: []string{"-test.count=1", "-test.paniconexit0"}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Wait()
		if err != nil {
			t.Fatal(err)
		}
		for _, test := range pkg.Tests {
			if got := res.Verdict(test.Name); got != Verdict(want[test.Name]) {
				t.Errorf("%s (%d bytes, newline %v) in its package: verdict %s, go test's %q", test.Name, test.Size, test.Newline, got, want[test.Name])
			}
		}
		if i > 0 {
			continue
		}
		for _, test := range pkg.Tests {
			out, err := m.RunTest(ctx, bin, test.Name, time.Minute, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Verdict != Verdict(want[test.Name]) {
				t.Errorf("%s (%d bytes, newline %v) alone: verdict %s, go test's %q", test.Name, test.Size, test.Newline, out.Verdict, want[test.Name])
			}
		}
	}
}

// Every framing marker reaches test2json at the start of a line, however
// the output is split into writes; nothing else changes.
func TestLineStartsPutsMarkersOnLinesOfTheirOwn(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\x16=== RUN   TestA\nxxx\x16--- PASS: TestA\n", "\x16=== RUN   TestA\nxxx\n\x16--- PASS: TestA\n"},
		{"xxx\n\x16--- PASS: TestA\n", "xxx\n\x16--- PASS: TestA\n"},
		{"x\x16\x16y\x16", "x\n\x16\n\x16y\n\x16"},
		{"no marker\nat all", "no marker\nat all"},
	} {
		for split := 0; split <= len(c.in); split++ {
			var out strings.Builder
			l := &lineStarts{w: &out}
			for _, part := range []string{c.in[:split], c.in[split:]} {
				if n, err := l.Write([]byte(part)); n != len(part) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", part, n, err)
				}
			}
			if out.String() != c.want {
				t.Errorf("%q split at %d: %q, want %q", c.in, split, out.String(), c.want)
			}
		}
	}
}

// A test that started and has no end event is judged by its process's
// exit status; one that never started did not run.
func TestVerdictWithoutEndEvent(t *testing.T) {
	started := map[string]*TestEvents{"TestA": {Name: "TestA"}}
	for _, c := range []struct {
		res  Result
		test string
		want Verdict
	}{
		{Result{Tests: started, ExitCode: 0}, "TestA", Pass},
		{Result{Tests: started, ExitCode: 1}, "TestA", Panic},
		{Result{Tests: started, ExitCode: 2}, "TestA", Panic},
		{Result{Tests: started, ExitCode: -1, Killed: true}, "TestA", Timeout},
		{Result{Tests: started, ExitCode: 0}, "TestMissing", Panic},
	} {
		if got := c.res.Verdict(c.test); got != c.want {
			t.Errorf("%s, exit %d, killed %v: %s, want %s", c.test, c.res.ExitCode, c.res.Killed, got, c.want)
		}
	}
}
