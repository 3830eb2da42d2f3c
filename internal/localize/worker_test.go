//go:build cgo

package localize

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// workerBugEnv makes the test binary, serving as a worker, report a bug
// with this message as it starts reading its request; after "panic:", it
// panics with the rest.
const workerBugEnv = "FAULTLINE_TEST_WORKER_BUG"

// bugFirst reports a bug (or panics) at its first read, then reads r.
type bugFirst struct {
	msg      string
	r        io.Reader
	reported bool
}

func (b *bugFirst) Read(p []byte) (int, error) {
	if !b.reported {
		b.reported = true
		if v, ok := strings.CutPrefix(b.msg, "panic:"); ok {
			panic(v)
		}
		bug.Reportf("%s", b.msg)
	}
	return b.r.Read(p)
}

// A bug a worker reports (a panic of one test's analysis, recovered)
// reaches the parent's reports once, with the worker's location, where the
// language server and the command line listen; a panic elsewhere in the
// worker is reported so too, and ends its request with an error.
func TestWorkerBugsReachTheParent(t *testing.T) {
	dir := txtartest.Extract(t, "../../analysis/testdata/killed.txtar")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ env, report, err string }{
		{"a bug in the worker", "a bug in the worker", ""},
		{"panic:a panic in the worker", "analysis worker: a panic in the worker", "faultline failed: a panic in the worker"},
	} {
		var reports []bug.Report
		stop := bug.Default.Handle(func(r bug.Report) { reports = append(reports, r) })
		err = processWorker(exe)(context.Background(), workRequest{Root: dir, CacheRoot: t.TempDir(), Memory: DefaultMemory,
			Env: append(os.Environ(), workerBugEnv+"="+c.env), Deadline: time.Now().Add(time.Minute)},
			func(workReply) {})
		stop()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("%s: the worker's error %q, want %q", c.env, got, c.err)
		}
		if len(reports) != 1 || reports[0].Message != c.report || reports[0].Location == "" {
			t.Errorf("%s: the parent's reports: %+v", c.env, reports)
		}
	}
}
