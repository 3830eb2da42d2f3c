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

// TestSeparateByTheFailingRun checks that when reverts cannot tell the
// roots from their auxiliary hunks, the hunks the failing run executes are
// the roots and the others what they need to compile; with none of them
// executed, or the run unknown, all stay roots.
func TestSeparateByTheFailingRun(t *testing.T) {
	aux := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	all := append([]int{0}, aux...)
	for _, c := range []struct {
		name      string
		executed  []int
		wantRoots []int
	}{
		{"some executed", []int{0, 3, 42}, []int{0, 3}},
		{"one auxiliary hunk executed", []int{7}, []int{7}},
		{"none executed", []int{42}, all},
		{"run unknown", nil, all},
		{"all executed", all, all},
	} {
		o := &oracle{verdicts: map[string]outcome{key(aux): {Verdict: noBuild}}}
		x := &explainer{ex: &Explanation{}, o: o, executed: c.executed}
		roots, gotAux, err := x.separate(context.Background(), []int{0}, aux)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(roots, c.wantRoots) {
			t.Errorf("%s: roots %v, want %v", c.name, roots, c.wantRoots)
		}
		if want := without(all, c.wantRoots); !slices.Equal(gotAux, want) {
			t.Errorf("%s: auxiliary %v, want %v", c.name, gotAux, want)
		}
		if len(x.ex.Notes) != 1 || !strings.Contains(x.ex.Notes[0], "cannot tell them apart") {
			t.Errorf("%s: notes %q", c.name, x.ex.Notes)
		}
	}
}

// TestSeparateBySpecificity checks that among the executed hunks the roots
// are those the fewest passing tests execute, counted at each hunk's most
// specific line, and that without the counts every executed hunk is one.
func TestSeparateBySpecificity(t *testing.T) {
	var hunks []*Hunk
	for id := range 10 {
		hunks = append(hunks, &Hunk{ID: id, File: "a.go", NewStart: 10 * (id + 1), NewCount: 2})
	}
	aux := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	// Hunks 0, 3 and 5 are executed; 3 and 5 each have a line only one
	// passing test runs, 0 only lines that four do.
	executed := []Line{{"a.go", 10}, {"a.go", 11}, {"a.go", 40}, {"a.go", 41}, {"a.go", 60}}
	passing := []int{4, 4, 7, 1, 1}
	for _, c := range []struct {
		name      string
		passing   []int
		wantRoots []int
	}{
		{"counts known", passing, []int{3, 5}},
		{"counts not known", nil, []int{0, 3, 5}},
	} {
		o := &oracle{verdicts: map[string]outcome{key(aux): {Verdict: pass}}}
		x := &explainer{ex: &Explanation{}, o: o, cs: &changeSet{files: []*fileChange{{Rel: "a.go", Hunks: hunks}}, hunks: hunks},
			opts: Options{Executed: executed, Passing: c.passing}, executed: []int{0, 3, 5}}
		roots, gotAux, err := x.separate(context.Background(), []int{0}, aux)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(roots, c.wantRoots) || !slices.Equal(gotAux, without(append([]int{0}, aux...), c.wantRoots)) {
			t.Errorf("%s: roots %v, auxiliary %v; want roots %v", c.name, roots, gotAux, c.wantRoots)
		}
	}
}

// TestSeparateLargeRoot checks that a root of more than maxUnconfirmedAux
// hunks (a rewrite delta debugging could not split) is narrowed to the
// hunks the failing run executes, with a note, and stays whole when the
// run executes none of them.
func TestSeparateLargeRoot(t *testing.T) {
	root := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		name      string
		executed  []int
		wantRoots []int
	}{
		{"two executed", []int{2, 7}, []int{2, 7}},
		{"none executed", []int{11}, root},
	} {
		x := &explainer{ex: &Explanation{}, o: &oracle{verdicts: map[string]outcome{}}, executed: c.executed}
		roots, aux, err := x.separate(context.Background(), root, []int{10})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(roots, c.wantRoots) || !slices.Equal(aux, union([]int{10}, without(root, c.wantRoots))) {
			t.Errorf("%s: roots %v, auxiliary %v; want roots %v", c.name, roots, aux, c.wantRoots)
		}
		if narrowed := len(c.wantRoots) < len(root); narrowed != (len(x.ex.Notes) == 1) {
			t.Errorf("%s: notes %q", c.name, x.ex.Notes)
		}
	}
}
