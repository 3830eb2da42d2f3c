//go:build cgo

package analysis

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestSameAnswerUnderLoad analyses a failing test of examples/booking
// twice, the second time with every CPU kept busy, and requires the same
// candidates, angelic values, runs and notes: the analysis is bounded by
// work, not by time, and the code it runs ranges over its maps in the same
// order every time. (That test's formula search used to stop at a time
// share, and a loaded run found a two-line fix the other did not.)
func TestSameAnswerUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses an example twice")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../examples/booking")); err != nil {
		t.Fatal(err)
	}
	mod := open(t, dir)
	target := testbuild.Target{Package: "example.com/booking/booking", Test: "TestFirstFit/gap_before_first_meeting"}
	// The work is the default budget's; the wall-clock cap, which a loaded
	// machine may reach, is out of the way.
	opts := Options{Budget: 10 * time.Second}.WithWallCap(10 * time.Minute)
	analyse := func() string {
		t.Helper()
		res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, opts)
		if err != nil {
			t.Fatal(err)
		}
		r := res[0]
		return answer(r)
	}
	idle := analyse()
	stop := make(chan struct{})
	var spinning sync.WaitGroup
	for range runtime.NumCPU() {
		spinning.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	loaded := analyse()
	close(stop)
	spinning.Wait()
	if idle != loaded {
		t.Errorf("the same analysis gave different answers\nfirst:\n%s\nwith the CPUs busy:\n%s", idle, loaded)
	}
}

// answer is what a user sees of one test's analysis.
func answer(r TestResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ended %s, %d runs, notes %q\n", r.Ended, r.Runs, r.Notes)
	for _, c := range r.Candidates {
		fmt.Fprintf(&b, "%s verified=%v avoids=%v:", c.Found, c.Verified, c.Avoids)
		for _, l := range c.Locations {
			fmt.Fprintf(&b, " %s:%d:%d %s = %s (was %s)", l.File, l.Line, l.Col, l.Expr, l.Angelic, l.Original)
		}
		b.WriteString("\n")
	}
	return b.String()
}
