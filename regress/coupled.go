package regress

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Coupled hunks: the hunks of one declaration often compile only
// together (a local turned into a named result changes the declaration,
// the assignments and the return at once). A revert that does not compile
// first tries the other hunks of the declarations it touches as its
// auxiliary changes: one build, and a small set to shrink, where the
// names in the compiler's errors (cnt, err) point at every declaration
// that mentions them.

// declHunks maps each hunk of a change set to the top-level declarations
// it touches at the base or in the working tree, and back.
type declHunks struct {
	decls map[int][]string // hunk ID -> "file\x00key" of its declarations
	hunks map[string][]int // "file\x00key" -> hunk IDs, in order
}

// newDeclHunks parses each changed Go file's two versions once; a file
// that does not parse on either side has no coupled hunks.
func newDeclHunks(cs *changeSet) *declHunks {
	d := &declHunks{decls: map[int][]string{}, hunks: map[string][]int{}}
	for _, f := range cs.files {
		if !f.HasOld || !f.HasNew {
			continue
		}
		cmp, err := newDeclComparer(f.Old, f.New)
		if err != nil {
			continue
		}
		for _, h := range f.Hunks {
			seen := map[string]bool{}
			add := func(ds []topDecl, pf *parsedFile) {
				for _, td := range ds {
					if td.key == "import" || td.key == "package" || pf.keys[td.key] != 1 {
						continue // imports couple everything; a key declared twice pairs nothing
					}
					k := f.Rel + "\x00" + td.key
					if !seen[k] {
						seen[k] = true
						d.decls[h.ID] = append(d.decls[h.ID], k)
						d.hunks[k] = append(d.hunks[k], h.ID)
					}
				}
			}
			add(cmp.old.touched(h.OldStart, h.OldCount), cmp.old)
			add(cmp.new.touched(h.NewStart, h.NewCount), cmp.new)
		}
	}
	return d
}

// sameDecl returns the hunks outside set that touch a declaration a hunk
// of set touches.
func (d *declHunks) sameDecl(set []int) []int {
	in := setOf(set)
	var out []int
	for _, id := range set {
		for _, k := range d.decls[id] {
			for _, other := range d.hunks[k] {
				if !in(other) {
					out = append(out, other)
				}
			}
		}
	}
	return sorted(out)
}

// addedDecls maps each name the working tree declares at top level and
// the base does not (in the same file) to the hunks holding its
// declaration: new functions, methods, types, variables and constants.
func addedDecls(cs *changeSet) map[string][]int {
	out := map[string][]int{}
	for _, f := range cs.files {
		if !f.HasNew || !strings.HasSuffix(f.Rel, ".go") {
			continue
		}
		n, err := parseDecls(f.New)
		if err != nil {
			continue
		}
		oldKeys := map[string]int{}
		if f.HasOld {
			o, err := parseDecls(f.Old)
			if err != nil {
				continue
			}
			oldKeys = o.keys
		}
		for _, d := range n.decls {
			name := declName(d.key)
			if name == "" || oldKeys[d.key] > 0 || n.keys[d.key] != 1 {
				continue
			}
			for _, h := range f.Hunks {
				if h.NewCount > 0 && h.touches(d.first, d.last) {
					out[name] = append(out[name], h.ID)
				}
			}
		}
	}
	return out
}

// declName is the one name a declaration key declares ("func T.m" → m),
// or "" for imports, the package clause and groups of several names.
func declName(key string) string {
	kind, names, ok := strings.Cut(key, " ")
	if !ok || kind == "import" || strings.Contains(names, ",") {
		return ""
	}
	if kind == "func" {
		if i := strings.LastIndexByte(names, '.'); i >= 0 {
			names = names[i+1:]
		}
	}
	if names == "init" || names == "_" || names == "main" {
		return ""
	}
	return names
}

// addedUsed returns the hunks declaring what hunk h starts to use: the
// names its new text mentions and its old text does not, which the change
// set adds, and whose declarations the failing run executes.
func addedUsed(h *Hunk, added map[string][]int, executed func(int) bool) []int {
	oldText, newText := strings.Join(h.Old, ""), strings.Join(h.New, "")
	var out []int
	for name, ids := range added {
		if slices.Contains(ids, h.ID) || !mentions(newText, name) || mentions(oldText, name) {
			continue
		}
		if slices.ContainsFunc(ids, executed) {
			out = append(out, ids...)
		}
	}
	return sorted(out)
}

// undodge replaces each root change that only starts to use code the
// change set adds (a call of a new function) by that code's declarations,
// when the failing run executes them and reverting them (with the uses
// they need to compile) passes too: reverting the use only keeps the
// failing run out of the new code, the dodge AFTER means to avoid. When
// the budget runs out the root stays as it was.
func (x *explainer) undodge(ctx context.Context, root []int) ([]int, error) {
	added := addedDecls(x.cs)
	if len(added) == 0 {
		return root, nil
	}
	executed := setOf(x.executed)
	for _, r := range slices.Clone(root) {
		decls := without(without(addedUsed(x.cs.hunks[r], added, executed), x.neutral), root)
		if len(decls) == 0 {
			continue
		}
		next := union(without(root, []int{r}), decls)
		ok, err := x.o.passes(ctx, next)
		if errors.Is(err, errBudget) {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		if ok {
			x.say("the root change %s:%d only uses code the changes add: the code the failing run executes there is the root instead", x.cs.hunks[r].File, x.cs.hunks[r].NewStart)
			root = next
		}
	}
	return root, nil
}

// maxStandalone bounds the auxiliary hunks standalone tries: each costs a
// build.
const maxStandalone = 8

// standalone replaces a root change that builds only with auxiliary hunks
// by one of those hunks whose revert alone builds and passes. Delta
// debugging takes the first part whose completed revert passes; when the
// hunks of a rewritten statement compile only together but one (a switch
// given a tag, and a new case), the part tried first was named the root
// and the new case, which alone makes the test pass, its auxiliary change.
// Only hunks that add code without replacing any are tried: removing
// added code whole is the revert that can build alone, while a rewritten
// line (a header, a return) is what couples the hunks.
func (x *explainer) standalone(ctx context.Context, root []int) ([]int, error) {
	aux, err := x.o.auxFor(ctx, root)
	if errors.Is(err, errBudget) {
		return root, nil
	}
	if err != nil || len(aux) == 0 || len(aux) > maxStandalone {
		return root, err
	}
	for _, a := range aux {
		if h := x.cs.hunks[a]; len(h.Old) > 0 || len(h.New) == 0 {
			continue
		}
		v, err := x.o.outcome(ctx, []int{a})
		if errors.Is(err, errBudget) {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		if v.Verdict == pass {
			h := x.cs.hunks[a]
			x.say("the auxiliary change %s:%d alone builds and makes the test pass: it is the root", h.File, h.NewStart)
			return []int{a}, nil
		}
	}
	return root, nil
}
