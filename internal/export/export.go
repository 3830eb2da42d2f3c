// Package export holds what the export formats (SARIF in export/sarif,
// GZoltar's CSV triple in export/gzoltar, the HTML report in
// internal/report) share beyond the localization they write
// (localize.Localization): the module's sources they quote, and file
// writing that never leaves a partial file where a complete one should be.
package export

import (
	"fmt"
	"runtime/debug"
)

// Version is faultline's module version as built, "devel" for a build from
// a work tree.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && (v == "" || v == "(devel)") {
			v = s.Value
			if len(v) > 12 {
				v = v[:12]
			}
		}
	}
	if v == "" || v == "(devel)" {
		return "devel"
	}
	return v
}

// TieText describes a line's tie group, its first and last rank: "-"
// alone, else "ranks a-b".
func TieText(tie [2]int) string {
	if tie[0] == tie[1] {
		return "-"
	}
	return fmt.Sprintf("ranks %d-%d", tie[0], tie[1])
}
