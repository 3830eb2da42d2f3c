package regress

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestSeparateRoles checks that a root with many auxiliary hunks keeps its
// role only when the auxiliary hunks reverted alone build and the test
// still fails; otherwise all are reported as roots, with a note.
func TestSeparateRoles(t *testing.T) {
	root := []int{0}
	many := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		name      string
		aux       []int
		verdict   verdict // of reverting aux alone; "" when it must not be asked
		wantRoots []int
	}{
		{"few auxiliary hunks", []int{1, 2, 3}, "", root},
		{"auxiliary hunks alone fail", many, fail, root},
		{"auxiliary hunks alone do not build", many, noBuild, append([]int{0}, many...)},
		{"auxiliary hunks alone pass", many, pass, append([]int{0}, many...)},
	} {
		o := &oracle{verdicts: map[string]outcome{}}
		if c.verdict != "" {
			o.verdicts[key(c.aux)] = outcome{Verdict: c.verdict}
		}
		x := &explainer{ex: &Explanation{}, o: o}
		gotRoot, gotAux, err := x.separate(context.Background(), root, c.aux)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(gotRoot, c.wantRoots) {
			t.Errorf("%s: roots %v, want %v", c.name, gotRoot, c.wantRoots)
		}
		merged := len(c.wantRoots) > len(root)
		if merged != (len(gotAux) == 0) || merged != (len(x.ex.Notes) == 1 && strings.Contains(x.ex.Notes[0], "cannot tell them apart")) {
			t.Errorf("%s: auxiliary %v, notes %q", c.name, gotAux, x.ex.Notes)
		}
	}
}

// TestSeparateKeepsNeutralHunksAuxiliary checks that when the roots and
// their auxiliary hunks cannot be told apart, a neutral hunk among the
// auxiliary ones (a revert completed from every other hunk takes them
// too) stays auxiliary: it changes no behaviour, so it is never a root.
func TestSeparateKeepsNeutralHunksAuxiliary(t *testing.T) {
	aux := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	o := &oracle{verdicts: map[string]outcome{key(aux): {Verdict: noBuild}}}
	x := &explainer{ex: &Explanation{}, o: o, neutral: []int{4}}
	roots, gotAux, err := x.separate(context.Background(), []int{0}, aux)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(roots, 4) || !slices.Equal(gotAux, []int{4}) || len(roots) != 9 {
		t.Errorf("roots %v, auxiliary %v; want the neutral hunk 4 auxiliary and the other nine roots", roots, gotAux)
	}
}
