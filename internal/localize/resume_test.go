package localize

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// replyFor is a worker's reply completing t.
func replyFor(t testbuild.Target) workReply {
	return workReply{Core: &analysis.CoreResult{Package: t.Package, Test: t.Test}}
}

// A worker that dies loses the target it was on: a new one takes the rest,
// grouped by package, under the same deadline; past it none starts.
func TestEachTargetResumes(t *testing.T) {
	a1, a2 := testbuild.Target{Package: "a", Test: "T1"}, testbuild.Target{Package: "a", Test: "T2"}
	b1, b2 := testbuild.Target{Package: "b", Test: "T1"}, testbuild.Target{Package: "b", Test: "T2"}
	killed := errors.New("memory bound (1 MB) reached: the analysis was stopped")
	for _, c := range []struct {
		name     string
		deadline time.Duration
		calls    [][]testbuild.Target
		done     []testbuild.Target
		err      error
	}{
		{"resumed", time.Hour, [][]testbuild.Target{{a1, a2, b1, b2}, {b1, b2}}, []testbuild.Target{a1, b1, b2}, nil},
		{"past the deadline", -time.Second, [][]testbuild.Target{{a1, a2, b1, b2}}, []testbuild.Target{a1}, killed},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls [][]testbuild.Target
			var deadlines []time.Time
			s := &Service{worker: func(ctx context.Context, req workRequest, done func(workReply)) error {
				calls = append(calls, req.Targets)
				deadlines = append(deadlines, req.Deadline)
				if len(calls) == 1 { // one result, then it dies on the second target
					done(replyFor(req.Targets[0]))
					return killed
				}
				for _, t := range req.Targets {
					done(replyFor(t))
				}
				return nil
			}}
			var done, lost []testbuild.Target
			var why error
			err := s.eachTarget(context.Background(), workRequest{Targets: []testbuild.Target{a1, b1, a2, b2}, Deadline: time.Now().Add(c.deadline)},
				func(r workReply) (testbuild.Target, bool) {
					t := testbuild.Target{Package: r.Core.Package, Test: r.Core.Test}
					done = append(done, t)
					return t, true
				},
				func(t testbuild.Target, err error) {
					lost = append(lost, t)
					why = err
				})
			if err != c.err {
				t.Errorf("eachTarget = %v, want %v", err, c.err)
			}
			if !reflect.DeepEqual(calls, c.calls) {
				t.Errorf("workers got %v, want %v", calls, c.calls)
			}
			if !reflect.DeepEqual(done, c.done) {
				t.Errorf("results for %v, want %v", done, c.done)
			}
			if !reflect.DeepEqual(lost, []testbuild.Target{a2}) || why != killed {
				t.Errorf("lost %v (%v), want %v (%v)", lost, why, a2, killed)
			}
			for _, d := range deadlines[1:] {
				if !d.Equal(deadlines[0]) {
					t.Errorf("deadlines %v: a new worker got more time", deadlines)
				}
			}
		})
	}
}

// A worker that dies after its last result loses nothing, and one that
// ends well is not restarted.
func TestEachTargetDiesAtTheEnd(t *testing.T) {
	targets := []testbuild.Target{{Package: "a", Test: "T1"}, {Package: "a", Test: "T2"}}
	for _, fail := range []error{nil, errors.New("the analysis ended abnormally: exit status 2")} {
		calls := 0
		s := &Service{worker: func(ctx context.Context, req workRequest, done func(workReply)) error {
			calls++
			for _, t := range req.Targets {
				done(replyFor(t))
			}
			return fail
		}}
		err := s.eachTarget(context.Background(), workRequest{Targets: targets, Deadline: time.Now().Add(time.Hour)},
			func(r workReply) (testbuild.Target, bool) {
				return testbuild.Target{Package: r.Core.Package, Test: r.Core.Test}, true
			},
			func(lost testbuild.Target, err error) { t.Errorf("lost %v: %v", lost, err) })
		if err != nil || calls != 1 {
			t.Errorf("worker ending with %v: eachTarget = %v after %d workers", fail, err, calls)
		}
	}
}
