package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// settingDefaults are the server's settings as a client writes them, with
// their defaults: the one schema the editors' configurations must match.
func settingDefaults() map[string]any {
	d := DefaultSettings()
	return map[string]any{
		"formula": d.Formula, "top": float64(d.Top), "threshold": d.Threshold, "autoRun": d.AutoRun,
		"timeout": seconds(d.Timeout), "parallel": float64(d.Parallel), "angelic": d.Angelic,
		"budget": seconds(d.Budget), "maxAnalyzed": float64(d.MaxAnalyzed), "memory": float64(d.Memory >> 20),
		"trust": d.Trust, "order": d.Order, "testMemory": float64(d.TestMemory >> 20),
	}
}

// seconds writes a whole number of seconds as users do: "60s".
func seconds(d time.Duration) string { return strconv.Itoa(int(d/time.Second)) + "s" }

func TestSettingsSchemaMatchesEditors(t *testing.T) {
	want := settingDefaults()
	// Every default must be one the server takes as it is.
	raw, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := DefaultSettings().apply(raw); err != nil || s != DefaultSettings() {
		t.Fatalf("the defaults do not read back: %+v, %v", s, err)
	}

	// VS Code: package.json declares every setting with the same default,
	// and every registered formula.
	var manifest struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Default any
					Enum    []string
					AnyOf   []struct{ Enum []string }
				}
			}
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "editors", "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	props := manifest.Contributes.Configuration.Properties
	for name, def := range want {
		p, ok := props["faultline."+name]
		if !ok {
			t.Errorf("package.json lacks faultline.%s", name)
			continue
		}
		if fmt.Sprint(p.Default) != fmt.Sprint(def) {
			t.Errorf("package.json: faultline.%s defaults to %v, the server to %v", name, p.Default, def)
		}
	}
	var formulas []string
	for _, a := range props["faultline.formula"].AnyOf {
		formulas = append(formulas, a.Enum...)
	}
	for _, tech := range localize.Techniques() {
		if !slices.Contains(formulas, tech.Name) {
			t.Errorf("package.json does not offer the formula %q", tech.Name)
		}
	}

	if orders := props["faultline.order"].Enum; !slices.Equal(orders, localize.Orders) {
		t.Errorf("package.json offers the orders %q, the server takes %q", orders, localize.Orders)
	}

	// VS Code: the extension's own defaults (src/settings.ts).
	ts := readText(t, filepath.Join("..", "editors", "vscode", "src", "settings.ts"))
	block := between(t, ts, "export const DEFAULTS: ServerSettings = {", "};")
	checkDefaults(t, "settings.ts", parseAssignments(block, ":"), want)

	// Neovim: config.lua's defaults and the keys it sends.
	lua := readText(t, filepath.Join("..", "editors", "nvim", "lua", "faultline", "config.lua"))
	defaults := parseAssignments(between(t, lua, "M.defaults = {", "\n}"), "=")
	sent := between(t, lua, "local server_keys = {", "}")
	for name := range want {
		if !strings.Contains(sent, strconv.Quote(name)) {
			t.Errorf("config.lua does not send %q to the server", name)
		}
	}
	checkDefaults(t, "config.lua", defaults, want)
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	if i < 0 {
		t.Fatalf("no %q", from)
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		s = s[:j]
	}
	return s
}

// parseAssignments reads "name sep value," lines of a table or object
// literal, values as JSON would read them (quotes made double).
func parseAssignments(block, sep string) map[string]any {
	re := regexp.MustCompile(`(?m)^\s*(\w+)\s*` + regexp.QuoteMeta(sep) + `\s*(.+?),?\s*(--.*|//.*)?$`)
	out := map[string]any{}
	for _, m := range re.FindAllStringSubmatch(block, -1) {
		value := strings.ReplaceAll(m[2], "'", `"`)
		var v any
		if json.Unmarshal([]byte(value), &v) == nil {
			out[m[1]] = v
		}
	}
	return out
}

func checkDefaults(t *testing.T, where string, got, want map[string]any) {
	t.Helper()
	for name, def := range want {
		v, ok := got[name]
		if !ok {
			t.Errorf("%s lacks the setting %q", where, name)
			continue
		}
		if fmt.Sprint(v) != fmt.Sprint(def) {
			t.Errorf("%s: %s defaults to %v, the server to %v", where, name, v, def)
		}
	}
}
