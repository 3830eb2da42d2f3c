package testbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Keys computes the content keys of a module's test binaries: a key
// changes exactly when something the binary is built from changes (a
// source or embedded file of a module package it links, its own test files
// and testdata, go.mod and go.sum, the go command's environment, the
// faultline executable, and whatever the caller salts the keys with).
type Keys struct {
	m       *Module
	listing *Listing
	base    []byte

	mu      sync.Mutex
	digests map[string]string // import path -> digest of the package's own files
}

// Keys prepares the keys of the listed packages' test binaries. salt holds
// what else the caller's results depend on (instrumentation versions,
// options).
func (m *Module) Keys(ctx context.Context, l *Listing, salt string) (*Keys, error) {
	env, err := m.GoEnv(ctx)
	if err != nil {
		return nil, err
	}
	self, err := m.SelfHash()
	if err != nil {
		return nil, err
	}
	d := sha256.New()
	fmt.Fprintf(d, "faultline %s\n%s\n%s\n", self, env, salt)
	for _, name := range []string{"go.mod", "go.sum"} {
		sum, _ := m.hashes.File(filepath.Join(m.Root, name))
		fmt.Fprintf(d, "%s %s\n", name, sum)
	}
	return &Keys{m: m, listing: l, base: d.Sum(nil), digests: map[string]string{}}, nil
}

// SelfHash is the hash of the running faultline executable: results made
// by another build of faultline are not reused.
func (m *Module) SelfHash() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating the faultline executable: %w", err)
	}
	sum, err := m.hashes.File(path)
	if err != nil {
		return "", fmt.Errorf("hashing the faultline executable: %w", err)
	}
	return sum, nil
}

// digest hashes a package's non-test files (and its error, if any).
func (k *Keys) digest(p *Package) string {
	k.mu.Lock()
	sum, ok := k.digests[p.ImportPath]
	k.mu.Unlock()
	if ok {
		return sum
	}
	d := sha256.New()
	fmt.Fprintf(d, "package %s\n", p.ImportPath)
	k.hashFiles(d, p.Dir, p.GoFiles, p.CgoFiles, p.EmbedFiles)
	if p.Error != nil {
		fmt.Fprintf(d, "error %s\n", p.Error.Err)
	}
	sum = hex.EncodeToString(d.Sum(nil))
	k.mu.Lock()
	k.digests[p.ImportPath] = sum
	k.mu.Unlock()
	return sum
}

func (k *Keys) hashFiles(d interface{ Write([]byte) (int, error) }, dir string, lists ...[]string) {
	for _, list := range lists {
		for _, name := range list {
			sum, err := k.m.hashes.File(filepath.Join(dir, name))
			if err != nil {
				sum = "unreadable"
			}
			fmt.Fprintf(d, "%s %s\n", name, sum)
		}
	}
}

// TestBinary returns the key of p's test binary.
func (k *Keys) TestBinary(p *Package) string {
	d := sha256.New()
	d.Write(k.base)
	for _, q := range k.listing.Closure(p) {
		fmt.Fprintf(d, "%s\n", k.digest(q))
	}
	fmt.Fprintf(d, "tests of %s\n", p.ImportPath)
	k.hashFiles(d, p.Dir, p.TestGoFiles, p.XTestGoFiles, p.TestEmbedFiles, p.XTestEmbedFiles)
	fmt.Fprintf(d, "testdata %s\n", k.m.hashes.Tree(filepath.Join(p.Dir, "testdata")))
	return hex.EncodeToString(d.Sum(nil))
}

// Sources returns the hash of every Go file p's test binary compiles from
// the module, test files included, by slash path relative to the root.
func (k *Keys) Sources(p *Package) (map[string]string, error) {
	out := map[string]string{}
	for _, q := range k.listing.Closure(p) {
		lists := [][]string{q.GoFiles, q.CgoFiles}
		if q == p {
			lists = append(lists, q.TestGoFiles, q.XTestGoFiles)
		}
		for _, list := range lists {
			for _, name := range list {
				path := filepath.Join(q.Dir, name)
				sum, err := k.m.hashes.File(path)
				if err != nil {
					return nil, err
				}
				rel, err := filepath.Rel(k.m.Root, path)
				if err != nil {
					return nil, fmt.Errorf("locating %s in the module: %w", path, err)
				}
				out[filepath.ToSlash(rel)] = sum
			}
		}
	}
	return out, nil
}

// SortedPaths returns the import paths of pkgs, sorted.
func SortedPaths(pkgs []*Package) []string {
	out := make([]string, len(pkgs))
	for i, p := range pkgs {
		out[i] = p.ImportPath
	}
	slices.Sort(out)
	return out
}
