//go:build cgo

package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// A module declaring a language version without generics is analysed all
// the same.
func TestAnalyzeOldLanguageVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extractFrom(t, filepath.Join("..", "bench", "analysis", "programs", "distance.txtar"))
	mod := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mod, []byte(strings.Replace(string(data), "go 1.22", "go 1.16", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Analyze(context.Background(), open(t, dir), []testbuild.Target{{Package: "example.com/distance", Test: "TestManhattan/backward_x"}},
		Options{MaxSize: 1, Budget: 10 * time.Second}.WithWallCap(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res[0].Candidates {
		if c.Verified && c.Locations[0].File == "dist.go" && c.Locations[0].Line == 6 {
			return
		}
	}
	t.Errorf("no verified candidate on dist.go:6: %+v %v", res[0].Candidates, res[0].Notes)
}
