// Package doc holds faultline's manual. Its test checks that the relative
// links of README.md and the manual lead somewhere.
package doc

import (
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	fence      = regexp.MustCompile("(?ms)^```.*?^```")
	codeSpan   = regexp.MustCompile("`[^`]*`")
	link       = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*$`)
	htmlAnchor = regexp.MustCompile(`<a id="([^"]+)">`)
	notSlug    = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
)

// TestRelativeLinksResolve checks every relative link of README.md and
// doc/*.md: the file must exist and a #fragment must name a heading (as
// GitHub makes anchors from headings) or an <a id> of the target.
func TestRelativeLinksResolve(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"../README.md", "../editors/README.md"}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			pages = append(pages, e.Name())
		}
	}
	for _, page := range pages {
		for _, target := range links(t, page) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = path.Join(path.Dir(page), file)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %v", page, target, err)
					continue
				}
			}
			if fragment != "" && strings.HasSuffix(dest, ".md") && !anchors(t, dest)[fragment] {
				t.Errorf("%s: link %q: %s has no anchor %q", page, target, dest, fragment)
			}
		}
	}
}

// links returns the targets of the Markdown links of page, outside code.
func links(t *testing.T, page string) []string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := codeSpan.ReplaceAllString(fence.ReplaceAllString(string(data), ""), "")
	var out []string
	for _, m := range link.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// anchors returns the anchors of a Markdown file: its headings' slugs, as
// GitHub makes them, and its <a id> elements.
func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := fence.ReplaceAllString(string(data), "")
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		slug := strings.ReplaceAll(strings.ToLower(notSlug.ReplaceAllString(m[1], "")), " ", "-")
		for n := 0; ; n++ { // GitHub numbers repeated headings
			s := slug
			if n > 0 {
				s += "-" + strconv.Itoa(n)
			}
			if !out[s] {
				out[s] = true
				break
			}
		}
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(text, -1) {
		out[m[1]] = true
	}
	return out
}
