package replace

import "strconv"

// seqTrials replaces the last instance of a string or byte slice site of
// the formula by the values the site produced in passing runs (recorded as
// strings whatever the type) and by the empty one.
func seqTrials(r *replaceable, passing map[string]int) []trial {
	last := len(r.insts) - 1
	was := value{n: r.values[last], s: r.strs[last], opaque: r.opaque}
	tried := map[string]bool{}
	if !r.opaque {
		tried[was.s] = true
	}
	var out []trial
	add := func(v string) {
		if tried[v] {
			return
		}
		tried[v] = true
		inst := r.insts[last]
		out = append(out, trial{s: r.s, was: renderValue(r.s.typ, was), angelic: renderValue(r.s.typ, value{s: v}),
			force: []forcedValue{{Site: r.s.id, Act: inst.act, Local: inst.local, Str: &v}}})
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
	if !isRecord(r.s.typ) {
		add("") // an empty string, slice or map; a struct has no such value
	}
	return out
}
