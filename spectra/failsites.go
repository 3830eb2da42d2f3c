package spectra

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var (
	// "    file_test.go:12: message", as testing prints t.Error and friends.
	reportLine = regexp.MustCompile(`(?m)^\s+([^\s:]+\.go):(\d+): `)
	// "\t/abs/path/file.go:123 +0x1d", a frame of a goroutine trace.
	traceLine = regexp.MustCompile(`(?m)^\t(\S+\.go):(\d+)`)
)

// FailSites returns where a failing test's output says it failed: the
// lines of its t.Error and friends, or, for a panic or a timeout, the
// innermost frame inside the module of each goroutine; pkgDir is the
// directory of the test's package, root the module's.
func FailSites(v Verdict, output, pkgDir, root string) []Site {
	if v == Panic || v == Timeout {
		return panicSites(output, root)
	}
	return reportSites(output, pkgDir, root)
}

// reportSites returns where a failing test reported its failure.
func reportSites(output, pkgDir, root string) []Site {
	var sites []Site
	for _, m := range reportLine.FindAllStringSubmatch(output, -1) {
		line, _ := strconv.Atoi(m[2])
		if rel, ok := relToRoot(filepath.Join(pkgDir, m[1]), root); ok {
			sites = appendSite(sites, Site{rel, line})
		}
	}
	return sites
}

// panicSites returns the innermost frame inside the module of each
// goroutine trace in the output, skipping faultline's own runtime.
func panicSites(output, root string) []Site {
	var sites []Site
	for _, block := range strings.Split(output, "\ngoroutine ") {
		sites = appendModuleFrames(sites, block, root, true)
	}
	return sites
}

// appendModuleFrames appends to sites the frames inside the module of one
// goroutine trace, innermost first and each site once, skipping
// faultline's own runtime; with innermost, only the first such frame
// (even when sites holds it already).
func appendModuleFrames(sites []Site, trace, root string, innermost bool) []Site {
	for _, m := range traceLine.FindAllStringSubmatch(trace, -1) {
		if strings.Contains(m[1], "/internal/faultlinert/") {
			continue
		}
		if rel, ok := relToRoot(m[1], root); ok {
			line, _ := strconv.Atoi(m[2])
			sites = appendSite(sites, Site{rel, line})
			if innermost {
				break
			}
		}
	}
	return sites
}

func appendSite(sites []Site, s Site) []Site {
	for _, x := range sites {
		if x == s {
			return sites
		}
	}
	return append(sites, s)
}

func relToRoot(path, root string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// StackSites returns the frames inside the module of the first goroutine
// trace in a test's output (the goroutine that panicked, or the test's own
// when it timed out), innermost first, skipping faultline's own runtime.
func StackSites(output, root string) []Site {
	_, trace, ok := strings.Cut(output, "\ngoroutine ")
	if !ok {
		return nil
	}
	trace, _, _ = strings.Cut(trace, "\ngoroutine ")
	return appendModuleFrames(nil, trace, root, false)
}
