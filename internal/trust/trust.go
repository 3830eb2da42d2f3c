// Package trust owns the user's list of trusted Go modules: the module
// roots whose tests faultline may build and run without asking, because
// running a module's tests runs the module's code.
//
// The list is one JSON file in the user's configuration directory, shared
// by every faultline process. Writes hold a lock file and replace the list
// atomically (a temporary file renamed over it), so concurrent writers lose
// nothing and readers never see half a file. A list that cannot be read as
// one, whatever the reason, trusts nothing and is never overwritten: the
// error says where it is and what is wrong with it.
package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// fileName is the list's name inside its directory.
const fileName = "trusted.json"

// formatVersion is the version of the list's JSON layout.
const formatVersion = 1

// maxSize bounds what is read: a list of module paths is small, and a huge
// file is not one.
const maxSize = 1 << 20

// ErrCorrupt is wrapped by the errors of a list file that is not a valid
// list (truncated, edited into something else, from another program).
var ErrCorrupt = errors.New("not a valid trust list")

// Module is one trusted module.
type Module struct {
	Root  string    `json:"root"`  // real path of the module root
	Added time.Time `json:"added"` // when it was trusted
}

// list is the file's layout.
type list struct {
	Version int      `json:"version"`
	Modules []Module `json:"modules"`
}

// Store is a trust list file.
type Store struct {
	path string
}

// DefaultPath is the list's place: faultline/trusted.json under
// os.UserConfigDir().
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the user configuration directory: %w", err)
	}
	return filepath.Join(dir, "faultline", fileName), nil
}

// At returns the store kept in the file at path.
func At(path string) *Store { return &Store{path: path} }

// Path is the list file's path.
func (s *Store) Path() string { return s.path }

// List returns the trusted modules. A missing file is an empty list; a
// file that is not a valid list is an error wrapping ErrCorrupt, and
// trusts no module.
func (s *Store) List() ([]Module, error) {
	l, err := s.read()
	return l.Modules, err
}

// Trusted reports whether the module rooted at root is in the list. The
// root is compared by its real path, so a symbolic link to a trusted
// module is trusted and a trusted path later replaced by a link is not
// taken for its target.
func (s *Store) Trusted(root string) (bool, error) {
	key, err := Key(root)
	if err != nil {
		return false, err
	}
	l, err := s.read()
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(l.Modules, func(m Module) bool { return m.Root == key }), nil
}

// Add puts the module rooted at root in the list and returns its entry.
// Adding a module already there keeps its entry.
func (s *Store) Add(root string) (Module, error) {
	key, err := Key(root)
	if err != nil {
		return Module{}, err
	}
	var added Module
	err = s.update(func(l *list) {
		for _, m := range l.Modules {
			if m.Root == key {
				added = m
				return
			}
		}
		added = Module{Root: key, Added: time.Now().UTC().Truncate(time.Second)}
		l.Modules = append(l.Modules, added)
	})
	return added, err
}

// Remove takes the module rooted at root out of the list and reports
// whether it was there. A root that no longer exists is matched by its
// absolute path, so a deleted module can still be revoked.
func (s *Store) Remove(root string) (bool, error) {
	key, err := Key(root)
	if err != nil {
		if key, err = filepath.Abs(root); err != nil {
			return false, fmt.Errorf("resolving %s: %w", root, err)
		}
	}
	removed := false
	err = s.update(func(l *list) {
		n := len(l.Modules)
		l.Modules = slices.DeleteFunc(l.Modules, func(m Module) bool { return m.Root == key })
		removed = len(l.Modules) < n
	})
	return removed, err
}

// Key is the name a module root is trusted under: its absolute path with
// every symbolic link resolved.
func Key(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", root, err)
	}
	return real, nil
}

// ModuleRoot returns the root of the module holding dir: the nearest
// directory at or above it with a go.mod.
func ModuleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod in %s or any directory above it", abs)
		}
	}
}

// read reads and checks the list file.
func (s *Store) read() (list, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return list{Version: formatVersion}, nil
	}
	if err != nil {
		return list{}, fmt.Errorf("reading the trust list: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return list{}, fmt.Errorf("reading the trust list %s: %w", s.path, err)
	}
	l, err := parse(data)
	if err != nil {
		return list{}, fmt.Errorf("%s: %w: %v; it trusts no module until it is fixed or removed", s.path, ErrCorrupt, err)
	}
	return l, nil
}

// parse decodes a list and checks every entry: anything unexpected makes
// the whole list invalid rather than half trusted.
func parse(data []byte) (list, error) {
	if len(data) > maxSize {
		return list{}, fmt.Errorf("larger than %d bytes", maxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l list
	if err := dec.Decode(&l); err != nil {
		return list{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return list{}, errors.New("data after the list")
	}
	if l.Version != formatVersion {
		return list{}, fmt.Errorf("version %d, want %d", l.Version, formatVersion)
	}
	for _, m := range l.Modules {
		if !filepath.IsAbs(m.Root) || filepath.Clean(m.Root) != m.Root {
			return list{}, fmt.Errorf("module root %q is not a clean absolute path", m.Root)
		}
	}
	return l, nil
}

// update applies change to the list under the lock and writes the result
// atomically.
func (s *Store) update(change func(*list)) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	unlock, err := lock(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the trust list: %w", err)
	}
	defer unlock()
	l, err := s.read()
	if err != nil {
		return err
	}
	change(&l)
	l.Version = formatVersion
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the trust list: %w", err)
	}
	return writeAtomic(s.path, append(data, '\n'))
}

// writeAtomic replaces path with data: readers see the old file or the new
// one, never a mix, and a crash leaves at worst a stray temporary file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+fileName+"-*")
	if err != nil {
		return fmt.Errorf("writing the trust list: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing the trust list %s: %w", path, err)
	}
	return nil
}
