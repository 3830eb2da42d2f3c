package testbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoBuildIDAgreesWithGoTool checks the build ID read from an
// executable's head against the go command's, and that a file without
// one (or with a torn one) has none, so that its hash is used instead.
func TestGoBuildIDAgreesWithGoTool(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", self).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	want := strings.TrimSpace(string(out))
	if got := goBuildID(self); got != want {
		t.Errorf("goBuildID = %q, go tool buildid says %q", got, want)
	}
	dir := t.TempDir()
	for name, content := range map[string]string{
		"none":  "just some bytes",
		"torn":  buildIDPrefix + "abc/def",
		"empty": buildIDPrefix + "\"\n \xff",
		"alien": buildIDPrefix + "a b/c\"\n \xff",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := goBuildID(path); got != "" {
			t.Errorf("%s: goBuildID = %q, want none", name, got)
		}
	}
}
