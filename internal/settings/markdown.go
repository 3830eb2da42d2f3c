package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Markdown is doc/settings.md: every setting of the registry, with its
// type, default, values and documentation.
func Markdown() []byte {
	var b bytes.Buffer
	b.WriteString(`# Settings

<!-- Generated from internal/settings by "go generate ./internal/settings"; do not edit. -->

The language server (` + "`faultline serve`" + `) reads these settings from
` + "`initializationOptions`" + `, from the ` + "`" + Section + "`" + ` section of
` + "`workspace/configuration`" + ` and from ` + "`workspace/didChangeConfiguration`" + `.
The object may hold the settings themselves or wrap them as
` + "`{\"" + Section + "\": {...}}`" + `. An invalid value is reported in the
server's log and leaves the setting as it was, so one typo does not reset
the rest; names the server does not know are ignored. The editors'
configurations ([editors.md](editors.md)) send the same names with the
same defaults, which a test checks.

| setting | type | default |
|---|---|---|
`)
	all := All()
	for _, st := range all {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | `%s` |\n", st.Name, strings.ToLower(st.Name), typeText(st.Type), defaultText(st))
	}
	for _, st := range all {
		fmt.Fprintf(&b, "\n## %s\n\n", st.Name)
		fmt.Fprintf(&b, "Type: %s. Default: `%s`.", typeText(st.Type), defaultText(st))
		if len(st.Values) > 0 {
			quoted := make([]string, len(st.Values))
			for i, v := range st.Values {
				quoted[i] = "`" + v + "`"
			}
			if st.Others == "" {
				fmt.Fprintf(&b, " Values: %s.", strings.Join(quoted, ", "))
			} else {
				fmt.Fprintf(&b, " Values: %s; also %s.", strings.Join(quoted, ", "), st.Others)
			}
		}
		fmt.Fprintf(&b, "\n\n%s\n\nSets %s.\n", st.Doc, st.Model)
	}
	return b.Bytes()
}

// typeText names a setting's type for a reader.
func typeText(t Type) string {
	switch t {
	case Duration:
		return "string, a Go duration such as `\"30s\"`"
	case Megabytes:
		return "integer, in MB"
	}
	return string(t)
}

// defaultText is a setting's default as JSON writes it.
func defaultText(st Setting) string {
	text, err := json.Marshal(st.Default())
	if err != nil { // every default is a string, a bool or a number
		panic(fmt.Sprintf("setting %q: default %v: %v", st.Name, st.Default(), err))
	}
	return string(text)
}
