package rank

import (
	"fmt"
	"strconv"
	"strings"
)

// entry is one registered formula.
type entry struct {
	aliases []string // normalized spellings besides the canonical name
	formula Formula
}

// registry is the table of named formulas, default first. It is built on
// each call so that the package holds no mutable state.
func registry() []entry {
	dstar2, _ := DStar(2)
	return []entry{
		{nil, Default()},
		{nil, measure{"tarantula", true, tarantula}},
		{nil, measure{"jaccard", true, jaccard}},
		{[]string{"d*", "dstar"}, dstar2},
		{nil, measure{"op2", false, op2}},
		{nil, measure{"barinel", true, barinel}},
		{[]string{"op1"}, measure{"naish1", false, naish1}},
		{nil, measure{"naish2", false, op2}},
		{[]string{"kulczynski"}, measure{"kulczynski2", true, kulczynski2}},
		{nil, measure{"ochiai2", false, ochiai2}},
		{nil, measure{"zoltar", true, zoltar}},
		{nil, measure{"anderberg", true, anderberg}},
		{[]string{"sørensen-dice", "dice"}, measure{"sorensen-dice", true, sorensenDice}},
		{nil, measure{"russell-rao", true, russellRao}},
		{nil, measure{"wong1", false, wong1}},
		{nil, measure{"gp13", false, gp13}},
	}
}

// normalize folds case, the Danish ø, dashes, underscores and spaces, so that
// "Russell_Rao", "russellrao" and "russell-rao" name the same formula.
func normalize(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch r {
		case '-', '_', ' ', '–':
		case 'ø':
			b.WriteRune('o')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Names returns the canonical names of the registered formulas, default
// (ochiai) first.
func Names() []string {
	reg := registry()
	names := make([]string, len(reg))
	for i, e := range reg {
		names[i] = e.formula.Name()
	}
	return names
}

// Lookup returns the formula with the given name, ignoring case, dashes,
// underscores and spaces. Besides the names of Names (and aliases such as
// "op1" for naish1), "dstarN" selects D* with exponent N, and "opt-NAME"
// wraps a bounded formula NAME in Opt.
func Lookup(name string) (Formula, error) {
	key := normalize(name)
	if base, ok := strings.CutPrefix(key, "opt"); ok && base != "" {
		f, err := Lookup(base)
		if err != nil {
			return nil, fmt.Errorf("formula %q: %w", name, err)
		}
		return Opt(f)
	}
	if digits, ok := strings.CutPrefix(key, "dstar"); ok && digits != "" {
		star, err := strconv.Atoi(digits)
		if err != nil {
			return nil, fmt.Errorf("formula %q: exponent %q is not an integer", name, digits)
		}
		return DStar(star)
	}
	for _, e := range registry() {
		if key == normalize(e.formula.Name()) {
			return e.formula, nil
		}
		for _, a := range e.aliases {
			if key == normalize(a) {
				return e.formula, nil
			}
		}
	}
	return nil, fmt.Errorf("unknown formula %q; valid: %s, dstarN (D* with exponent N), opt-NAME (NAME bounded: %s)",
		name, strings.Join(Names(), ", "), strings.Join(boundedNames(), ", "))
}

func boundedNames() []string {
	var names []string
	for _, e := range registry() {
		if e.formula.Bounded() {
			names = append(names, e.formula.Name())
		}
	}
	return names
}
