//go:build unix

package testbuild

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

// A process writing thousands of short lines is read in batches, every
// byte in order, to the end.
func TestQuietPipeReadsInBatches(t *testing.T) {
	r, w, err := NewQuietPipe()
	if err != nil {
		t.Fatal(err)
	}
	const lines = 20000
	var want bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&want, "exit %q - %d %d\n", fmt.Sprintf("TestX/case_%d", i), i, 2*i)
	}
	go func() {
		data := want.Bytes()
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n') + 1
			w.Write(data[:i]) // one write per line, as the runtime writes records
			data = data[i:]
		}
		w.Close()
	}()
	var got bytes.Buffer
	buf := make([]byte, 1<<20)
	reads := 0
	for {
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if n > 0 {
			reads++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("read %d bytes, not the %d written in order", got.Len(), want.Len())
	}
	if reads > lines/10 {
		t.Errorf("%d reads for %d lines: not batched", reads, lines)
	}
}

// Close ends a read waiting on a pipe whose write end another process
// (here, the test) still holds, and every read after it.
func TestQuietPipeCloseEndsRead(t *testing.T) {
	r, w, err := NewQuietPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write([]byte("first\n"))
	buf := make([]byte, 64)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "first\n" {
		t.Fatalf("first read: %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(buf)
		done <- err
	}()
	r.Close()
	select {
	case err := <-done:
		if err != io.EOF {
			t.Errorf("the read ended with %v, want io.EOF", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close did not end the read")
	}
	if _, err := r.Read(buf); err != io.EOF {
		t.Errorf("a read after Close: %v, want io.EOF", err)
	}
}
