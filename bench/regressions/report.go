package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strings"
)

// half is the half of the benchmark a project's regressions fall in, by a
// stable hash of its repository: tuning or held-out.
func half(repo string) string {
	h := fnv.New32a()
	h.Write([]byte(repo))
	if h.Sum32()%2 == 0 {
		return "tuning"
	}
	return "held-out"
}

// score is one measurement judged against its regression's truth.
type score struct {
	reported, trueReported int // root changes, those in a truth hunk
	truth, found           int // truth hunks, those some root change is in
}

// contains: the report holds a true hunk; only: it holds nothing else.
func (s score) contains() bool { return s.trueReported > 0 }
func (s score) only() bool     { return s.reported > 0 && s.trueReported == s.reported }

// judge scores a measurement: a root change is true when its lines
// overlap a truth hunk's (a change that only deletes, when it stands
// inside or at the edge of one).
func judge(r Regression, m Measurement) score {
	s := score{reported: len(m.Roots), truth: len(r.Truth)}
	hit := make([]bool, len(r.Truth))
	for _, c := range m.Roots {
		first, last := c.Line, c.EndLine
		if last < first {
			first, last = c.Line-1, c.Line
		}
		in := false
		for i, h := range r.Truth {
			if h.File == c.File && first <= h.Start+h.Count-1 && h.Start <= last {
				hit[i], in = true, true
			}
		}
		if in {
			s.trueReported++
		}
	}
	for _, h := range hit {
		if h {
			s.found++
		}
	}
	return s
}

func runReport(args []string) error {
	flags := flag.NewFlagSet("report", flag.ContinueOnError)
	in := flags.String("regressions", defaultRegressions, "the regressions file")
	measured := flags.String("measured", defaultMeasured, "the measurements file")
	table := flags.String("table", "bench/regressions.md", "write the per-regression table here")
	if err := flags.Parse(args); err != nil {
		return err
	}
	b, err := loadRegressions(*in)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(*measured)
	if err != nil {
		return err
	}
	var ms []Measurement
	if err := json.Unmarshal(data, &ms); err != nil {
		return fmt.Errorf("%s: %w", *measured, err)
	}
	byID := map[string]Regression{}
	for _, r := range b.Regressions {
		byID[r.ID] = r
	}
	writeSummary(os.Stdout, b, byID, ms)
	f, err := os.Create(*table)
	if err != nil {
		return err
	}
	writeTable(f, b, ms)
	return f.Close()
}

// writeSummary prints the figures per strategy, for both halves and each.
func writeSummary(w io.Writer, b *Benchmark, byID map[string]Regression, ms []Measurement) {
	projects := map[string]bool{}
	for _, r := range b.Regressions {
		projects[r.Repo] = true
	}
	fmt.Fprintf(w, "%d regressions from %d projects, mined from %d faults (%d candidate introducing commits).\n\nDropped:\n\n", len(b.Regressions), len(projects), b.Faults, b.Candidates)
	reasons := make([]string, 0, len(b.Dropped))
	for k := range b.Dropped {
		reasons = append(reasons, k)
	}
	slices.SortFunc(reasons, func(x, y string) int { return b.Dropped[y] - b.Dropped[x] })
	for _, k := range reasons {
		fmt.Fprintf(w, "- %d: %s\n", b.Dropped[k], k)
	}
	writeNamed(w, b)
	fmt.Fprintf(w, "\n| half | strategy | measured | contains a true hunk | only true hunks | precision | recall | no root reported | median time | mean reruns | mean builds |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, h := range []string{"all", "tuning", "held-out", sourceSZZ, sourceNamed} {
		for _, strategy := range []string{"after", "ddmin"} {
			var n, contains, only, none, reruns, builds int
			var prec, rec float64
			var times []float64
			for _, m := range ms {
				r, ok := byID[m.ID]
				if !ok || m.Strategy != strategy || !inRow(h, r) {
					continue
				}
				n++
				s := judge(r, m)
				if s.contains() {
					contains++
				}
				if s.only() {
					only++
				}
				if s.reported == 0 {
					none++
				} else {
					prec += float64(s.trueReported) / float64(s.reported)
				}
				rec += float64(s.found) / float64(s.truth)
				reruns += m.Reruns
				builds += m.Builds
				times = append(times, m.Wall)
			}
			if n == 0 {
				continue
			}
			precision := "–"
			if n > none {
				precision = fmt.Sprintf("%.2f", prec/float64(n-none))
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d (%.0f %%) | %d (%.0f %%) | %s | %.2f | %d | %.0fs | %.1f | %.1f |\n", h, strategy, n,
				contains, pct(contains, n), only, pct(only, n), precision, rec/float64(n), none, median(times),
				float64(reruns)/float64(n), float64(builds)/float64(n))
		}
	}
}

