package cmd

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// modulePath is faultline's canonical import path, the one users install.
const modulePath = "github.com/faultline-go/faultline"

// faultline installs as a user installs it, with go install from a module
// proxy, here a file proxy made from the repository's tracked files: the
// module comes from the proxy into an empty GOPATH, its dependencies from
// the local module cache, and the binary reports the version it was
// installed at. @latest, as the README gives it, resolves to that version.
func TestInstallFromModuleProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds faultline from a module proxy into an empty GOPATH")
	}
	const version = "v0.1.0"
	root := gitOutput(t, ".", "rev-parse", "--show-toplevel")
	install := proxyInstaller(t, root, module.Version{Path: modulePath, Version: version})
	for _, query := range []string{version, "latest"} {
		bin := install(modulePath + "/cmd/faultline@" + query)
		checkVersion(t, bin, version)
		if err := os.Remove(bin); err != nil {
			t.Fatal(err)
		}
	}
}

// checkVersion runs faultline version from bin and checks that it reports
// the version it was installed at.
func checkVersion(t *testing.T, bin, version string) {
	t.Helper()
	stdout, stderr, code := runBinary(t, bin, t.TempDir(), nil, "version")
	if code != 0 || !strings.HasPrefix(stdout, "faultline "+version+" go") {
		t.Errorf("installed faultline version: exit %d, %q (standard error %q); want faultline %s GOVERSION", code, stdout, stderr, version)
	}
}

// proxyInstaller serves the module of the git work tree at root, as m,
// from a file proxy, and returns a function that go installs a package
// (with its @version) from it into a GOPATH in a temporary directory,
// empty at first, and returns the installed binary.
func proxyInstaller(t *testing.T, root string, m module.Version) func(pkg string) string {
	t.Helper()
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	writeProxy(t, proxy, root, m)
	gopath := filepath.Join(tmp, "gopath")
	// Dependencies come from the local module cache, so that no network is
	// needed; the build cache is kept for speed.
	localCache := filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download")
	env := append(os.Environ(),
		"GOPATH="+gopath, "GOBIN=", "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOCACHE="+goEnv(t, "GOCACHE"),
		"GOPROXY="+fileURL(proxy)+","+fileURL(localCache), "GOSUMDB=off",
		"GOPRIVATE=", "GONOPROXY=", "GONOSUMDB=", "GOWORK=off",
		// -modcacherw: the temporary module cache can be removed;
		// -trimpath: the build cache serves the next run, whose module
		// cache is elsewhere.
		"GOFLAGS=-mod=mod -modcacherw -trimpath")
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	return func(pkg string) string {
		t.Helper()
		cmd := exec.Command("go", "install", pkg)
		cmd.Dir, cmd.Env = tmp, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go install %s from a file proxy: %v\n%s", pkg, err, out)
		}
		// The module came through the proxy into the new module cache.
		if _, err := os.Stat(filepath.Join(gopath, "pkg", "mod", "cache", "download", escaped, "@v", m.Version+".zip")); err != nil {
			t.Errorf("the module is not in the new module cache: %v", err)
		}
		return filepath.Join(gopath, "bin", "faultline")
	}
}

// writeProxy lays out a file module proxy at dir serving only m, made from
// the files git tracks in the work tree at root (untracked files stay out),
// as they are in the work tree.
func writeProxy(t *testing.T, dir, root string, m module.Version) {
	t.Helper()
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	versions := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(versions, 0o777); err != nil {
		t.Fatal(err)
	}
	var files []modzip.File
	for _, name := range strings.Split(gitOutput(t, root, "ls-files", "-z"), "\x00") {
		file := trackedFile{root: root, name: name}
		if _, err := file.Lstat(); errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in git
		}
		files = append(files, file)
	}
	zipFile, err := os.Create(filepath.Join(versions, m.Version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zipFile.Close()
	if err := modzip.Create(zipFile, m, files); err != nil {
		t.Fatalf("zipping the module: %v", err)
	}
	if err := zipFile.Close(); err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"list": []byte(m.Version + "\n"), m.Version + ".mod": goMod, m.Version + ".info": info} {
		if err := os.WriteFile(filepath.Join(versions, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// trackedFile is a file of the work tree, named by its slash-separated
// path below root, as the module zip wants it.
type trackedFile struct{ root, name string }

func (f trackedFile) Path() string                 { return f.name }
func (f trackedFile) Lstat() (fs.FileInfo, error)  { return os.Lstat(f.abs()) }
func (f trackedFile) Open() (io.ReadCloser, error) { return os.Open(f.abs()) }
func (f trackedFile) abs() string                  { return filepath.Join(f.root, filepath.FromSlash(f.name)) }

// gitOutput runs git in dir and returns its output without the final
// newline.
func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %s: %v (the test needs a git work tree)", strings.Join(args, " "), err)
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(out), "\n"), "\x00")
}

// goEnv is the value of a go env variable in the test's environment.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// fileURL is the file:// URL of a local directory.
func fileURL(dir string) string {
	return (&url.URL{Scheme: "file", Path: "/" + strings.TrimPrefix(filepath.ToSlash(dir), "/")}).String()
}
