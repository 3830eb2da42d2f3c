// Command explain measures faultline explain on seeded regressions in a
// real module's history. For each seed it copies the module (fetched
// through the module proxy) into a fresh git repository, commits the
// original, then commits the fault together with unrelated changes in the
// same files (refactors that keep behaviour, on lines the failing test
// executes and on lines it does not), then one more unrelated commit. It
// runs `faultline explain -json` on the seed's failing test with the
// default strategy and with plain delta debugging (-strategy ddmin), each
// with a cache of its own (the bisection's verdicts are not shared), and
// reports whether the root changes are exactly the fault's hunk, how many
// changes were reported, the reruns and builds, and the time.
//
//	go build -o /tmp/faultline ./cmd/faultline && go run ./bench/explain -faultline /tmp/faultline
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// edit replaces old, which must occur exactly once in file, by new.
type edit struct{ file, old, new string }

// seed is one regression: the fault (its new text is the line the root
// change must be), the unrelated edits committed with it, and a later
// unrelated commit.
type seed struct {
	name  string
	test  string // a leaf test the fault makes fail
	fault edit
	noise []edit
	later []edit
}

// uuidSeeds are regressions in github.com/google/uuid@v1.6.0.
var uuidSeeds = []seed{
	{
		name:  "xtob accepts a bad first digit",
		test:  "TestUUID",
		fault: edit{"util.go", "return (b1 << 4) | b2, b1 != 255 && b2 != 255", "return (b1 << 4) | b2, b2 != 255"},
		noise: []edit{
			{"util.go", "// rand should never fail", "// the random source should never fail"},
			{"uuid.go", "\t\treturn uuid, invalidLengthError{len(s)}", "\t\tn := len(s)\n\t\treturn uuid, invalidLengthError{n}"},
			{"uuid.go", "\t\tvar ok bool\n\t\tfor i := 0; i < 32; i += 2 {\n\t\t\tuuid[i/2], ok = xtob(b[i], b[i+1])",
				"\t\tfor i := 0; i < 32; i += 2 {\n\t\t\tv, ok := xtob(b[i], b[i+1])\n\t\t\tuuid[i/2] = v"},
		},
		later: []edit{{"version4.go", "\treturn Must(NewRandom()).String()", "\tu := Must(NewRandom())\n\treturn u.String()"}},
	},
	{
		name:  "encodeHex writes a wrong separator",
		test:  "TestCoding",
		fault: edit{"uuid.go", "\tdst[18] = '-'", "\tdst[18] = '_'"},
		noise: []edit{
			{"uuid.go", "\thex.Encode(dst, uuid[:4])", "\thex.Encode(dst[:8], uuid[:4])"},
			{"uuid.go", "\tcopy(buf[:], \"urn:uuid:\")", "\tcopy(buf[:9], \"urn:uuid:\")"},
			{"uuid.go", "// Variant returns the variant encoded in uuid.", "// Variant returns the variant that uuid encodes."},
		},
		later: []edit{{"version4.go", "\treturn Must(NewRandom()).String()", "\tu := Must(NewRandom())\n\treturn u.String()"}},
	},
	{
		name:  "Variant takes Future for Microsoft",
		test:  "TestUUID",
		fault: edit{"uuid.go", "\tcase (uuid[8] & 0xe0) == 0xc0:", "\tcase (uuid[8] & 0xc0) == 0xc0:"},
		noise: []edit{
			{"uuid.go", "\treturn Version(uuid[6] >> 4)", "\tv := uuid[6] >> 4\n\treturn Version(v)"},
			{"uuid.go", "// Variant returns the variant encoded in uuid.", "// Variant returns the variant that uuid encodes."},
			{"util.go", "\tb1 := xvalues[x1]\n\tb2 := xvalues[x2]", "\tb1, b2 := xvalues[x1], xvalues[x2]"},
		},
		later: []edit{{"hash.go", "// NewMD5 returns", "// NewMD5 returns, like NewHash,"}},
	},
}

// explanation is the part of faultline explain -json read here.
type explanation struct {
	Failing int
	Tests   []struct {
		Test, Message, Found string
		Changes              []struct {
			File, Role    string
			Line, EndLine int
		}
		Total, Reruns, Builds int
		Seconds               float64
		SemanticSeconds       float64
	}
}

