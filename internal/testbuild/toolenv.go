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
	"sync"
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

// goAnswer returns one of the go command's answers (the field of toolEnv
// that answer selects, which go args asks for), asking the go command only
// when the fingerprint changed or valid rejects the answer kept. Each answer
// is asked on its own, so that one that is slow to ask (the test2json
// tool's path: go tool -n plans a build) need not hold up the other.
func (m *Module) goAnswer(ctx context.Context, ask *sync.Mutex, answer func(*toolEnv) *string, valid func(string) bool, args ...string) (string, error) {
	// One asker at a time: a second caller waits for the first's answer
	// rather than asking again.
	ask.Lock()
	defer ask.Unlock()
	fp := m.envFingerprint()
	path := filepath.Join(m.cacheDir, "toolenv.json")
	m.mu.Lock()
	if m.toolEnv == nil {
		if data, err := os.ReadFile(path); err == nil {
			var t toolEnv
			if json.Unmarshal(data, &t) == nil {
				m.toolEnv = &t
			}
		}
	}
	if m.toolEnv == nil || m.toolEnv.Fingerprint != fp {
		m.toolEnv = &toolEnv{Fingerprint: fp}
	}
	kept := *answer(m.toolEnv)
	m.mu.Unlock()
	if kept != "" && valid(kept) {
		return kept, nil
	}
	out, err := m.goOutput(ctx, "", args...)
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.toolEnv.Fingerprint != fp {
		m.toolEnv = &toolEnv{Fingerprint: fp}
	}
	*answer(m.toolEnv) = string(out)
	if data, err := json.Marshal(m.toolEnv); err == nil {
		writeFileAtomic(path, data) // a cache: failing to keep it costs only time
	}
	return string(out), nil
}

// GoEnv returns the go env values that change what a test binary is built
// from, as one string for keys.
func (m *Module) GoEnv(ctx context.Context) (string, error) {
	return m.goAnswer(ctx, &m.askGoEnv, func(t *toolEnv) *string { return &t.GoEnv },
		func(string) bool { return true }, append([]string{"env"}, goEnvVars...)...)
}

// Test2JSON returns the path of the go test2json tool.
func (m *Module) Test2JSON(ctx context.Context) (string, error) {
	// Since Go 1.24 the tool is built on demand into the build cache.
	out, err := m.goAnswer(ctx, &m.askTest2JSON, func(t *toolEnv) *string { return &t.Test2JSON }, func(path string) bool {
		_, err := os.Stat(strings.TrimSpace(path))
		return err == nil
	}, "tool", "-n", "test2json")
	return strings.TrimSpace(out), err
}
