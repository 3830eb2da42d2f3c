package testbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// Package is a package of the main module as go list describes it.
type Package struct {
	ImportPath      string
	Name            string
	Dir             string
	GoFiles         []string
	CgoFiles        []string
	EmbedFiles      []string
	TestGoFiles     []string
	XTestGoFiles    []string
	TestEmbedFiles  []string
	XTestEmbedFiles []string
	IgnoredGoFiles  []string
	InvalidGoFiles  []string
	Imports         []string
	TestImports     []string
	XTestImports    []string
	Module          *struct{ Path, Dir, GoVersion string }
	Error           *struct{ Err string }
	Match           []string // the command-line patterns that selected the package
}

// HasTests reports whether the package has test files.
func (p *Package) HasTests() bool { return len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 }

// listFields are the fields go list is asked for: naming them spares it the
// staleness computation, which costs more than the listing itself.
const listFields = "ImportPath,Name,Dir,GoFiles,CgoFiles,EmbedFiles,TestGoFiles,XTestGoFiles,TestEmbedFiles,XTestEmbedFiles,IgnoredGoFiles,InvalidGoFiles,Imports,TestImports,XTestImports,Module,Error,Match"

// Listing is the module's packages and those selected by some patterns.
type Listing struct {
	All       []*Package // every package of the main module (./... at the root)
	Requested []*Package // the packages the patterns matched, in the main module
	// Reused says the listing was taken from the cache: no file or
	// directory it was made from changed since.
	Reused bool
	// Misses are the patterns that select no package of the module, as
	// go test would refuse them; a listing with misses is never cached.
	Misses []Miss

	byPath map[string]*Package
}

// Package returns the module package with the import path, or nil.
func (l *Listing) Package(path string) *Package {
	if l.byPath == nil {
		l.byPath = map[string]*Package{}
		for _, p := range l.All {
			l.byPath[p.ImportPath] = p
		}
	}
	return l.byPath[path]
}

