package testbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/version"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
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
// -overlay. The files live in a content-addressed directory beside the
// module's other caches, so that an unchanged file keeps its path across
// builds and processes, and the user's files are never touched.
//
// Passes edit files through Edit; the edits of every pass of one build are
// applied together, once, when the overlay is finished (before it is
// built), so that one build can carry several passes.
type Overlay struct {
	m        *Module
	dir      string
	replace  map[string]string // target path -> file in dir
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

// overlayLifetime is how long an overlay file no build used is kept.
const overlayLifetime = 14 * 24 * time.Hour

// NewOverlay starts an empty overlay.
func (m *Module) NewOverlay() (*Overlay, error) {
	// The directory's name starts with "_" so that the go command never
	// takes it for a package should the cache sit inside a module.
	dir := filepath.Join(m.cacheDir, "_overlay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the overlay directory: %w", err)
	}
	PruneOld(dir, overlayLifetime)
	return &Overlay{m: m, dir: dir, replace: map[string]string{}, sums: map[string]string{}, pending: map[string]*pendingFile{}}, nil
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
	name := sha256.Sum256([]byte(target + "\x00" + sum))
	p := filepath.Join(o.dir, hex.EncodeToString(name[:12])+"_"+filepath.Base(target))
	now := time.Now()
	if os.Chtimes(p, now, now) != nil { // absent: write it
		if err := writeFileAtomic(p, data); err != nil {
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
	p := filepath.Join(o.dir, key[:24]+".json")
	now := time.Now()
	if os.Chtimes(p, now, now) != nil {
		if err := writeFileAtomic(p, data); err != nil {
			return "", fmt.Errorf("writing the overlay: %w", err)
		}
	}
	return p, nil
}

// PruneOld removes the files of a cache directory that nothing used for
// lifetime (every use touches them).
func PruneOld(dir string, lifetime time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > lifetime {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
