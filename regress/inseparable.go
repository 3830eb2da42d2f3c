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
// cannot be told apart from them, and all are reported as roots, with a
// note saying so. When the budget runs out the roles stay as they are.
func (x *explainer) separate(ctx context.Context, root, aux []int) ([]int, []int, error) {
	if len(aux) <= maxUnconfirmedAux {
		return root, aux, nil
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
	roots := without(union(root, aux), kept)
	x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("the root changes needed %d other changes to compile, which %s: the revert cannot tell them apart, so all %d are reported as roots", len(aux), why, len(roots)))
	return roots, kept, nil
}
