//go:build linux

// Command hostile runs faultline rank on modules whose tests are hostile or
// merely sloppy (a detached child holding the output, unbounded
// allocation, huge unterminated output, a hang, crashes, a table of
// panics) and prints a markdown table of each run's wall time, exit code
// and peak memory.
//
//	go run ./bench/hostile -faultline BIN
//
// Every run is bounded by -timeout: a run that hits it is killed with its
// whole process tree and reported as such. Peak memory is given two ways:
// the largest single process (wait4's ru_maxrss over faultline and the
// descendants it waited for) and the resident memory of faultline's whole
// process tree, summed, sampled every 100 ms from /proc.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/tools/txtar"
)

func main() {
	faultline := flag.String("faultline", "", "path of the faultline binary (required)")
	timeout := flag.Duration("timeout", 3*time.Minute, "bound on each run; a run past it is killed with its process tree")
	allocGiB := flag.Int("alloc-gib", 6, "how far the allocating test allocates")
	only := flag.String("cases", "", "comma-separated cases to run (default all)")
	keep := flag.Bool("keep", false, "keep the modules and stores")
	flag.Parse()
	if *faultline == "" {
		fail(fmt.Errorf("-faultline is required"))
	}
	bin, err := filepath.Abs(*faultline)
	if err != nil {
		fail(err)
	}
	root, err := os.MkdirTemp("", "hostile-")
	if err != nil {
		fail(err)
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "hostile: keeping", root)
	} else {
		defer os.RemoveAll(root)
	}
	fmt.Println("| case | what the tests do | go test ./... | faultline rank | exit | failing: go test / rank | largest process | process tree |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, c := range cases(*allocGiB) {
		if *only != "" && !strings.Contains(","+*only+",", ","+c.name+",") {
			continue
		}
		row, err := measure(root, bin, c, *timeout)
		if err != nil {
			fail(fmt.Errorf("%s: %w", c.name, err))
		}
		fmt.Println(row)
	}
}

// measure writes one module, runs go test and faultline rank on it and
// returns the table row.
func measure(root, bin string, c hostileCase, timeout time.Duration) (string, error) {
	dir := filepath.Join(root, c.name)
	if err := writeArchive(dir, c.module); err != nil {
		return "", err
	}
	pids := filepath.Join(root, c.name+".pids")
	env := []string{"GOWORK=off", "GOTOOLCHAIN=local", "HOSTILE_PIDS=" + pids, "FAULTLINE_CACHE=" + filepath.Join(root, c.name+".store")}
	defer killRecorded(pids, dir)
	goTest, err := run(dir, env, timeout, "go", "test", "-count=1", "-timeout=20s", "./...")
	if err != nil {
		return "", err
	}
	rank, err := run(dir, env, timeout, bin, "rank", "-timeout=10s", "./...")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "hostile: %s: faultline rank's last output:\n%s\n", c.name, tail(rank.output, 1500))
	exit := fmt.Sprint(rank.exitCode)
	if rank.timedOut {
		exit = "killed"
	}
	failing := "?"
	if m := rankSummary.FindSubmatch(rank.output); m != nil {
		failing = string(m[1])
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %d / %s | %d MB | %d MB |", c.name, c.what, goTest.wall(), rank.wall(), exit,
		strings.Count(string(goTest.output), "--- FAIL:"), failing, rank.maxRSS>>20, rank.treeRSS>>20), nil
}

// rankSummary is the first line of rank's text output.
var rankSummary = regexp.MustCompile(`(?m)^(\d+) failing and \d+ passing tests`)

func writeArchive(dir, archive string) error {
	for _, f := range txtar.Parse([]byte(archive)).Files {
		path := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hostile:", err)
	os.Exit(1)
}
