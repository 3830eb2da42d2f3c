package instrument

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// Loading a program for a caller whose context is done stops instead of
// type-checking and instrumenting on: an explanation past its recording
// deadline must leave nothing working in the background.
func TestLoadProgramStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":    "module example.com/cancel\n\ngo 1.22\n",
		"a.go":      "package cancel\n\nfunc Add(a, b int) int { return a + b }\n",
		"a_test.go": "package cancel\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fail()\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	prog, err := LoadProgramContext(ctx, mod, "example.com/cancel", []string{"example.com/cancel"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("loading with a cancelled context: program %v, error %v; want context.Canceled", prog != nil, err)
	}
	if prog, err := LoadProgramContext(context.Background(), mod, "example.com/cancel", []string{"example.com/cancel"}); err != nil || prog == nil {
		t.Errorf("loading: %v", err)
	}
}
