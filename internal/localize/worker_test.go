//go:build cgo

package localize

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"faultline/internal/bug"
	"faultline/internal/txtartest"
)

// workerBugEnv makes the test binary, serving as a worker, report a bug
// with this message as it starts reading its request.
const workerBugEnv = "FAULTLINE_TEST_WORKER_BUG"

// bugFirst reports a bug at its first read, then reads r.
type bugFirst struct {
	msg      string
	r        io.Reader
	reported bool
}

func (b *bugFirst) Read(p []byte) (int, error) {
	if !b.reported {
		b.reported = true
		bug.Reportf("%s", b.msg)
	}
	return b.r.Read(p)
}

// A bug a worker reports (a panic of one test's analysis, recovered)
// reaches the parent's reports once, with the worker's location, where the
// language server and the command line listen.
func TestWorkerBugsReachTheParent(t *testing.T) {
	dir := txtartest.Extract(t, "../../analysis/testdata/killed.txtar")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var reports []bug.Report
	defer bug.Default.Handle(func(r bug.Report) { reports = append(reports, r) })()
	const msg = "a bug in the worker"
	err = processWorker(exe)(context.Background(), workRequest{Root: dir, CacheRoot: t.TempDir(), Memory: DefaultMemory,
		Env: append(os.Environ(), workerBugEnv+"="+msg), Deadline: time.Now().Add(time.Minute)},
		func(workReply) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 1 || reports[0].Message != msg || reports[0].Location == "" {
		t.Fatalf("the parent's reports: %+v", reports)
	}
}
