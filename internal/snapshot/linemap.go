package snapshot

import (
	"bytes"

	"github.com/faultline-go/faultline/internal/snapshot/linediff"
)

// FileText is a file as the user sees it now, with the collected lines
// mapped onto it. It is cached under the pair of content hashes.
type FileText struct {
	Lines       [][]byte // current lines, without terminators
	ToCurrent   []int    // collected line index -> current line index, or -1; nil: identical
	FromCurrent []int    // current line index -> collected line index, or -1; nil: identical
}

// Current returns the current line index of collected 1-based line n.
func (ft *FileText) Current(n int) (int, bool) {
	i := n - 1
	if ft.ToCurrent == nil {
		return i, i >= 0 && i < len(ft.Lines)
	}
	if i < 0 || i >= len(ft.ToCurrent) || ft.ToCurrent[i] < 0 {
		return 0, false
	}
	return ft.ToCurrent[i], true
}

// Collected returns the collected 1-based line shown at current line index i.
func (ft *FileText) Collected(i int) (int, bool) {
	if ft.FromCurrent == nil {
		return i + 1, i >= 0 && i < len(ft.Lines)
	}
	if i < 0 || i >= len(ft.FromCurrent) || ft.FromCurrent[i] < 0 {
		return 0, false
	}
	return ft.FromCurrent[i] + 1, true
}

// MappingKey names the mapping of a file's collected content onto its current one.
type MappingKey struct{ Collected, Current ContentHash }

// UnchangedText is a file whose current text is the collected one.
func UnchangedText(current []byte) *FileText { return &FileText{Lines: lineSpans(current)} }

// MappedText is a file's current text with the lines of its collected
// text mapped onto it.
func MappedText(collected, current []byte) *FileText {
	ft := UnchangedText(current)
	ft.ToCurrent = linediff.Map(lineSpans(collected), ft.Lines)
	ft.FromCurrent = make([]int, len(ft.Lines))
	for i := range ft.FromCurrent {
		ft.FromCurrent[i] = -1
	}
	for i, j := range ft.ToCurrent {
		if j >= 0 {
			ft.FromCurrent[j] = i
		}
	}
	return ft
}

// lineSpans indexes the lines of a text: span i holds the bytes of line i+1
// without its line terminator.
func lineSpans(text []byte) [][]byte {
	var lines [][]byte
	for len(text) > 0 {
		nl := bytes.IndexByte(text, '\n')
		if nl < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, bytes.TrimSuffix(text[:nl], []byte("\r")))
		text = text[nl+1:]
	}
	return lines
}
