package localize

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/faultline-go/faultline/regress"
)

// historySource is the evidence source of the lines' change history.
const historySource = "history"

// recentCommits is how many of the newest commits among the ranked lines
// count as recent.
const recentCommits = 3

// HistoryEvidence computes, from git blame, how recently each ranked line
// last changed against the other ranked lines: recency, its time's
// mid-rank among theirs scaled to [0, 1] (1 the newest); newest, 1 when no
// ranked line changed later; recent, 1 when its change is among the three
// newest changes of the ranked lines. A failing test often fails
// because of a recent change, and an edit not committed yet is the newest
// of all. dir and rev are as regress.LineTimes takes them: the working
// tree when rev is empty. Columns are named "history.<column>"; a line
// whose file blame cannot read has none, and a ranking outside any git
// repository has no columns at all.
//
// It is not among the service's evidence sources: bench/realfaults adds
// its columns to the benchmark's rankings (realfaults augment -mirrors),
// and a head given them did better on the tuning half's inner folds but
// worse on the held-out half (bench/README.md, "How recently a line
// changed"), so no shipped model weighs them and no ranking pays for the
// blame.
func HistoryEvidence(ctx context.Context, dir, rev string, lines []RankedLine) (*Evidence, error) {
	ev := &Evidence{Columns: map[string][]float64{}}
	err := historyColumns(ctx, dir, rev, lines, ev.putter(historySource, len(lines)))
	return ev, err
}

func historyColumns(ctx context.Context, dir, rev string, lines []RankedLine, put func(string, int, float64)) error {
	if len(lines) == 0 {
		return nil
	}
	files := map[string]bool{}
	for _, l := range lines {
		files[l.File] = true
	}
	times, err := regress.LineTimes(ctx, dir, rev, slices.Sorted(maps.Keys(files)))
	if err != nil {
		if errors.Is(err, regress.ErrNoHistory) {
			return nil // not in a repository with a history: no columns, no complaint
		}
		return err
	}
	at := make([]int64, len(lines))
	var known []int64
	for i, l := range lines {
		if t := times[l.File]; l.Line >= 1 && l.Line <= len(t) && t[l.Line-1] > 0 {
			at[i] = t[l.Line-1]
			known = append(known, at[i])
		}
	}
	if len(known) == 0 {
		return nil
	}
	slices.Sort(known)
	distinct := slices.Compact(slices.Clone(known))
	recentFrom := distinct[max(0, len(distinct)-recentCommits)]
	n := float64(len(known))
	for i, t := range at {
		if t == 0 {
			continue
		}
		lo, _ := slices.BinarySearch(known, t)
		hi := lo
		for hi < len(known) && known[hi] == t {
			hi++
		}
		put("recency", i, float64(lo+hi)/2/n)
		if t == distinct[len(distinct)-1] {
			put("newest", i, 1)
		}
		if t >= recentFrom {
			put("recent", i, 1)
		}
	}
	return nil
}
