package regress

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
