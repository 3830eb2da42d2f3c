//go:build cgo

package localize

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// InOrder makes, from what a localization holds, the very ranking
// Localize makes when asked for that order; under the learned order it
// takes what does not depend on the analyses from the prior evidence.
func TestInOrderMatchesLocalize(t *testing.T) {
	needZ3(t)
	s, m := module(t, "foo.txtar")
	ctx := context.Background()
	var learned *Localization
	for _, order := range Orders {
		want, err := s.Localize(ctx, m, Options{Angelic: true, Order: order}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want.Angelic == nil || len(want.Angelic.Fixes) == 0 {
			t.Fatalf("%s: no verified fix to order by: %+v", order, want.Angelic)
		}
		for _, from := range Orders { // whatever order the localization was made in
			base, err := s.Localize(ctx, m, Options{Angelic: true, Order: from}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := InOrder(base, order, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Ranking, want.Ranking) {
				t.Errorf("InOrder(a %s localization, %s) differs from Localize's:\n got %+v\nwant %+v", from, order, got.Ranking.Lines[:3], want.Ranking.Lines[:3])
			}
		}
		if order == OrderLearned {
			learned = want
		}
	}

	first, err := InOrder(learned, OrderLearned, nil)
	if err != nil {
		t.Fatal(err)
	}
	prior := &Evidence{Columns: map[string][]float64{}}
	for name, c := range first.Evidence.Columns {
		prior.Columns[name] = slices.Clone(c)
	}
	marked := make([]float64, len(learned.Base.Lines))
	prior.Columns["static.marked"] = marked // not the analyses': taken as it is
	for i := range prior.Columns["angelic.fix"] {
		prior.Columns["angelic.fix"][i] = 0 // the analyses': gathered again
	}
	again, err := InOrder(learned, OrderLearned, prior)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := again.Evidence.Columns["static.marked"]; !ok || &c[0] != &marked[0] {
		t.Error("the prior's static columns were gathered again")
	}
	if !reflect.DeepEqual(again.Evidence.Columns["angelic.fix"], first.Evidence.Columns["angelic.fix"]) {
		t.Error("the angelic columns were taken from the prior")
	}

	if _, err := InOrder(learned, "best", nil); err == nil {
		t.Error("an unknown order gave no error")
	}
}
