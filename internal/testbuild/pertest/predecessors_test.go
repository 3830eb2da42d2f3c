package pertest

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// The tests go test runs before the last failing one, in the binary's
// order, run again with it when they cost little; not when they cost more
// than the bound and the failing tests.
func TestPredecessorsInTheBinarysOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/order\n\ngo 1.22\n",
		"b_test.go": `package order

import "testing"

func TestSets(t *testing.T)   {}
func TestNeeds(t *testing.T)  {}
func TestAfter(t *testing.T)  {}
`,
		"a_test.go": `package order

import "testing"

func TestFirstFile(t *testing.T) {}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "order.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	m, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b := &testbuild.Binary{Path: bin, Package: &testbuild.Package{ImportPath: "example.com/order", Dir: dir}}
	failing := map[string]bool{"TestNeeds": true}
	leaves := []Leaf{
		{Name: "TestFirstFile", Elapsed: time.Second},
		{Name: "TestSets", Elapsed: 500 * time.Millisecond},
		{Name: "TestNeeds", Verdict: testbuild.Fail, Elapsed: time.Millisecond},
		{Name: "TestAfter", Elapsed: time.Hour},
	}
	before, why := predecessors(context.Background(), m, b, failing, leaves)
	if want := map[string]bool{"TestFirstFile": true, "TestSets": true}; !maps.Equal(before, want) {
		t.Errorf("predecessors %v (%s), want %v: the tests before TestNeeds in file order", before, why, want)
	}
	leaves[0].Elapsed = 2 * predecessorsTime
	if before, why := predecessors(context.Background(), m, b, failing, leaves); before != nil {
		t.Errorf("predecessors %v (%s) costing %s: want none", before, why, leaves[0].Elapsed)
	}
	leaves[2].Elapsed = 4 * predecessorsTime // the failing test costs more still
	if before, why := predecessors(context.Background(), m, b, failing, leaves); len(before) != 2 {
		t.Errorf("predecessors %v (%s): want both when the failing test costs more", before, why)
	}
}
