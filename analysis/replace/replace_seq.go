package replace

import (
	"strconv"

	"github.com/faultline-go/faultline/analysis/instrument"
)

// seqTrials replaces the last instance of a string or byte slice site of
// the formula by the values the site produced in passing runs (recorded as
// strings whatever the type) and by the empty one.
func seqTrials(r *replaceable, passing map[string]int) []trial {
	last := len(r.insts) - 1
	was := instrument.Value{N: r.values[last], S: r.strs[last], Opaque: r.opaque}
	tried := map[string]bool{}
	if !r.opaque {
		tried[was.S] = true
	}
	var out []trial
	add := func(v string) {
		if tried[v] {
			return
		}
		tried[v] = true
		inst := r.insts[last]
		out = append(out, trial{s: r.s, was: instrument.RenderValue(r.s.Typ, was), angelic: instrument.RenderValue(r.s.Typ, instrument.Value{S: v}),
			force: []instrument.ForcedValue{{Site: r.s.Id, Act: inst.Act, Local: inst.Local, Str: &v}}})
	}
	n := 0
	for _, text := range byCount(passing) {
		p, err := parsePayload(text)
		if err != nil || p.kind != 's' || n == maxPassingValues {
			continue
		}
		if v, err := strconv.Unquote(p.text); err == nil && !tried[v] {
			add(v)
			n++
		}
	}
	if !instrument.IsRecord(r.s.Typ) {
		add("") // an empty string, slice or map; a struct has no such value
	}
	return out
}
