package spectra

import "sync"

// reporter turns collection events into Progress calls, one at a time.
type reporter struct {
	mu   sync.Mutex
	fn   func(Progress)
	prog Progress
}

func newReporter(fn func(Progress), packages, reused int) *reporter {
	return &reporter{fn: fn, prog: Progress{Packages: packages, PackagesDone: reused, Reused: reused}}
}

func (r *reporter) emit() {
	if r.fn != nil {
		r.fn(r.prog)
	}
}

func (r *reporter) phase(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prog.Phase = name
	r.emit()
}

func (r *reporter) leafDone(pkg string, v Verdict) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prog.Tests++
	if v.Failing() {
		r.prog.Failing++
	}
	r.prog.Current = pkg
	r.emit()
}

func (r *reporter) packageDone(pkg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prog.PackagesDone++
	r.prog.Current = pkg
	r.emit()
}

// finish reports the end of a collection, which is the only report when
// every package's results were reused.
func (r *reporter) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prog.Phase = "done"
	r.prog.PackagesDone = r.prog.Packages
	r.emit()
}
