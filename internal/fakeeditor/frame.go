// Package lspframe reads and writes the base protocol's frames of LSP
// (a Content-Length header, a blank line, a JSON body) for the fake editor
// of the tests and benchmarks, internal/fakeeditor, which reads and writes
// frames itself so that it can also send malformed ones.
package fakeeditor

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Write writes body as one frame.
func Write(w io.Writer, body []byte) error {
	_, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// Read reads one frame's body.
func Read(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if length, err = strconv.Atoi(v); err != nil || length < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", v)
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("a frame without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}
