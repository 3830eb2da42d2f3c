package realfault

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Hunk is one change of a zero-context diff: old lines [OldStart,
// OldStart+OldCount) became new lines [NewStart, NewStart+NewCount). A
// pure insertion has OldCount 0 and goes after old line OldStart.
type Hunk struct {
	File               string
	OldStart, OldCount int
	NewStart, NewCount int
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// ParseHunks reads the hunks of a git diff -U0, keyed by file (the new
// path, or the old one for a deleted file).
func ParseHunks(diff []byte) ([]Hunk, error) {
	var out []Hunk
	file := ""
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "--- "):
			if p, ok := strings.CutPrefix(line, "--- a/"); ok {
				file = p
			}
		case strings.HasPrefix(line, "+++ "):
			if p, ok := strings.CutPrefix(line, "+++ b/"); ok {
				file = p
			}
		case strings.HasPrefix(line, "@@ "):
			m := hunkHeader.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("unreadable hunk header %q", line)
			}
			num := func(s string) int {
				if s == "" {
					return 1
				}
				n, _ := strconv.Atoi(s)
				return n
			}
			out = append(out, Hunk{File: file, OldStart: num(m[1]), OldCount: num(m[2]), NewStart: num(m[3]), NewCount: num(m[4])})
		}
	}
	return out, sc.Err()
}
