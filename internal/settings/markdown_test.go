package settings

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSettingsDocIsCurrent fails when doc/settings.md is not what the
// registry generates.
func TestSettingsDocIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "doc", "settings.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run: go generate ./internal/settings", err)
	}
	if !bytes.Equal(got, Markdown()) {
		t.Fatalf("doc/settings.md is stale; run: go generate ./internal/settings")
	}
}
