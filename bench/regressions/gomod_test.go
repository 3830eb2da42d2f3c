package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A v2 module's go.mod put under the path its pre-modules code imports
// itself by must still be one the go command reads: its retractions of v2
// versions are errors under a v0/v1 path.
func TestWithModulePathKeepsTheGoModReadable(t *testing.T) {
	fixMod := "module github.com/vektah/gqlparser/v2\n\ngo 1.22\n\nretract (\n\tv2.5.14\n\tv2.5.13\n)\n"
	got, err := withModulePath([]byte(fixMod), "github.com/vektah/gqlparser")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), got, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m on\n%s: %v\n%s", got, err, out)
	}
	if strings.TrimSpace(string(out)) != "github.com/vektah/gqlparser" {
		t.Errorf("module path %q, want github.com/vektah/gqlparser", out)
	}
}

func TestWithModulePathLeavesTheSamePathAlone(t *testing.T) {
	gomod := "module example.com/m\n\nretract v1.0.1\n"
	got, err := withModulePath([]byte(gomod), "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != gomod {
		t.Errorf("got\n%s\nwant it unchanged", got)
	}
}
