package testbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	if id := goBuildID(path); id != "" {
		return "buildid " + id, nil
	}
	sum, err := m.hashes.File(path)
	if err != nil {
		return "", fmt.Errorf("hashing the faultline executable: %w", err)
	}
	return sum, nil
}

// buildIDPrefix starts the build ID the go linker writes near the start of
// the text of executables other than ELF ones, as `go tool buildid` reads
// it; ELF executables carry it in a note instead.
const buildIDPrefix = "\xff Go build ID: \""

// goBuildID returns the go command's build ID of an executable, or "" when
// it has none the go command made: action IDs and content IDs, the last
// the hash of the linked file, so that the ID names the content as its
// hash would. Reading it costs a page where hashing the executable (tens
// of MB, on a first run with a new cache) cost tens of milliseconds.
func goBuildID(path string) string {
	var id string
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		id = elfBuildID(f)
	} else if f, err := os.Open(path); err == nil {
		defer f.Close()
		head := make([]byte, 64<<10)
		n, _ := io.ReadFull(f, head)
		head = head[:n]
		if i := bytes.Index(head, []byte(buildIDPrefix)); i >= 0 {
			rest := head[i+len(buildIDPrefix):]
			if end := bytes.Index(rest, []byte("\"\n \xff")); end >= 0 {
				id = string(rest[:end])
			}
		}
	}
	// IDs separated by slashes, each non-empty and of the go command's
	// base64 alphabet: anything else was not written by the go command.
	parts := strings.Split(id, "/")
	if len(parts) < 2 {
		return ""
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return ""
		}
	}
	return id
}

// elfBuildID reads the Go build ID note of an ELF executable: name "Go",
// type 4, the ID as its description.
func elfBuildID(f *elf.File) string {
	sect := f.Section(".note.go.buildid")
	if sect == nil {
		return ""
	}
	note, err := sect.Data()
	if err != nil || len(note) < 16 {
		return ""
	}
	nameSize := f.ByteOrder.Uint32(note[0:])
	descSize := f.ByteOrder.Uint32(note[4:])
	kind := f.ByteOrder.Uint32(note[8:])
	if nameSize != 4 || kind != 4 || string(note[12:16]) != "Go\x00\x00" || uint64(descSize) > uint64(len(note)-16) {
		return ""
	}
	return string(note[16 : 16+descSize])
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