func main() {
	bin := flag.String("faultline", "", "the faultline binary to measure")
	module := flag.String("module", "github.com/google/uuid@v1.6.0", "the module the seeds apply to")
	flag.Parse()
	if *bin == "" {
		fail(errors.New("give -faultline /path/to/faultline"))
	}
	src, err := download(*module)
	if err != nil {
		fail(err)
	}
	scratch, err := os.MkdirTemp("", "faultline-explainbench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(scratch)
	fmt.Printf("| seed | test | strategy | root = fault | changes reported | candidate hunks | found by | reruns | builds | explanation | of which semantic | command |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i, s := range uuidSeeds {
		dir := filepath.Join(scratch, fmt.Sprint(i))
		faultLine, err := history(src, dir, s)
		if err != nil {
			fail(fmt.Errorf("%s: %w", s.name, err))
		}
		strategies := []string{"after", "ddmin"}
		if i%2 == 1 { // neither strategy always finds the Go build cache warmer
			slices.Reverse(strategies)
		}
		for _, strategy := range strategies {
			start := time.Now()
			cache := filepath.Join(scratch, fmt.Sprintf("cache-%d-%s", i, strategy)) // no verdict cached by the other
			out, err := run(dir, cache, *bin, "explain", "-json", "-strategy", strategy, "-max-explained", "1", "-run", "^"+s.test+"$")
			wall := time.Since(start)
			if err != nil {
				fail(fmt.Errorf("%s: %w", s.name, err))
			}
			var ex explanation
			if err := json.Unmarshal(out, &ex); err != nil || len(ex.Tests) != 1 {
				fail(fmt.Errorf("%s: reading the explanation (%v): %s", s.name, err, out))
			}
			t := ex.Tests[0]
			if t.Message != "" {
				fmt.Printf("| %s | %s | %s | %s | | | | | | | | |\n", s.name, t.Test, strategy, t.Message)
				continue
			}
			roots, exact := 0, true
			for _, c := range t.Changes {
				if c.Role == "root" {
					roots++
					exact = exact && c.File == s.fault.file && c.Line <= faultLine && faultLine <= c.EndLine
				}
			}
			fmt.Printf("| %s | %s | %s | %v | %d (%d root) | %d | %s | %d | %d | %.1fs | %.1fs | %.1fs |\n", s.name, t.Test, strategy,
				exact && roots == 1, len(t.Changes), roots, t.Total, t.Found, t.Reruns, t.Builds, t.Seconds, t.SemanticSeconds, wall.Seconds())
		}
	}
}

// download fetches a module through the module proxy and returns its
// directory in the module cache.
func download(module string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Error != "" {
		return "", fmt.Errorf("go mod download %s: %v %s", module, err, m.Error)
	}
	return m.Dir, nil
}

// history makes the seed's repository in dir and returns the fault's line
// in the working tree.
func history(src, dir string, s seed) (int, error) {
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("copying the module: %v: %s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dir).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	if err := git(dir, "init", "-q", "-b", "main"); err != nil {
		return 0, err
	}
	commit := func(msg string, edits []edit) error {
		for _, e := range edits {
			if err := apply(dir, e); err != nil {
				return err
			}
		}
		if err := git(dir, "add", "-A"); err != nil {
			return err
		}
		return git(dir, "commit", "-q", "-m", msg)
	}
	if err := commit("original", nil); err != nil {
		return 0, err
	}
	if err := commit("seeded: "+s.name, append([]edit{s.fault}, s.noise...)); err != nil {
		return 0, err
	}
	if err := commit("later", s.later); err != nil {
		return 0, err
	}
	data, err := os.ReadFile(filepath.Join(dir, s.fault.file))
	if err != nil {
		return 0, err
	}
	at := bytes.Index(data, []byte(s.fault.new))
	return 1 + bytes.Count(data[:at], []byte("\n")) + firstChangedLine(s.fault), nil
}

// firstChangedLine is how many lines into the fault's text its first
// changed line lies.
func firstChangedLine(e edit) int {
	o, n := strings.Split(e.old, "\n"), strings.Split(e.new, "\n")
	for i := range min(len(o), len(n)) {
		if o[i] != n[i] {
			return i
		}
	}
	return 0
}

func apply(dir string, e edit) error {
	p := filepath.Join(dir, e.file)
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if n := strings.Count(string(data), e.old); n != 1 {
		return fmt.Errorf("%s: %q occurs %d times", e.file, e.old, n)
	}
	return os.WriteFile(p, []byte(strings.Replace(string(data), e.old, e.new, 1)), 0o644)
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// run runs faultline in dir with its own cache and returns its standard
// output.
func run(dir, cache, bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FAULTLINE_CACHE="+cache)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("faultline %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "explain bench:", err)
	os.Exit(1)
}
