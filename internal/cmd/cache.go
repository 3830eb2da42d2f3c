package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/faultline-go/faultline/internal/filecache"
)

// cacheCommand shows faultline's file cache (its directory, its size by
// kind and its bound) or, with -clean, removes it, or with -older only the
// entries unused for longer than a duration.
type cacheCommand struct {
	clean bool
	older time.Duration
}

func (*cacheCommand) Name() string  { return "cache" }
func (*cacheCommand) Usage() string { return "[-clean [-older DURATION]]" }
func (*cacheCommand) ShortHelp() string {
	return "show faultline's cache (size by kind, bound) or clean it"
}

func (c *cacheCommand) SetFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.clean, "clean", false, "remove the cache, and the per-module caches of earlier versions")
	fs.DurationVar(&c.older, "older", 0, "with -clean: remove only the entries unused for longer than this (e.g. 720h)")
}

// DetailedHelp gives a usage line for each of cache's three forms.
func (*cacheCommand) DetailedHelp(fs *flag.FlagSet) {
	fmt.Fprintln(fs.Output(), `usage: faultline cache                      show the cache: directory, size by kind, bound
       faultline cache -clean               remove the cache
       faultline cache -clean -older 720h   remove the entries unused for 30 days

The cache keeps what faultline derives from a module's code (analyses,
SAT-TAR cores, suggestions, bisection verdicts, instrumented sources, test
binaries) under content keys. It lives under $FAULTLINE_CACHE (default
~/.cache/faultline) and is kept under $FAULTLINE_CACHE_MAX (default 1GiB)
by removing the entries used longest ago. The spectrum stores beside it
are not part of it.

flags:`)
	fs.PrintDefaults()
}

func (c *cacheCommand) Run(ctx context.Context, args ...string) error {
	if len(args) > 0 {
		return usagef("takes no arguments")
	}
	if c.older < 0 || (c.older > 0 && !c.clean) {
		return usagef("-older takes a positive duration and goes with -clean")
	}
	root, err := filecache.Root("")
	if err != nil {
		return err
	}
	bound, err := filecache.Bound()
	if err != nil {
		return err
	}
	if c.clean && c.older == 0 {
		if err := filecache.Clean(root); err != nil {
			return err
		}
		fmt.Printf("removed %s\n", filecache.Dir(root))
		return nil
	}
	cache, err := filecache.Open(root, bound)
	if err != nil {
		return err
	}
	if c.clean {
		freed := cache.RemoveUnused(c.older)
		fmt.Printf("removed %s of entries unused for %s\n", sizeString(freed), c.older)
		return nil
	}
	showCache(os.Stdout, cache, filecache.Legacy(root))
	return nil
}

// showCache writes the cache's directory, bound and size by kind, and the
// old per-module caches still on disk.
func showCache(w io.Writer, c *filecache.Cache, legacy []string) {
	fmt.Fprintf(w, "cache: %s\nbound: %s (%s)\n", c.Dir(), sizeString(c.BoundBytes()), filecache.BoundEnv)
	var files int
	var total int64
	for _, u := range c.Usage() {
		fmt.Fprintf(w, "  %-14s %6d files %10s\n", u.Kind, u.Files, sizeString(u.Bytes))
		files += u.Files
		total += u.Bytes
	}
	fmt.Fprintf(w, "  %-14s %6d files %10s\n", "total", files, sizeString(total))
	if len(legacy) > 0 {
		var old int64
		for _, dir := range legacy {
			filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					old += info.Size()
				}
				return nil
			})
		}
		fmt.Fprintf(w, "caches of an earlier faultline: %d directories, %s (faultline cache -clean removes them)\n", len(legacy), sizeString(old))
	}
}

// sizeString writes a byte count in the largest binary unit it fills.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
