package server

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/faultline-go/faultline/internal/snapshot"
	"go.lsp.dev/protocol"
)

// document is an open editor buffer.
type document struct {
	path    string
	version int32
	text    []byte
	hash    snapshot.ContentHash
}

func newDocument(path string, version int32, text []byte) *document {
	return &document{path: path, version: version, text: text, hash: snapshot.HashContent(text)}
}

// encoding converts between LSP character offsets and byte offsets.
type encoding protocol.PositionEncodingKind

const (
	encUTF16 = encoding(protocol.PositionEncodingKindUTF16)
	encUTF8  = encoding(protocol.PositionEncodingKindUTF8)
)

// applyChanges returns text after the editor's content changes, in order.
func applyChanges(text []byte, changes []protocol.TextDocumentContentChangeEvent, enc encoding) ([]byte, error) {
	for i, ch := range changes {
		switch ch := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = []byte(ch.Text)
		case *protocol.TextDocumentContentChangePartial:
			start, err := enc.offset(text, ch.Range.Start)
			if err != nil {
				return nil, fmt.Errorf("change %d: start: %w", i, err)
			}
			end, err := enc.offset(text, ch.Range.End)
			if err != nil {
				return nil, fmt.Errorf("change %d: end: %w", i, err)
			}
			if end < start {
				return nil, fmt.Errorf("change %d: range ends before it starts", i)
			}
			next := make([]byte, 0, len(text)-(end-start)+len(ch.Text))
			next = append(next, text[:start]...)
			next = append(next, ch.Text...)
			text = append(next, text[end:]...)
		default:
			return nil, fmt.Errorf("change %d: unsupported change %T", i, ch)
		}
	}
	return text, nil
}

// offset turns a position into a byte offset in text. A character past the
// end of its line clamps to the line end, as the LSP asks; a line past the end
// of the text is an error.
func (enc encoding) offset(text []byte, pos protocol.Position) (int, error) {
	start := 0
	for line := uint32(0); line < pos.Line; line++ {
		nl := bytes.IndexByte(text[start:], '\n')
		if nl < 0 {
			if line+1 == pos.Line && start <= len(text) {
				// Position on the line just past a final line without newline.
				return len(text), nil
			}
			return 0, fmt.Errorf("line %d is beyond the end of the document (%d lines)", pos.Line, line+1)
		}
		start += nl + 1
	}
	lineText := text[start:]
	if nl := bytes.IndexByte(lineText, '\n'); nl >= 0 {
		lineText = lineText[:nl]
	}
	lineText = bytes.TrimSuffix(lineText, []byte("\r"))
	return start + enc.byteColumn(lineText, pos.Character), nil
}

// byteColumn turns a character offset within one line into a byte offset.
func (enc encoding) byteColumn(line []byte, char uint32) int {
	if enc == encUTF8 {
		return min(int(char), len(line))
	}
	units := uint32(0)
	for i := 0; i < len(line); {
		if units >= char {
			return i
		}
		r, size := utf8.DecodeRune(line[i:]) // invalid bytes decode as U+FFFD: one unit
		units += uint32(utf16.RuneLen(r))
		i += size
	}
	return len(line)
}

// width returns the length of line in the encoding's units.
func (enc encoding) width(line []byte) uint32 {
	if enc == encUTF8 {
		return uint32(len(line))
	}
	units := uint32(0)
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		units += uint32(utf16.RuneLen(r))
		i += size
	}
	return units
}
