package testbuild

import "context"

// ListKeys lists the module's packages (List with no patterns) and
// computes the listing's keys with no salt (Keys), for techniques that
// build or key the test binaries of several packages. Keys fills the file
// hash index, which the caller saves (Hasher().Save()) when it is done.
func (m *Module) ListKeys(ctx context.Context) (*Listing, *Keys, error) {
	listing, err := m.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	keys, err := m.Keys(ctx, listing, "")
	if err != nil {
		return nil, nil, err
	}
	return listing, keys, nil
}

// ListPackageKeys lists the module and finds package path in it
// (ListPackage), then computes the listing's keys with no salt (Keys): the
// start of every technique that builds one package's test binary. Keys
// fills the file hash index, which the caller saves (Hasher().Save()) once
// it has built what it needs.
func (m *Module) ListPackageKeys(ctx context.Context, path string) (*Listing, *Package, *Keys, error) {
	listing, pkg, err := m.ListPackage(ctx, path)
	if err != nil {
		return nil, nil, nil, err
	}
	keys, err := m.Keys(ctx, listing, "")
	if err != nil {
		return nil, nil, nil, err
	}
	return listing, pkg, keys, nil
}
