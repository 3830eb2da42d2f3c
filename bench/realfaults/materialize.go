package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

func runMaterialize(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("materialize", flag.ContinueOnError)
	benchPath := fs.String("bench", defaultBenchmark, "the benchmark file")
	id := fs.String("fault", "", "the fault's id")
	dir := fs.String("dir", "", "directory to write the version into (must not exist)")
	fixed := fs.Bool("fixed", false, "write the fixed version instead of the faulty one")
	mirrors := fs.String("mirrors", "", "directory of the projects' git histories (as for mine); empty: the Go module proxy")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *id == "" || *dir == "" {
		return fmt.Errorf("materialize needs -fault and -dir")
	}
	b, err := realfault.LoadBenchmark(*benchPath)
	if err != nil {
		return err
	}
	f, err := b.Fault(*id)
	if err != nil {
		return err
	}
	src, err := newSource(*mirrors, f)
	if err != nil {
		return err
	}
	return materialize(ctx, src, f, *dir, *fixed)
}

// source gives the trees of a fault's two commits.
type source interface {
	// export writes a commit's tree into dir.
	export(ctx context.Context, commit, dir string) error
	// file returns a file of a commit; ok is false when it has none.
	file(ctx context.Context, commit, path string) (data []byte, ok bool, err error)
}

func newSource(mirrors string, f *realfault.Fault) (source, error) {
	if mirrors != "" {
		g, err := realfault.FindGitDir(mirrors, f.Repo)
		if err != nil {
			return nil, err
		}
		return gitSource{g}, nil
	}
	return &proxySource{module: f.Module, dirs: map[string]string{}}, nil
}

// materialize writes a fault's faulty version (or its fixed one) into dir.
func materialize(ctx context.Context, src source, f *realfault.Fault, dir string, fixed bool) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s already exists", dir)
	}
	if err := src.export(ctx, f.Fix, dir); err != nil {
		return err
	}
	if fixed {
		return nil
	}
	return realfault.WriteFilesAt(ctx, src.file, dir, f.Parent, f.Reverted)
}

type gitSource struct{ g realfault.Repo }

func (s gitSource) export(ctx context.Context, commit, dir string) error {
	return s.g.Export(ctx, commit, dir)
}

func (s gitSource) file(ctx context.Context, commit, path string) ([]byte, bool, error) {
	return s.g.Show(ctx, commit, path)
}

// proxySource downloads the module at each commit through the Go module
// proxy (go mod download module@commit), which holds the tree's files
// except nested modules and vendored code.
type proxySource struct {
	module string
	dirs   map[string]string // commit → extracted module directory
}

func (s *proxySource) download(ctx context.Context, commit string) (string, error) {
	if d, ok := s.dirs[commit]; ok {
		return d, nil
	}
	scratch, err := os.MkdirTemp("", "realfaults-download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	res, err := gocmd.Run(ctx, scratch, gocmd.GoEnv(), 10*time.Minute, "go", "mod", "download", "-json", s.module+"@"+commit)
	var out struct{ Dir, Error string }
	if jerr := json.Unmarshal(res.Stdout, &out); jerr != nil || out.Error != "" || out.Dir == "" || err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v %s %s", s.module, commit, err, out.Error, gocmd.Tail(res.Stderr, 500))
	}
	s.dirs[commit] = out.Dir
	return out.Dir, nil
}

func (s *proxySource) export(ctx context.Context, commit, dir string) error {
	from, err := s.download(ctx, commit)
	if err != nil {
		return err
	}
	return os.CopyFS(dir, os.DirFS(from)) // files come out writable, whatever the cache's modes
}

func (s *proxySource) file(ctx context.Context, commit, path string) ([]byte, bool, error) {
	from, err := s.download(ctx, commit)
	if err != nil {
		return nil, false, err
	}
	data, err := os.ReadFile(filepath.Join(from, filepath.FromSlash(path)))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	return data, err == nil, err
}
