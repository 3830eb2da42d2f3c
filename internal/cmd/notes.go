package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// noteGroup is one note of the angelic analysis with the tests it applies
// to, and the step that may get further when there is one.
type noteGroup struct {
	text  string
	tests []string
	next  string
}

// stringsNote is said of the tests whose failing check compares strings
// the formula kept concrete and for which the formula verified no fix.
const stringsNote = "the failing check compares strings or byte slices, which the formula kept concrete"

// groupNotes gathers the tests' notes so that each is said once, in the
// order the analysis made them (a fallback before the bound that cut it),
// each with the next step it suggests to the command cmd. A bound's next
// step is given only when some test of the note was left without a
// verified fix: the others have what the search is for.
func groupNotes(results []localize.TestResult, cmd string) []noteGroup {
	var groups []noteGroup
	after := map[[2]int]bool{} // {a, b}: some test noted groups[a] before groups[b]
	for _, r := range results {
		verifiedBy := func(found string) bool {
			return slices.ContainsFunc(r.Candidates, func(c localize.Candidate) bool {
				return c.Verified && (found == "" || c.Found == found)
			})
		}
		notes := r.Notes
		if r.StringsConcrete && !verifiedBy(localize.FoundBySolver) {
			// Said beside the formula's own "no fix" note, which it explains.
			at := slices.IndexFunc(notes, func(n string) bool { return strings.HasPrefix(n, "no fix of at most ") }) + 1
			if at == 0 {
				at = len(notes)
			}
			notes = slices.Insert(slices.Clone(notes), at, stringsNote)
		}
		stuck := !verifiedBy("")
		var seen []int
		for _, n := range notes {
			i := slices.IndexFunc(groups, func(g noteGroup) bool { return g.text == n })
			if i < 0 {
				groups = append(groups, noteGroup{text: n})
				i = len(groups) - 1
			}
			if stuck || n == stringsNote {
				groups[i].next = nextStep(n, cmd)
			}
			if !slices.Contains(groups[i].tests, r.Test) {
				groups[i].tests = append(groups[i].tests, r.Test)
			}
			for _, j := range seen {
				if j != i {
					after[[2]int{j, i}] = true
				}
			}
			seen = append(seen, i)
		}
	}
	return causalOrder(groups, after)
}

// causalOrder orders the groups so that a note some test made before
// another comes first, and otherwise as they first appeared; notes the
// tests made in contradicting orders keep their first appearance's order.
func causalOrder(groups []noteGroup, after map[[2]int]bool) []noteGroup {
	placed := make([]bool, len(groups))
	var out []noteGroup
	for len(out) < len(groups) {
		next := -1
		for i := range groups {
			if placed[i] {
				continue
			}
			if next < 0 {
				next = i // the fallback when every candidate waits on another
			}
			ready := true
			for j := range groups {
				if !placed[j] && j != i && after[[2]int{j, i}] && !after[[2]int{i, j}] {
					ready = false
					break
				}
			}
			if ready {
				next = i
				break
			}
		}
		placed[next] = true
		out = append(out, groups[next])
	}
	return out
}

// nextStep is the flag that lets the analysis go further than a note
// says it went, or "" when no flag would.
func nextStep(note, cmd string) string {
	var size int
	switch {
	case note == stringsNote:
		return "rerun with -strings to model them (slower)"
	case cmd == "fix" && scan(note, "no fix of at most %d locations", &size):
		return fmt.Sprintf("rerun with -max-size %d to search larger fixes", size+1)
	case cmd == "fix" && (strings.HasPrefix(note, "run bound (") || note == "value replacement cut by the run bound"):
		return "rerun with a larger -max-runs"
	case cmd == "fix" && note == "predicate switching cut by the run or time bound":
		return "rerun with a larger -max-runs or -budget"
	case note == "time budget exhausted" || note == "value replacement cut by its share of the time budget" || strings.HasPrefix(note, "the formula used its share"):
		return "rerun with a larger -budget"
	case strings.HasPrefix(note, "the formula outgrew the solver's memory bound"):
		return "rerun with a larger -memory"
	}
	return ""
}

// scan reports whether text begins with what format describes, filling
// args.
func scan(text, format string, args ...any) bool {
	n, err := fmt.Sscanf(text, format, args...)
	return err == nil && n == len(args)
}

// writeNotes prints each note once with the tests it concerns and its
// next step.
func writeNotes(w io.Writer, groups []noteGroup) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(w, "\nnotes:")
	for _, g := range groups {
		fmt.Fprintf(w, "  %s (%s)\n", g.text, testList(g.tests))
		if g.next != "" {
			fmt.Fprintf(w, "    next: %s\n", g.next)
		}
	}
}

// testList names a few tests and counts the rest.
func testList(tests []string) string {
	const shown = 3
	if len(tests) <= shown {
		return strings.Join(tests, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(tests[:shown], ", "), len(tests)-shown)
}

// writeServiceNotes prints the localization service's notes on standard
// error, each once: the notes it makes per test ("TestX: not analysed:
// why") are gathered by what they say.
func writeServiceNotes(w io.Writer, notes []string) {
	var groups []noteGroup
	for _, n := range notes {
		text, test := n, ""
		if t, rest, ok := strings.Cut(n, ": "); ok && strings.HasPrefix(rest, "not analysed: ") && !strings.Contains(t, " ") {
			text, test = rest, t
		}
		i := slices.IndexFunc(groups, func(g noteGroup) bool { return g.text == text })
		if i < 0 {
			groups = append(groups, noteGroup{text: text})
			i = len(groups) - 1
		}
		if test != "" {
			groups[i].tests = append(groups[i].tests, test)
		}
	}
	for _, g := range groups {
		line := g.text
		if len(g.tests) > 0 {
			line += " (" + testList(g.tests) + ")"
		}
		var first, all int
		if scan(g.text, "analysed the first %d of %d failing tests", &first, &all) {
			line += fmt.Sprintf("; -max-analyzed %d analyses them all", all)
		}
		fmt.Fprintf(w, "faultline: %s\n", line)
	}
}
