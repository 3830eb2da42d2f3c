// Command speed measures faultline's collection time against plain
// go test -count=1 -cover over the same packages, side by side in one run:
// a full collection into an empty store, the same with edge profiles
// (faultline test -edges, what BlockRank needs), a rerun with no change,
// and a rerun after a one-line edit. Runs are interleaved so that machine noise
// hits both sides alike; medians and ratios are reported.
//
//	go run ./bench/speed -faultline /tmp/faultline -runs 5 DIR...
//	go run ./bench/speed -faultline /tmp/faultline -modules github.com/BurntSushi/toml@v1.5.0,github.com/spf13/cast@v1.9.2
//
// With -compare, several faultline binaries (say, one per change to
// measure) are set side by side instead: each round runs the plain tests
// and then, for each binary, a full collection and a rerun with no change;
// beside each wall time is the CPU (user and system) of the command's
// whole process tree, the steadier measure on a loaded machine.
//
//	go run ./bench/speed -compare /tmp/before,/tmp/after -runs 7 -modules github.com/spf13/cast@v1.9.2
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	faultline := flag.String("faultline", "faultline", "path of the faultline binary")
	runs := flag.Int("runs", 5, "measured rounds per subject")
	modules := flag.String("modules", "", "comma-separated module@version to fetch through the module proxy as subjects")
	compare := flag.String("compare", "", "comma-separated faultline binaries to compare, full collection and no-change rerun only")
	warm := flag.Bool("warm", true, "with -compare, warm the go build cache with one unmeasured run of each side first")
	flag.Parse()
	dirs := flag.Args()
	for _, mod := range strings.Split(*modules, ",") {
		if mod == "" {
			continue
		}
		dir, err := fetch(mod)
		if err != nil {
			fail(err)
		}
		dirs = append(dirs, dir)
	}
	if len(dirs) == 0 {
		fail(fmt.Errorf("no subjects: give module directories or -modules"))
	}
	if *compare != "" {
		bins := strings.Split(*compare, ",")
		fmt.Println("| subject | leaf tests | go test -count=1 -cover | CPU | faultline | full | ratio | CPU | ratio | no change | ratio | CPU | ratio |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, dir := range dirs {
			if err := compareBinaries(dir, bins, *runs, *warm); err != nil {
				fail(fmt.Errorf("%s: %w", dir, err))
			}
		}
		return
	}
	fmt.Println("| subject | leaf tests | go test -count=1 -cover | faultline, full | ratio | full with edges | ratio | edges on/off | no change | ratio | one-line edit | ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, dir := range dirs {
		if err := measure(dir, *faultline, *runs); err != nil {
			fail(fmt.Errorf("%s: %w", dir, err))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "speed:", err)
	os.Exit(1)
}

// fetch copies a module from the module cache into a writable directory.
func fetch(mod string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", mod, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", err
	}
	dst := filepath.Join(os.TempDir(), "faultline-speed", strings.NewReplacer("/", "_", "@", "_").Replace(mod))
	os.RemoveAll(dst)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if err := exec.Command("cp", "-r", info.Dir, dst).Run(); err != nil {
		return "", fmt.Errorf("copying %s: %w", mod, err)
	}
	if err := exec.Command("chmod", "-R", "u+w", dst).Run(); err != nil {
		return "", err
	}
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go mod download in %s: %v\n%s", dst, err, out)
	}
	return dst, nil
}

