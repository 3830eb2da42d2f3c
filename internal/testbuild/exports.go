package testbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
)

// Exports are the compiled export data of the packages a package's test
// imports, directly or not, as built from the working tree: what a type
// checker needs to check the package and its tests from source alone.
type Exports struct {
	// Files maps an import path to its export data file.
	Files map[string]string
	// Recompiled are the dependencies other than the package itself that
	// go test recompiles for its tests (they import the package, and the
	// external tests import them): their export data above is not what
	// the test links, so the package cannot be checked alone.
	Recompiled []string
	// GOARCH is the architecture the data was compiled for.
	GOARCH string
}

// ExportData compiles the dependencies of pkg's test (the go build cache
// keeps them) and returns where their export data is.
func (m *Module) ExportData(ctx context.Context, pkg *Package) (*Exports, error) {
	out, err := m.goOutput(ctx, "", "list", "-e", "-export", "-deps", "-test", "-json=ImportPath,Export,ForTest", pkg.ImportPath)
	if err != nil {
		return nil, fmt.Errorf("listing the export data of %s: %w", pkg.ImportPath, err)
	}
	ex := &Exports{Files: map[string]string{}, GOARCH: m.Getenv("GOARCH")}
	if ex.GOARCH == "" {
		ex.GOARCH = runtime.GOARCH
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export, ForTest string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading the export data list of %s: %w", pkg.ImportPath, err)
		}
		path, variant, _ := strings.Cut(p.ImportPath, " ")
		switch {
		case variant == "" && p.Export != "":
			ex.Files[path] = p.Export
		case variant != "" && p.ForTest != "" && path != pkg.ImportPath && path != pkg.ImportPath+"_test":
			ex.Recompiled = append(ex.Recompiled, path)
		}
	}
	return ex, nil
}
