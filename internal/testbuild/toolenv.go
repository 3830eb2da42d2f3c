package testbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// toolEnv is what the go command says about itself: the environment values
// that change what a test binary is built from, and the test2json tool.
// Asking costs a few hundred milliseconds, so the answers are kept on disk
// under a fingerprint of everything that could change them.
type toolEnv struct {
	Fingerprint string
	GoEnv       string // output of go env for the variables in goEnvVars
	Test2JSON   string // path of the test2json tool
}

// goEnvVars are the go env variables that change what a test binary is.
var goEnvVars = []string{"GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64", "GOROOT"}

// envFingerprint hashes what the go command's answers depend on: its
// binary, the variables it reads, its configuration file and go.mod (whose
// toolchain line may switch Go versions).
func (m *Module) envFingerprint() string {
	d := sha256.New()
	var vars []string
	for _, kv := range m.env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GO") || strings.HasPrefix(k, "CGO_") || k == "PATH" || k == "HOME" || k == "XDG_CONFIG_HOME" || k == "CC" || k == "CXX" {
			vars = append(vars, kv)
		}
	}
	slices.Sort(vars)
	for _, kv := range vars {
		fmt.Fprintf(d, "%s\x00", kv)
	}
	stampInto := func(path string) {
		st, err := statStamp(path)
		fmt.Fprintf(d, "%s %+v %v\x00", path, st, err == nil)
	}
	stampInto(m.goBinary())
	if cfg := m.Getenv("GOENV"); cfg != "" {
		stampInto(cfg)
	} else if dir, err := os.UserConfigDir(); err == nil {
		stampInto(filepath.Join(dir, "go", "env"))
	}
	stampInto(filepath.Join(m.Root, "go.mod"))
	stampInto(filepath.Join(m.Root, "go.work"))
	return hex.EncodeToString(d.Sum(nil))
}

// goBinary finds the go command on the module environment's PATH.
func (m *Module) goBinary() string {
	for _, dir := range filepath.SplitList(m.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "go")
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return "go"
}

// tools returns the go command's answers, asking it only when the
// fingerprint changed or the test2json binary it named is gone.
func (m *Module) tools(ctx context.Context) (*toolEnv, error) {
	fp := m.envFingerprint()
	m.mu.Lock()
	cached := m.toolEnv
	m.mu.Unlock()
	path := filepath.Join(m.cacheDir, "toolenv.json")
	if cached == nil {
		if data, err := os.ReadFile(path); err == nil {
			var t toolEnv
			if json.Unmarshal(data, &t) == nil {
				cached = &t
			}
		}
	}
	if cached != nil && cached.Fingerprint == fp {
		if _, err := os.Stat(cached.Test2JSON); err == nil {
			m.mu.Lock()
			m.toolEnv = cached
			m.mu.Unlock()
			return cached, nil
		}
	}
	t := &toolEnv{Fingerprint: fp}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		out, err := m.goOutput(gctx, "", append([]string{"env"}, goEnvVars...)...)
		t.GoEnv = string(out)
		return err
	})
	g.Go(func() error {
		// Since Go 1.24 the tool is built on demand into the build cache.
		out, err := m.goOutput(gctx, "", "tool", "-n", "test2json")
		t.Test2JSON = strings.TrimSpace(string(out))
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if data, err := json.Marshal(t); err == nil {
		writeFileAtomic(path, data) // a cache: failing to keep it costs only time
	}
	m.mu.Lock()
	m.toolEnv = t
	m.mu.Unlock()
	return t, nil
}

// GoEnv returns the go env values that change what a test binary is built
// from, as one string for keys.
func (m *Module) GoEnv(ctx context.Context) (string, error) {
	t, err := m.tools(ctx)
	if err != nil {
		return "", err
	}
	return t.GoEnv, nil
}

// Test2JSON returns the path of the go test2json tool.
func (m *Module) Test2JSON(ctx context.Context) (string, error) {
	t, err := m.tools(ctx)
	if err != nil {
		return "", err
	}
	return t.Test2JSON, nil
}
