package regress

import (
	"context"
	"errors"
	"fmt"
)

// maxUnconfirmedAux is the most auxiliary hunks a root change may have
// without its role being checked. A few (a signature, a call site) read
// as what the root needs to compile; with many the root is often one hunk
// of a rewrite whose hunks compile only together, and which of them delta
// debugging named the root is an accident of the order it tried them in.
const maxUnconfirmedAux = 8

// separate checks the roles of a root with many auxiliary hunks: reverted
// alone, without the root, the auxiliary hunks must build and the test
// must still fail. When they do not build, or the test passes, the root
// cannot be told apart from them by reverts, nor can the hunks of a root
// that is itself large (a rewrite delta debugging could not split). The
// failing run then tells them apart (narrow); when it cannot, all are
// reported as roots. Each case adds a note. When the budget runs out the
// roles stay as they are.
func (x *explainer) separate(ctx context.Context, root, aux []int) ([]int, []int, error) {
	if len(aux) <= maxUnconfirmedAux {
		if len(root) <= maxUnconfirmedAux {
			return root, aux, nil
		}
		roots, needed, how := x.narrow(root)
		if len(needed) == 0 {
			return root, aux, nil
		}
		x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("the reverts tried did not tell the %d root changes apart, so the %d of them %s are reported as roots and the other %d as what they need", len(root), len(roots), how, len(needed)))
		return roots, sorted(union(aux, needed)), nil
	}
	v, err := x.o.outcome(ctx, aux)
	if errors.Is(err, errBudget) {
		return root, aux, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var why string
	switch v.Verdict {
	case fail:
		return root, aux, nil
	case noBuild:
		why = "do not compile without it"
	case pass:
		why = "make the test pass without it"
	default:
		return root, aux, nil
	}
	// A neutral hunk changes no behaviour: it stays auxiliary, never a root.
	neutral := setOf(x.neutral)
	var kept []int
	for _, a := range aux {
		if neutral(a) {
			kept = append(kept, a)
		}
	}
	all := without(union(root, aux), kept)
	roots, needed, how := x.narrow(all)
	if len(needed) == 0 {
		x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("the root changes needed %d other changes to compile, which %s: the revert cannot tell them apart, so all %d are reported as roots", len(aux), why, len(all)))
		return all, kept, nil
	}
	x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("the root changes needed %d other changes to compile, which %s: the revert cannot tell them apart, so the %d of them %s are reported as roots and the other %d as what they need to compile", len(aux), why, len(roots), how, len(needed)))
	return roots, sorted(union(kept, needed)), nil
}

// narrow tells apart changes that reverts cannot, by the failing run: a
// change it does not execute (an import, a declaration, code on another
// path) is what the executed ones need, not what makes the test fail; of
// the executed ones, those the fewest passing tests execute are the most
// specific to the failure. how says which rule decided; needed is empty
// when neither tells any change apart (no change executed, or the run
// not known).
func (x *explainer) narrow(hunks []int) (roots, needed []int, how string) {
	ran := setOf(x.executed)
	var executed []int
	for _, h := range hunks {
		if ran(h) {
			executed = append(executed, h)
		}
	}
	if len(executed) == 0 {
		return hunks, nil, ""
	}
	how = "the failing run executes"
	if specific := x.mostSpecific(executed); len(specific) < len(executed) {
		executed, how = specific, "the failing run executes and the fewest passing tests do"
	}
	return executed, without(hunks, executed), how
}

// mostSpecific returns the hunks of executed that the fewest passing tests
// execute (Options.Passing, counted at a hunk's most specific line), or
// executed itself when those counts are not known.
func (x *explainer) mostSpecific(executed []int) []int {
	if len(x.opts.Passing) != len(x.opts.Executed) || len(executed) == 0 {
		return executed
	}
	in := setOf(executed)
	fewest := map[int]int{}
	for i, l := range x.opts.Executed {
		for _, h := range x.hunksAt(l.File, l.Line, l.Line) {
			if n, ok := fewest[h]; in(h) && (!ok || x.opts.Passing[i] < n) {
				fewest[h] = x.opts.Passing[i]
			}
		}
	}
	least := -1
	for _, n := range fewest {
		if least < 0 || n < least {
			least = n
		}
	}
	var out []int
	for _, h := range executed {
		if n, ok := fewest[h]; ok && n == least {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return executed
	}
	return out
}
