package testbuild

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A process's many small writes reach the reader in few reads: the reader
// waits a moment after each read instead of being woken by every write.
func TestPipeTakesManyWritesAtOneRead(t *testing.T) {
	p, err := NewPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const lines = 2000
	// A process of its own, as the test binaries are: its writes do not
	// wait for faultline's reads.
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done")
	cmd.Stdout = p.Writer()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.CloseWriter()
	var got bytes.Buffer
	buf := make([]byte, 32<<10)
	reads := 0
	start := time.Now()
	for {
		n, err := p.Read(buf)
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
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got.String(), "\n"); n != lines {
		t.Fatalf("read %d lines, want %d", n, lines)
	}
	// A loaded machine may run the shell slowly enough that each read
	// finds few lines: more than one read a millisecond is what a reader
	// that does not wait gives.
	if elapsed := time.Since(start); reads > lines/4 && reads > int(elapsed/time.Millisecond)+2 {
		t.Errorf("%d reads for %d writes in %v: the reader did not wait between reads", reads, lines, elapsed)
	}
}

// Stop ends the reading while a process the test left running still holds
// the write end, after what the pipe held.
func TestPipeStopEndsTheReadOfAPipeHeldOpen(t *testing.T) {
	p, err := NewPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Writer().WriteString("left behind\n"); err != nil {
		t.Fatal(err)
	}
	// faultline's write end stays open, as a detached child's would.
	done := make(chan string)
	go func() {
		b, err := io.ReadAll(p)
		if err != nil {
			t.Error(err)
		}
		done <- string(b)
	}()
	select {
	case b := <-done:
		t.Fatalf("read ended before Stop with %q", b)
	case <-time.After(100 * time.Millisecond):
	}
	p.Stop()
	select {
	case b := <-done:
		if b != "left behind\n" {
			t.Errorf("read %q, want what was written", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read did not end after Stop")
	}
}