// Closure returns the module packages p's test binary is built from: p
// first, then every module package its code and tests import, directly or
// not, sorted by import path.
func (l *Listing) Closure(p *Package) []*Package {
	seen := map[string]bool{p.ImportPath: true}
	out := []*Package{p}
	var visit func(imports []string)
	visit = func(imports []string) {
		for _, imp := range imports {
			q := l.Package(imp)
			if q == nil || seen[imp] {
				continue
			}
			seen[imp] = true
			out = append(out, q)
			visit(q.Imports)
		}
	}
	visit(p.Imports)
	visit(p.TestImports)
	visit(p.XTestImports)
	slices.SortFunc(out[1:], func(a, b *Package) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return out
}

// Miss is a pattern that selects no package of the module.
type Miss struct {
	Pattern string
	Reason  string // go list's reason, or why the packages it matched do not count
}

func (m Miss) String() string { return "pattern " + m.Pattern + ": " + m.Reason }

// PatternError reports the patterns that select no package of the module;
// like go test, a run given such a pattern does not start.
type PatternError struct{ Misses []Miss }

func (e *PatternError) Error() string {
	var parts []string
	for _, m := range e.Misses {
		parts = append(parts, m.String())
	}
	return strings.Join(parts, "; ")
}

// listingFormat changes when the cached listing's encoding does.
const listingFormat = "faultline-listing-2"

// cachedListing is a listing with what it was made from.
type cachedListing struct {
	Format      string
	Fingerprint string
	Patterns    []string
	Dir         string
	Stamps      map[string]stamp // every directory walked and file listed
	All         []*Package
	Requested   []string // import paths
}

// ListPackage lists the module (List with no patterns) and returns the
// listing with its package of the given import path, an error naming the
// module when it has no such package.
func (m *Module) ListPackage(ctx context.Context, path string) (*Listing, *Package, error) {
	listing, err := m.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	pkg := listing.Package(path)
	if pkg == nil {
		return nil, nil, fmt.Errorf("%s is not a package of module %s", path, m.Path)
	}
	return listing, pkg, nil
}

// List lists the module's packages and those the patterns select (in the
// directory the module was opened in; none means ./...). A listing made
// earlier is reused when the go command's environment, every directory of
// the module and every file the listing named are unchanged: nothing a go
// list could see has changed then.
func (m *Module) List(ctx context.Context, patterns ...string) (*Listing, error) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	fp := m.envFingerprint()
	sum := sha256.Sum256([]byte(strings.Join(patterns, "\x00") + "\x00" + m.dir))
	cachePath := filepath.Join(m.cacheDir, "listing-"+hex.EncodeToString(sum[:8]))
	if l := m.cachedListing(cachePath, fp, patterns); l != nil {
		return l, nil
	}
	start := time.Now()
	var all, requested, outside []*Package
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		all, _, err = m.goList(gctx, m.Root, "./...")
		if err != nil {
			return fmt.Errorf("listing the module's packages: %w", err)
		}
		return nil
	})
	wholeModule := m.dir == m.Root && len(patterns) == 1 && patterns[0] == "./..."
	if !wholeModule {
		g.Go(func() (err error) {
			requested, outside, err = m.goList(gctx, m.dir, patterns...)
			if err != nil {
				return fmt.Errorf("listing %s: %w", strings.Join(patterns, " "), err)
			}
			return nil
		})
	}
	var stamps map[string]stamp
	g.Go(func() (err error) {
		stamps, err = m.treeStamps()
		return err
	})
	// What keys ask next, asked meanwhile: a module listed anew may well
	// have a new environment too.
	g.Go(func() error {
		_, err := m.GoEnv(gctx)
		return err
	})
	g.Go(func() error {
		_, err := m.SelfHash()
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if wholeModule {
		requested = all
	}
	l := &Listing{All: all}
	for _, p := range requested {
		if q := l.Package(p.ImportPath); q != nil {
			l.Requested = append(l.Requested, q)
		}
	}
	if !wholeModule {
		l.Misses = misses(patterns, requested, outside, m.Path)
	}
	if len(l.Misses) == 0 {
		m.saveListing(cachePath, fp, patterns, stamps, l, start)
	}
	return l, nil
}

// misses returns the patterns that matched no package of the module, with
// go list's reason when it gave one (a directory that does not exist, a
// path that is no package).
func misses(patterns []string, inModule, outside []*Package, modulePath string) []Miss {
	matched := map[string]bool{}
	for _, p := range inModule {
		for _, pat := range p.Match {
			matched[pat] = true
		}
	}
	var out []Miss
	for _, pat := range patterns {
		listed := listedPattern(pat)
		if matched[listed] {
			continue
		}
		reason := "matched no packages"
		for _, p := range outside {
			if !slices.Contains(p.Match, listed) {
				continue
			}
			if p.Error != nil {
				reason = strings.TrimPrefix(p.Error.Err, "pattern "+listed+": ")
			} else {
				reason = "matched only packages outside module " + modulePath
			}
			break
		}
		out = append(out, Miss{Pattern: pat, Reason: reason})
	}
	return out
}

// listedPattern is pattern as go list's Match gives it: the go command
// puts each pattern in canonical form first, so that ./a/ and ./a//b/..
// are listed as ./a (a leading ./ kept), an absolute path is cleaned as a
// file path, and a version after @ is left alone.
func listedPattern(pattern string) string {
	if filepath.IsAbs(pattern) {
		return filepath.Clean(pattern)
	}
	p, version := pattern, ""
	local := p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
	if i := strings.IndexByte(p, '@'); i >= 0 && !local {
		p, version = p[:i], p[i:]
	}
	p = strings.ReplaceAll(p, `\`, "/")
	switch {
	case !strings.HasPrefix(p, "./"):
		p = path.Clean(p)
	case path.Clean(p) == ".":
		p = "."
	default:
		p = "./" + path.Clean(p)
	}
	return p + version
}

// goList runs go list in dir and returns the packages of the main module,
// keeping packages with errors (they are reported, not fatal), and apart
// the packages outside it, which include the patterns go list could not
// resolve.
func (m *Module) goList(ctx context.Context, dir string, patterns ...string) (pkgs, outside []*Package, err error) {
	args := append([]string{"list", "-e", "-json=" + listFields}, patterns...)
	out, err := m.goOutput(ctx, dir, args...)
	if err != nil && len(out) == 0 {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(Package)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("decoding go list output: %w", err)
		}
		if p.Module == nil || filepath.Clean(p.Module.Dir) != m.Root {
			outside = append(outside, p)
			continue
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, outside, nil
}

// treeStamps stamps every directory go list would look into for ./...:
// adding, removing or renaming a file or directory changes its parent's
// stamp. Like the go command it skips testdata, directories whose names
// begin with "." or "_", and nested modules.
func (m *Module) treeStamps() (map[string]stamp, error) {
	stamps := map[string]stamp{}
	for _, name := range []string{"go.mod", "go.sum", "go.work", "go.work.sum"} {
		p := filepath.Join(m.Root, name)
		if st, err := statStamp(p); err == nil {
			stamps[p] = st
		} else {
			stamps[p] = stamp{} // absent: appearing changes the listing
		}
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		info, err := os.Stat(dir)
		if err != nil {
			return err
		}
		stamps[dir] = stampOf(info)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			name := e.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				continue
			}
			sub := filepath.Join(dir, name)
			if _, err := os.Stat(filepath.Join(sub, "go.mod")); err == nil {
				continue
			}
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(m.Root); err != nil {
		return nil, fmt.Errorf("reading the module's directories: %w", err)
	}
	return stamps, nil
}

func (m *Module) cachedListing(path, fp string, patterns []string) *Listing {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var c cachedListing
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&c) != nil || c.Format != listingFormat ||
		c.Fingerprint != fp || c.Dir != m.dir || !slices.Equal(c.Patterns, patterns) {
		return nil
	}
	for p, want := range c.Stamps {
		got, err := statStamp(p)
		if err != nil {
			got = stamp{}
		}
		if got != want {
			return nil
		}
	}
	l := &Listing{All: c.All, Reused: true}
	for _, path := range c.Requested {
		if p := l.Package(path); p != nil {
			l.Requested = append(l.Requested, p)
		}
	}
	return l
}

// saveListing keeps a listing for reuse when every stamp it rests on can
// be trusted: a file changed within the last moments could change again
// without its stamp showing it.
func (m *Module) saveListing(path, fp string, patterns []string, stamps map[string]stamp, l *Listing, start time.Time) {
	for _, p := range l.All {
		for _, names := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles, p.IgnoredGoFiles, p.InvalidGoFiles} {
			for _, n := range names {
				f := filepath.Join(p.Dir, n)
				st, err := statStamp(f)
				if err != nil {
					return
				}
				stamps[f] = st
			}
		}
	}
	for _, st := range stamps {
		if st != (stamp{}) && !st.trusted(start) {
			os.Remove(path)
			return
		}
	}
	c := cachedListing{Format: listingFormat, Fingerprint: fp, Patterns: patterns, Dir: m.dir, Stamps: stamps, All: l.All}
	for _, p := range l.Requested {
		c.Requested = append(c.Requested, p.ImportPath)
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(c) == nil {
		writeFileAtomic(path, buf.Bytes()) // a cache: failing to keep it costs only time
	}
}
