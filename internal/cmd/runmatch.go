package cmd

import (
	"fmt"
	"regexp"
	"strings"
)

// testNameMatcher matches test names against a -run pattern as go test
// does: the pattern and the name are split at each slash outside brackets
// and parentheses, and each level of the name must match the pattern's
// element at that level, unanchored; a name with fewer levels than the
// pattern matches on the levels it has (its subtests may match the rest).
func testNameMatcher(pattern string) (func(name string) bool, error) {
	var levels []*regexp.Regexp
	for _, part := range splitPattern(pattern) {
		re, err := regexp.Compile(part)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", pattern, err)
		}
		levels = append(levels, re)
	}
	return func(name string) bool {
		for i, elem := range strings.Split(name, "/") {
			if i < len(levels) && !levels[i].MatchString(elem) {
				return false
			}
		}
		return true
	}, nil
}

// splitPattern splits a -run pattern at the slashes that separate its
// levels: not those inside brackets or parentheses, nor escaped ones.
func splitPattern(pattern string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case '/':
			if depth == 0 {
				parts = append(parts, pattern[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, pattern[start:])
}
