package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustCommand trusts, lists and revokes a module through the binary,
// with the user's configuration directory moved to a temporary one.
func TestTrustCommand(t *testing.T) {
	config := t.TempDir()
	run := func(dir string, args ...string) (string, string, int) {
		t.Helper()
		return runBinary(t, faultlineBin, dir, []string{"XDG_CONFIG_HOME=" + config, "HOME=" + config}, append([]string{"trust"}, args...)...)
	}
	mod := writeModule(t, map[string]string{"go.mod": "module example.com/m\n", "sub/x.go": "package sub\n"})
	mod, _ = filepath.EvalSymlinks(mod)

	if out, _, code := run(filepath.Join(mod, "sub")); code != 0 || !strings.Contains(out, "trusted "+mod+":") {
		t.Fatalf("trust from a package directory: %q, exit %d", out, code)
	}
	if out, _, code := run(t.TempDir(), "-list"); code != 0 || out != mod+"\n" {
		t.Fatalf("trust -list: %q, exit %d", out, code)
	}
	if _, errOut, code := run(t.TempDir()); code != 1 || !strings.Contains(errOut, "no go.mod") {
		t.Errorf("trust outside a module: %q, exit %d", errOut, code)
	}
	if out, _, code := run(t.TempDir(), "-revoke", mod); code != 0 || !strings.Contains(out, "revoked "+mod) {
		t.Fatalf("trust -revoke: %q, exit %d", out, code)
	}
	if _, errOut, code := run(t.TempDir(), "-revoke", mod); code != 1 || !strings.Contains(errOut, "not in the trust list") {
		t.Errorf("revoking twice: %q, exit %d", errOut, code)
	}
	if out, errOut, code := run(t.TempDir(), "-list"); code != 0 || out != "" || !strings.Contains(errOut, "no trusted modules") {
		t.Errorf("trust -list after revoking: %q %q, exit %d", out, errOut, code)
	}

	list := filepath.Join(config, "faultline", "trusted.json")
	if err := os.WriteFile(list, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-list"}, {mod}} {
		if _, errOut, code := run(mod, args...); code != 1 || !strings.Contains(errOut, list+": not a valid trust list") {
			t.Errorf("trust %v over a corrupt list: %q, exit %d", args, errOut, code)
		}
	}
	if got, _ := os.ReadFile(list); string(got) != "garbage" {
		t.Errorf("the corrupt list was rewritten: %q", got)
	}
}
