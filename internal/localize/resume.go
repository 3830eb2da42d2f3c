package localize

import (
	"context"
	"slices"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// eachTarget runs the targets of req in a worker, handing each reply to
// done, which says which target the reply completes (false for none).
// When the worker dies with targets left (its memory bound, a crash), the
// first target without a result, the one it was analysing, is lost with
// the reason, and a new worker takes the others that have none. The
// targets are sent grouped by package, the order a worker analyses them
// in: so the first without a result is the one that was running, and a
// new worker rebuilds only the packages left. Every worker shares
// req.Deadline; past it none is started, and the error is returned.
func (s *Service) eachTarget(ctx context.Context, req workRequest, done func(workReply) (testbuild.Target, bool), lost func(testbuild.Target, error)) error {
	left := byPackage(req.Targets)
	for len(left) > 0 {
		req.Targets = left
		got := map[testbuild.Target]bool{}
		err := s.worker(ctx, req, func(reply workReply) {
			if t, ok := done(reply); ok {
				got[t] = true
			}
		})
		if err == nil || ctx.Err() != nil {
			return err
		}
		// A new slice: the worker may keep the one it was sent.
		left = slices.DeleteFunc(slices.Clone(left), func(t testbuild.Target) bool { return got[t] })
		if len(left) == 0 {
			return nil // it died once every result was in
		}
		lost(left[0], err)
		left = left[1:]
		if len(left) > 0 && !time.Now().Before(req.Deadline) {
			return err
		}
	}
	return nil
}

// byPackage returns the targets grouped by package, the packages in the
// order they first come, each package's targets in theirs (the order
// analysis.AnalyzeEach takes them in).
func byPackage(targets []testbuild.Target) []testbuild.Target {
	var order []string
	of := map[string][]testbuild.Target{}
	for _, t := range targets {
		if _, ok := of[t.Package]; !ok {
			order = append(order, t.Package)
		}
		of[t.Package] = append(of[t.Package], t)
	}
	out := make([]testbuild.Target, 0, len(targets))
	for _, p := range order {
		out = append(out, of[p]...)
	}
	return out
}

// lostNote is the note of a target lost with its worker. Its result is not
// cached: the next worker may well get through.
func lostNote(why error) string { return "not analysed: " + why.Error() }

// testMemory is the bound on the test process trees of a worker asked
// for bound: bound itself, or the workspace's when it is 0.
func (s *Service) testMemory(bound int64) int64 {
	if bound > 0 {
		return bound
	}
	return s.ws.Module().TestMemory()
}