// inRow says whether a regression counts in a row of the figures: all,
// a half, or a source.
func inRow(row string, r Regression) bool {
	switch row {
	case "all":
		return true
	case sourceSZZ, sourceNamed:
		return r.Source == row
	}
	return half(r.Repo) == row
}

// writeNamed prints the regressions by source and by project, and what
// the second source's filters dropped.
func writeNamed(w io.Writer, b *Benchmark) {
	bySource, byProject := map[string]int{}, map[string]int{}
	for _, r := range b.Regressions {
		bySource[r.Source]++
		byProject[r.Repo[strings.LastIndex(r.Repo, "/")+1:]]++
	}
	fmt.Fprintf(w, "\nBy source: %d szz, %d message. Second source: %d fixes naming %d commits.\n\nDropped:\n\n",
		bySource[sourceSZZ], bySource[sourceNamed], b.Named.Fixes, b.Named.Candidates)
	reasons := make([]string, 0, len(b.Named.Dropped))
	for k := range b.Named.Dropped {
		reasons = append(reasons, k)
	}
	slices.SortFunc(reasons, func(x, y string) int { return b.Named.Dropped[y] - b.Named.Dropped[x] })
	for _, k := range reasons {
		fmt.Fprintf(w, "- %d: %s\n", b.Named.Dropped[k], k)
	}
	projects := make([]string, 0, len(byProject))
	for p := range byProject {
		projects = append(projects, p)
	}
	slices.SortFunc(projects, func(x, y string) int {
		if d := byProject[y] - byProject[x]; d != 0 {
			return d
		}
		return strings.Compare(x, y)
	})
	fmt.Fprintf(w, "\nBy project:")
	for _, p := range projects {
		fmt.Fprintf(w, " %s %d", p, byProject[p])
	}
	fmt.Fprintln(w)
}

// writeTable writes the per-regression table.
func writeTable(w io.Writer, b *Benchmark, ms []Measurement) {
	fmt.Fprintf(w, "# Real regressions: faultline explain against the SZZ truth\n\n")
	fmt.Fprintf(w, "Mined and measured by bench/regressions (see bench/README.md, \"Real regressions (faultline explain)\"). ")
	fmt.Fprintf(w, "Introducing commits blamed for a real fault's lines (SZZ; source: the fault) or named by the fix's message (source: the fix and the reference). Truth: the introducing commit's hunks holding lines the fix deletes or changes. ")
	fmt.Fprintf(w, "For each strategy: root changes reported (true ones), truth hunks found, reruns, builds, time; or why nothing was reported.\n\n")
	fmt.Fprintf(w, "| regression | half | source | introducing commit | test | commits to failure | diff (files/hunks/lines) | truth hunks | AFTER | ddmin |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range b.Regressions {
		cell := map[string]string{}
		for _, m := range ms {
			if m.ID != r.ID {
				continue
			}
			s := judge(r, m)
			switch {
			case m.Error != "":
				cell[m.Strategy] = "error: " + cutText(m.Error, 80)
			case m.Message != "":
				cell[m.Strategy] = cutText(m.Message, 80)
			default:
				c := fmt.Sprintf("%d (%d true), %d/%d found, %d reruns, %d builds, %.0fs", s.reported, s.trueReported, s.found, s.truth, m.Reruns, m.Builds, m.Wall)
				if m.NoRoot != "" {
					c += ", fell back: " + m.NoRoot
				}
				cell[m.Strategy] = c
			}
		}
		source := r.Fault
		if r.Source == sourceNamed {
			source = fmt.Sprintf("fix %s names %s", r.Fix[:7], r.NamedAs)
		}
		migrated := ""
		if r.Migrated {
			migrated = " (migrated)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s %s %q | %s%s | %d | %d/%d/%d | %d | %s | %s |\n", r.ID, half(r.Repo), source, r.Introducing[:10], r.Date[:10],
			cutText(r.Subject, 50), strings.ReplaceAll(r.Test, "|", "\\|"), migrated, r.Between, r.Diff.GoFiles, r.Diff.Hunks, r.Diff.Lines, len(r.Truth), cell["after"], cell["ddmin"])
	}
}

func pct(a, n int) float64 { return 100 * float64(a) / float64(n) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func cutText(s string, n int) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
