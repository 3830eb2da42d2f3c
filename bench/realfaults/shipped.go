package main

import (
	"fmt"
	"slices"

	"github.com/faultline-go/faultline/internal/localize"
)

// runScore ranks every fault with the shipped model (the one in the
// binary), learning nothing: it says how the default order does on
// rankings made after the model was trained, such as new evidence from a
// changed analysis.
func runScore(args []string) error {
	fs, benchPath, work := rankingsFlagSet("score", "eval's directory (rankings under work/eval); faults not evaluated there are left out")
	seeded := fs.String("seeded", "", "directory of bench/effectiveness -rankings output (seeded faults)")
	seededSrc := fs.String("seeded-src", "", "comma-separated roots of the seeded faults' modules: the shipped model orders by function")
	out := fs.String("out", "-", "markdown report (- for standard output)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	all, _, err := loadCases(*benchPath, *work, *seeded, *seededSrc)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return fmt.Errorf("no rankings: none under %s/eval and no -seeded directory", *work)
	}
	m := localize.ShippedModel()
	ords := orders(m)
	res, err := evaluate(all, ords)
	if err != nil {
		return err
	}
	w, closeOut, err := createOut(*out)
	if err != nil {
		return err
	}
	defer closeOut()
	fmt.Fprintf(w, "# The shipped model (%s, default %s) on the rankings given\n", m.Name, m.Default)
	isReal := func(c *scoredCase) bool { return !c.Seeded }
	isSeeded := func(c *scoredCase) bool { return c.Seeded }
	for _, t := range []struct {
		title string
		keep  func(*scoredCase) bool
	}{
		{"Real faults, held-out half", func(c *scoredCase) bool { return isReal(c) && c.HeldOut }},
		{"Real faults, all", isReal},
		{"Seeded faults, held-out half", func(c *scoredCase) bool { return isSeeded(c) && c.HeldOut }},
		{"Seeded faults, all", isSeeded},
	} {
		writeTable(w, t.title, all, ords, res, t.keep)
	}
	var projects []string
	for _, c := range all {
		if !c.Seeded && !slices.Contains(projects, c.Group) {
			projects = append(projects, c.Group)
		}
	}
	slices.Sort(projects)
	heldOut := func(p string) string {
		if slices.ContainsFunc(all, func(c *scoredCase) bool { return !c.Seeded && c.Group == p && c.HeldOut }) {
			return p + " *"
		}
		return p
	}
	writeProjects(w, "Real faults by project (held-out projects marked *)", all, ords, res, projects, heldOut)
	return nil
}
