package regress

import (
	"sync"
	"time"
)

// Phase is the time one kind of work took in an explanation, and how
// often it was done: where the time goes on a real module
// (Options.Trace).
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Count   int     `json:"count"`
}

// phases adds up the time of each kind of work; concurrent reverts add
// to it from several goroutines. A nil *phases records nothing.
type phases struct {
	mu    sync.Mutex
	order []string
	by    map[string]*Phase
}

func newPhases() *phases { return &phases{by: map[string]*Phase{}} }

// since adds the time since start to the phase name.
func (p *phases) since(name string, start time.Time) {
	if p == nil {
		return
	}
	d := time.Since(start).Seconds()
	p.mu.Lock()
	defer p.mu.Unlock()
	ph, ok := p.by[name]
	if !ok {
		ph = &Phase{Name: name}
		p.by[name] = ph
		p.order = append(p.order, name)
	}
	ph.Seconds += d
	ph.Count++
}

// list returns the phases in the order they first ended.
func (p *phases) list() []Phase {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Phase, 0, len(p.order))
	for _, n := range p.order {
		out = append(out, *p.by[n])
	}
	return out
}
