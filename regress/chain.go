package regress

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/analysis"
)

// edgeText says how a critical predicate bears on the cause it hangs from.
func edgeText(p *analysis.Predicate) string {
	if p.Kind == "potential" {
		return fmt.Sprintf("its other direction would have assigned %s, which line %d reads", p.Var, p.Of.Line)
	}
	return fmt.Sprintf("decides whether line %d runs", p.Of.Line)
}

// chain flattens the tree into the statements from the changes to the
// failed check: the deepest causes first, each followed by the predicate
// it explains, down to the failed check's cause and the check.
func chain(tree []CauseNode) []CauseStep {
	depth := func(i int) int {
		d := 0
		for ; tree[i].Parent >= 0; i = tree[i].Parent {
			d++
		}
		return d
	}
	order := make([]int, len(tree))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return depth(b) - depth(a) })
	out := []CauseStep{}
	at := map[string]int{}
	add := func(s CauseStep) int {
		k := fmt.Sprintf("%s:%d", s.File, s.Line)
		if i, ok := at[k]; ok {
			return i
		}
		at[k] = len(out)
		out = append(out, s)
		return len(out) - 1
	}
	for _, i := range order {
		for _, s := range tree[i].Statements {
			add(s)
		}
		j := add(tree[i].Outcome)
		if tree[i].Parent >= 0 && tree[i].Edge != "" {
			out[j].Why = strings.TrimSpace(out[j].Why + "; " + tree[i].Edge)
		}
	}
	return out
}

// count is "1 run", "2 runs".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
