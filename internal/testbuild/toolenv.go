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
)

// toolEnv is what the go command says about itself: the environment values
// that change what a test binary is built from. Asking costs a process, so
// the answer is kept on disk under a fingerprint of everything that could
// change it.
type toolEnv struct {
	Fingerprint string
	GoEnv       string // output of go env for the variables in goEnvVars
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

// GoEnv returns the go env values that change what a test binary is built
// from, as one string for keys, asking the go command only when the
// fingerprint changed.
func (m *Module) GoEnv(ctx context.Context) (string, error) {
	// One asker at a time: a second caller waits for the first's answer
	// rather than asking again.
	m.askGoEnv.Lock()
	defer m.askGoEnv.Unlock()
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
	if m.toolEnv != nil && m.toolEnv.Fingerprint == fp && m.toolEnv.GoEnv != "" {
		defer m.mu.Unlock()
		return m.toolEnv.GoEnv, nil
	}
	m.mu.Unlock()
	out, err := m.goOutput(ctx, "", append([]string{"env"}, goEnvVars...)...)
	if err != nil {
		return "", err
	}
	t := &toolEnv{Fingerprint: fp, GoEnv: string(out)}
	if data, err := json.Marshal(t); err == nil {
		writeFileAtomic(path, data) // a cache: failing to keep it costs only time
	}
	m.mu.Lock()
	m.toolEnv = t
	m.mu.Unlock()
	return t.GoEnv, nil
}
