package analysis

import (
	"bytes"
	"go/version"
)

// genericsVersion is the language version the instrumentation needs: the
// runtime's recording functions are generic so that a wrapped expression
// keeps its type.
const genericsVersion = "go1.18"

// needsUpgrade reports whether files of a module declaring goVersion (as in
// go.mod, "1.16") compile below genericsVersion.
func needsUpgrade(goVersion string) bool {
	return goVersion != "" && version.Compare("go"+goVersion, genericsVersion) < 0
}

// upgradeLanguage raises an instrumented file to genericsVersion with a
// //go:build constraint, which since Go 1.21 sets a file's language version.
// The file is in the build already, so its own constraint holds and is
// kept. Positions must not move: an existing //go:build line is extended in
// place; otherwise the new header ends with a //line directive that gives
// the first original line its own number again.
func upgradeLanguage(src []byte, filename string) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i, l := range lines {
		t := bytes.TrimSpace(l)
		if bytes.HasPrefix(t, []byte("package ")) {
			break
		}
		if expr, ok := bytes.CutPrefix(t, []byte("//go:build ")); ok {
			lines[i] = []byte("//go:build (" + string(expr) + ") && " + genericsVersion + "\n")
			return bytes.Join(lines, nil)
		}
	}
	header := "//go:build " + genericsVersion + "\n\n//line " + filename + ":1\n"
	return append([]byte(header), src...)
}
