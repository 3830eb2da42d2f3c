package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/faultline-go/faultline"

// layer is a set of the module's packages, by path below the module.
type layer struct {
	name     string
	prefixes []string
}

// layers lists the layers top down: a package may import its own layer's
// packages and those of the layers below, never those above.
var layers = []layer{
	{"command line", []string{"cmd", "internal/cmd"}},
	{"language server", []string{"server"}},
	{"core", []string{"internal/snapshot", "internal/settings"}},
	{"localization service", []string{"internal/localize"}},
	{"techniques", []string{"spectra", "analysis", "regress", "specs"}},
	{"build layer", []string{"internal/testbuild"}},
	{"solver", []string{"solver"}},
}

// Packages outside the layers with rules of their own: the fake editor, an
// LSP client that only tests and bench may import; the file cache, a leaf
// any layer below the server may share, which imports none of them.
const (
	fakeEditor = module + "/internal/fakeeditor"
	fileCache  = module + "/internal/filecache"
	benchDir   = module + "/bench/"
)

// Indices into layers that the rules name.
const (
	serverLayer    = 1
	techniqueLayer = 4
)

// pkg is one package as go list describes it.
type pkg struct {
	ImportPath string
	Imports    []string // not those of its tests
	Deps       []string
}

// layerOf returns the index of path's layer, or -1 for a package outside
// them (helpers such as internal/bug, and the module's tools).
func layerOf(path string) int {
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return -1
	}
	for i, l := range layers {
		for _, p := range l.prefixes {
			if rel == p || strings.HasPrefix(rel, p+"/") {
				return i
			}
		}
	}
	return -1
}

// violations lists the imports that break the layering among pkgs: an
// import of a higher layer; the server or the command line reaching past
// the service into the techniques or below; a package outside the layers
// importing the server or the command line; LSP in a package below the
// server; the fake editor imported outside tests and bench; the file
// cache importing a layer.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		from := layerOf(p.ImportPath)
		for _, imp := range p.Imports {
			to := layerOf(imp)
			switch {
			case to < 0:
			case from >= 0 && to < from:
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s), a layer above it", p.ImportPath, layers[from].name, imp, layers[to].name))
			case from >= 0 && from <= serverLayer && to >= techniqueLayer:
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s) past the localization service", p.ImportPath, layers[from].name, imp, layers[to].name))
			case from < 0 && to <= serverLayer:
				out = append(out, fmt.Sprintf("%s imports %s (%s)", p.ImportPath, imp, layers[to].name))
			case p.ImportPath == fileCache:
				out = append(out, fmt.Sprintf("%s imports %s (%s): the file cache is a leaf the layers share", p.ImportPath, imp, layers[to].name))
			}
			if imp == fakeEditor && !strings.HasPrefix(p.ImportPath, benchDir) {
				out = append(out, fmt.Sprintf("%s imports %s, which only tests and bench may", p.ImportPath, imp))
			}
		}
		if p.ImportPath != fakeEditor && (from > serverLayer || from < 0 && strings.HasPrefix(p.ImportPath, module+"/internal/")) {
			for _, d := range p.Deps {
				if strings.HasPrefix(d, "go.lsp.dev/") {
					out = append(out, fmt.Sprintf("%s, below the server, depends on %s", p.ImportPath, d))
					break
				}
			}
		}
	}
	return out
}

func TestImportsRunDown(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	seen := map[int]bool{}
	for _, p := range pkgs {
		seen[layerOf(p.ImportPath)] = true
	}
	for i, l := range layers {
		if !seen[i] {
			t.Errorf("no package in the %s layer (%s): the layers are out of date", l.name, strings.Join(l.prefixes, ", "))
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// Each rule catches what it is for.
func TestViolations(t *testing.T) {
	p := func(path string, imports ...string) pkg {
		return pkg{ImportPath: module + "/" + path, Imports: prefixed(imports)}
	}
	for _, c := range []struct {
		pkg  pkg
		want string
	}{
		{p("spectra", "internal/localize"), "a layer above it"},
		{p("server", "spectra"), "past the localization service"},
		{p("internal/cmd", "internal/testbuild"), "past the localization service"},
		{p("internal/bug", "server"), "imports " + module + "/server"},
		{pkg{ImportPath: module + "/internal/snapshot", Deps: []string{"go.lsp.dev/protocol"}}, "below the server"},
		{p("internal/settings", "server"), "a layer above it"},
		{p("server", "internal/fakeeditor"), "only tests and bench"},
		{p("internal/filecache", "internal/testbuild"), "a leaf the layers share"},
	} {
		got := violations([]pkg{c.pkg})
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s importing %v: %q, want one saying %q", c.pkg.ImportPath, c.pkg.Imports, got, c.want)
		}
	}
	fine := []pkg{p("server", "internal/localize", "internal/snapshot", "internal/settings"), p("bench/server", "internal/fakeeditor"), p("internal/testbuild", "internal/filecache"),
		{ImportPath: fakeEditor, Deps: []string{"go.lsp.dev/protocol"}}, p("internal/snapshot", "spectra"), p("spectra", "internal/testbuild"), p("internal/report", "internal/localize"),
		{ImportPath: module + "/server", Deps: []string{"go.lsp.dev/protocol"}}}
	if got := violations(fine); len(got) > 0 {
		t.Errorf("allowed imports reported: %q", got)
	}
}

func prefixed(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = module + "/" + p
	}
	return out
}
