package testbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/version"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Runtime is a package a pass injects into the module under test for its
// edits to call: real Go source, compiled and vetted with faultline and
// embedded in its binary.
type Runtime struct {
	Name  string // package name, and its directory under <module>/internal/
	Files fs.FS  // the package's source files, at the root
	Lang  string // the language version its source needs, e.g. "go1.18"; "" for none
}

// Overlay is the replaced and added files of one build, for go build
// -overlay. The files are entries of the file cache (kind "overlay") keyed
// by their target and content, so that an unchanged file keeps its path
// across builds and processes, and the user's files are never touched.
//
// Passes edit files through Edit; the edits of every pass of one build are
// applied together, once, when the overlay is finished (before it is
// built), so that one build can carry several passes.
type Overlay struct {
	m        *Module
	replace  map[string]string // target path -> file in the cache
	sums     map[string]string // target path -> content hash
	pending  map[string]*pendingFile
	finished bool
}

// pendingFile is a file the passes edit.
type pendingFile struct {
	src   []byte
	edits []Edit
	lang  string // the newest language version the edits need
}

// overlayKind is the file cache's kind of overlay files and descriptions.
const overlayKind = "overlay"

// NewOverlay starts an empty overlay.
func (m *Module) NewOverlay() (*Overlay, error) {
	return &Overlay{m: m, replace: map[string]string{}, sums: map[string]string{}, pending: map[string]*pendingFile{}}, nil
}

// Edit adds a pass's edits to target, whose original content is src. The
// edits of all passes are applied in the order the passes added them
// (Apply orders those at one offset); lang is the language version they
// need ("" for none), and the file is raised to it when the module
// declares an older one.
func (o *Overlay) Edit(target string, src []byte, edits []Edit, lang string) error {
	if o.finished {
		return fmt.Errorf("editing %s: the overlay is already built", target)
	}
	p := o.pending[target]
	if p == nil {
		p = &pendingFile{src: src}
		o.pending[target] = p
	} else if !bytes.Equal(p.src, src) {
		return fmt.Errorf("editing %s: passes saw different contents of the file", target)
	}
	for _, e := range edits {
		e.Seq = len(p.edits)
		p.edits = append(p.edits, e)
	}
	if lang != "" && (p.lang == "" || version.Compare(lang, p.lang) > 0) {
		p.lang = lang
	}
	return nil
}

// finish applies the pending edits.
func (o *Overlay) finish() error {
	if o.finished {
		return nil
	}
	targets := make([]string, 0, len(o.pending))
	for t := range o.pending {
		targets = append(targets, t)
	}
	slices.Sort(targets)
	for _, t := range targets {
		p := o.pending[t]
		if len(p.edits) == 0 {
			continue
		}
		out, err := Apply(p.src, p.edits)
		if err != nil {
			return fmt.Errorf("instrumenting %s: %w", t, err)
		}
		if NeedsUpgrade(o.m.GoVersion, p.lang) {
			out = UpgradeLanguage(out, t, p.lang)
		}
		if err := o.Put(t, out); err != nil {
			return err
		}
	}
	o.finished = true
	return nil
}

// Put makes target (an absolute path, existing or not) read as data in the
// build: an added file, or one a pass rewrites whole.
func (o *Overlay) Put(target string, data []byte) error {
	sum := Bytes(data)
	key := target + "\x00" + sum
	p, ok := o.m.files.File(overlayKind, key, filepath.Base(target))
	if !ok {
		var err error
		if p, err = o.m.files.SetFile(overlayKind, key, filepath.Base(target), data); err != nil {
			return fmt.Errorf("writing overlay file: %w", err)
		}
	}
	o.replace[target] = p
	o.sums[target] = sum
	return nil
}

// Remove makes target (an absolute path) absent from the build, as if it
// were deleted: go build -overlay reads an empty replacement path so.
func (o *Overlay) Remove(target string) {
	o.replace[target] = ""
	o.sums[target] = "deleted"
}

// Has reports whether target is replaced, added or removed.
func (o *Overlay) Has(target string) bool { _, ok := o.replace[target]; return ok }

// AddRuntime injects a runtime package and returns its import path. Its
// files are raised to the language version they need when the module
// declares an older one.
func (o *Overlay) AddRuntime(rt Runtime) (string, error) {
	dir := filepath.Join(o.m.Root, "internal", rt.Name)
	err := fs.WalkDir(rt.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := fs.ReadFile(rt.Files, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if NeedsUpgrade(o.m.GoVersion, rt.Lang) {
			data = UpgradeLanguage(data, target, rt.Lang)
		}
		return o.Put(target, data)
	})
	if err != nil {
		return "", fmt.Errorf("injecting runtime %s: %w", rt.Name, err)
	}
	return path.Join(o.m.Path, "internal", rt.Name), nil
}

// Key hashes the overlay's targets and contents, finishing it.
func (o *Overlay) Key() (string, error) {
	if err := o.finish(); err != nil {
		return "", err
	}
	d := sha256.New()
	targets := make([]string, 0, len(o.sums))
	for t := range o.sums {
		targets = append(targets, t)
	}
	slices.Sort(targets)
	for _, t := range targets {
		fmt.Fprintf(d, "%s %s\n", t, o.sums[t])
	}
	return hex.EncodeToString(d.Sum(nil)), nil
}

// file writes the overlay description the go command reads and returns
// its path.
func (o *Overlay) file() (string, error) {
	key, err := o.Key()
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(map[string]any{"Replace": o.replace})
	if err != nil {
		return "", fmt.Errorf("encoding the overlay: %w", err)
	}
	p, ok := o.m.files.File(overlayKind, key, "overlay.json")
	if !ok {
		if p, err = o.m.files.SetFile(overlayKind, key, "overlay.json", data); err != nil {
			return "", fmt.Errorf("writing the overlay: %w", err)
		}
	}
	return p, nil
}