var summary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed`)

func measure(dir, faultline string, runs int) error {
	editFile, err := pickEditFile(dir)
	if err != nil {
		return err
	}
	original, err := os.ReadFile(editFile)
	if err != nil {
		return err
	}
	defer os.WriteFile(editFile, original, 0o644)
	cache, err := os.MkdirTemp("", "faultline-speed-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	plain := func() (time.Duration, string, error) { return plainTests(dir) }
	collect := func(store string) (time.Duration, string, error) {
		return timed(dir, []string{"FAULTLINE_CACHE=" + store}, faultline, "test", "./...")
	}
	collectEdges := func(store string) (time.Duration, string, error) {
		return timed(dir, []string{"FAULTLINE_CACHE=" + store}, faultline, "test", "-edges", "./...")
	}
	// Warm the build cache for both sides.
	if _, _, err := plain(); err != nil {
		return err
	}
	if _, _, err := collect(filepath.Join(cache, "warm")); err != nil {
		return err
	}
	if _, _, err := collectEdges(filepath.Join(cache, "warm-edges")); err != nil {
		return err
	}
	var tPlain, tFull, tEdges, tSame, tEdit []time.Duration
	tests := ""
	for i := 0; i < runs; i++ {
		d, _, err := plain()
		if err != nil {
			return err
		}
		tPlain = append(tPlain, d)
		store := filepath.Join(cache, fmt.Sprint("round", i))
		d, out, err := collect(store)
		if err != nil {
			return err
		}
		tFull = append(tFull, d)
		if m := summary.FindStringSubmatch(out); m != nil {
			tests = fmt.Sprintf("%s pass, %s fail", m[1], m[2])
		}
		d, _, err = collectEdges(filepath.Join(cache, fmt.Sprint("edges", i)))
		if err != nil {
			return err
		}
		tEdges = append(tEdges, d)
		d, _, err = collect(store)
		if err != nil {
			return err
		}
		tSame = append(tSame, d)
		edited := append(append([]byte{}, original...), []byte(fmt.Sprintf("\n// edit %d\n", i))...)
		if err := os.WriteFile(editFile, edited, 0o644); err != nil {
			return err
		}
		d, _, err = collect(store)
		if err != nil {
			return err
		}
		tEdit = append(tEdit, d)
		if err := os.WriteFile(editFile, original, 0o644); err != nil {
			return err
		}
	}
	p, f, fe, s, e := median(tPlain), median(tFull), median(tEdges), median(tSame), median(tEdit)
	// Edge counting's cost: the median of each round's ratio, the two
	// collections having run back to back.
	var paired []time.Duration
	for i := range tFull {
		paired = append(paired, time.Duration(float64(time.Second)*tEdges[i].Seconds()/tFull[i].Seconds()))
	}
	rel, _ := filepath.Rel(dir, editFile)
	fmt.Printf("| %s (edit: %s) | %s | %s | %s | %.2f | %s | %.2f | %.2f | %s | %.2f | %s | %.2f |\n", filepath.Base(dir), rel, tests,
		round(p), round(f), f.Seconds()/p.Seconds(), round(fe), fe.Seconds()/p.Seconds(), median(paired).Seconds(),
		round(s), s.Seconds()/p.Seconds(), round(e), e.Seconds()/p.Seconds())
	return nil
}

// compareBinaries measures several faultline binaries against the plain
// tests in one run: each round runs the plain tests, then each binary's
// full collection into an empty store and its rerun with no change.
func compareBinaries(dir string, bins []string, runs int, warm bool) error {
	cache, err := os.MkdirTemp("", "faultline-speed-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	plain := func() (run, string, error) {
		return timedCPU(dir, nil, "go", "test", "-count=1", "-cover", "./...")
	}
	collect := func(bin, store string) (run, string, error) {
		return timedCPU(dir, []string{"FAULTLINE_CACHE=" + store}, bin, "test", "./...")
	}
	for k, bin := range bins {
		if !warm {
			break
		}
		if k == 0 {
			if _, _, err := plain(); err != nil {
				return err
			}
		}
		if _, _, err := collect(bin, filepath.Join(cache, fmt.Sprint("warm", k))); err != nil {
			return err
		}
	}
	var tPlain []run
	tFull := make([][]run, len(bins))
	tSame := make([][]run, len(bins))
	tests := ""
	for i := 0; i < runs; i++ {
		r, _, err := plain()
		if err != nil {
			return err
		}
		tPlain = append(tPlain, r)
		for k, bin := range bins {
			store := filepath.Join(cache, fmt.Sprint("round", i, "-", k))
			r, out, err := collect(bin, store)
			if err != nil {
				return err
			}
			tFull[k] = append(tFull[k], r)
			if m := summary.FindStringSubmatch(out); m != nil {
				tests = fmt.Sprintf("%s pass, %s fail", m[1], m[2])
			}
			if r, _, err = collect(bin, store); err != nil {
				return err
			}
			tSame[k] = append(tSame[k], r)
		}
	}
	p, pc := medians(tPlain)
	for k, bin := range bins {
		f, fc := medians(tFull[k])
		s, sc := medians(tSame[k])
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %.2f | %s | %.2f | %s | %.2f | %s | %.2f |\n", filepath.Base(dir), tests, round(p), round(pc), filepath.Base(bin),
			round(f), f.Seconds()/p.Seconds(), round(fc), fc.Seconds()/pc.Seconds(),
			round(s), s.Seconds()/p.Seconds(), round(sc), sc.Seconds()/pc.Seconds())
	}
	return nil
}

// medians returns the median wall time and the median CPU of runs.
func medians(runs []run) (wall, cpu time.Duration) {
	var ws, cs []time.Duration
	for _, r := range runs {
		ws, cs = append(ws, r.wall), append(cs, r.cpu)
	}
	return median(ws), median(cs)
}

// pickEditFile returns the first non-test Go file of the module's root
// package: its tests, and those of every package importing it, rerun.
func pickEditFile(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			return f, nil
		}
	}
	return "", fmt.Errorf("no Go file in the root package of %s", dir)
}

// plainTests runs the baseline, go test -count=1 -cover ./..., in dir.
func plainTests(dir string) (time.Duration, string, error) {
	return timed(dir, nil, "go", "test", "-count=1", "-cover", "./...")
}

// timed runs a command in dir; a test failure (exit 1) is not an error.
func timed(dir string, env []string, name string, args ...string) (time.Duration, string, error) {
	r, out, err := timedCPU(dir, env, name, args...)
	return r.wall, out, err
}

// run is one timed command: its wall time and the CPU (user and system)
// of its whole process tree, every process it started having been waited for.
type run struct{ wall, cpu time.Duration }

// timedCPU runs a command in dir as timed does and also returns its CPU.
func timedCPU(dir string, env []string, name string, args ...string) (run, string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return run{}, "", fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return run{wall: d, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, out.String(), nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func round(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }
