package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditorsUseTheServersMethodNames checks that the VS Code extension and
// the Neovim plugin name faultline's own LSP methods as the server does: a
// renamed method breaks only the editors, which the server's own tests do
// not run.
func TestEditorsUseTheServersMethodNames(t *testing.T) {
	clients := []string{
		filepath.Join("..", "editors", "vscode", "src", "extension.ts"),
		filepath.Join("..", "editors", "nvim", "lua", "faultline", "init.lua"),
	}
	for _, file := range clients {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, method := range []string{methodRanking, methodStatus, methodRankingChanged} {
			quoted := []string{`'` + method + `'`, `"` + method + `"`, `["` + method + `"]`}
			found := false
			for _, q := range quoted {
				found = found || strings.Contains(string(src), q)
			}
			if !found {
				t.Errorf("%s does not use the server's method %q", file, method)
			}
		}
	}
}
