package server

import (
	"testing"

	"go.lsp.dev/protocol"
)

func partial(l1, c1, l2, c2 uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}},
		Text:  text,
	}
}

func TestApplyChanges(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		changes []protocol.TextDocumentContentChangeEvent
		enc     encoding
		want    string
		wantErr bool
	}{
		{"insert", "ab\ncd\n", []protocol.TextDocumentContentChangeEvent{partial(1, 1, 1, 1, "X")}, encUTF16, "ab\ncXd\n", false},
		{"replace across lines", "ab\ncd\n", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 1, 1, "-")}, encUTF16, "a-d\n", false},
		{"utf-16 after an astral rune", "x😀y\n", []protocol.TextDocumentContentChangeEvent{partial(0, 3, 0, 4, "Z")}, encUTF16, "x😀Z\n", false},
		{"utf-8 after an astral rune", "x😀y\n", []protocol.TextDocumentContentChangeEvent{partial(0, 5, 0, 6, "Z")}, encUTF8, "x😀Z\n", false},
		{"character past the line end clamps", "ab\ncd", []protocol.TextDocumentContentChangeEvent{partial(0, 99, 0, 99, "!")}, encUTF16, "ab!\ncd", false},
		{"append at the end", "ab\n", []protocol.TextDocumentContentChangeEvent{partial(1, 0, 1, 0, "c")}, encUTF16, "ab\nc", false},
		{"whole document", "ab", []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "new"}}, encUTF16, "new", false},
		{"in order", "", []protocol.TextDocumentContentChangeEvent{partial(0, 0, 0, 0, "ac"), partial(0, 1, 0, 1, "b")}, encUTF16, "abc", false},
		{"line beyond the end", "ab\n", []protocol.TextDocumentContentChangeEvent{partial(5, 0, 5, 0, "x")}, encUTF16, "", true},
		{"reversed range", "abc", []protocol.TextDocumentContentChangeEvent{partial(0, 2, 0, 1, "x")}, encUTF16, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyChanges([]byte(tt.text), tt.changes, tt.enc)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error: %v", err, tt.wantErr)
			}
			if err == nil && string(got) != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWidth(t *testing.T) {
	line := []byte("a😀é")
	if got := encUTF16.width(line); got != 4 {
		t.Errorf("utf-16 width %d, want 4", got)
	}
	if got := encUTF8.width(line); got != 7 {
		t.Errorf("utf-8 width %d, want 7", got)
	}
}
