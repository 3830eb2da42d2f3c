// Command rank measures the ranking pipeline of faultline/spectra/rank on a
// synthetic spectrum matrix: counting the matrix (CountMatrix), then scoring
// and ordering every element (Rank). It prints the median wall time of each phase
// and the median CPU time over several runs and checks that a planted fault ranks first.
//
//	go run ./bench/rank [-tests 10000] [-lines 50000] [-runs 9] [-formula ochiai]
package main

import (
	"flag"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/spectra/rank"
)

type config struct {
	tests, lines, runs int
	failingRate        float64 // fraction of failing tests
	formula            string
	seed               uint64
}

func main() {
	var c config
	flag.IntVar(&c.tests, "tests", 10000, "number of tests (matrix rows)")
	flag.IntVar(&c.lines, "lines", 50000, "number of lines (matrix columns)")
	flag.IntVar(&c.runs, "runs", 9, "timed repetitions; the median is reported")
	flag.Float64Var(&c.failingRate, "failing", 0.01, "fraction of failing tests")
	flag.StringVar(&c.formula, "formula", "ochiai", "formula to rank with")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed of the synthetic matrix")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench/rank:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.tests < 1 || c.lines < 100 || c.runs < 1 {
		return fmt.Errorf("need -tests ≥ 1, -lines ≥ 100, -runs ≥ 1")
	}
	f, err := rank.Lookup(c.formula)
	if err != nil {
		return err
	}
	start := time.Now()
	runs, fault := synthesize(c)
	hits := 0
	for _, r := range runs {
		hits += len(r.Hits)
	}
	fmt.Printf("matrix: %d tests × %d lines, %d failing, %d hits (%.1f%% density), built in %v\n",
		c.tests, c.lines, failing(runs), hits, 100*float64(hits)/float64(c.tests)/float64(c.lines), time.Since(start).Round(time.Millisecond))

	locs := locations(c.lines)
	var count, order, total, cpu []time.Duration
	var faultRank rank.Ranked
	for range c.runs {
		cpu0 := cpuTime()
		t0 := time.Now()
		counts, err := rank.CountMatrix(c.lines, runs)
		if err != nil {
			return err
		}
		t1 := time.Now()
		elems := make([]rank.Element, len(counts))
		for i, cnt := range counts {
			elems[i] = rank.Element{Counts: cnt, Loc: locs[i]}
		}
		ranked := rank.Rank(elems, f)
		t2 := time.Now()
		cpu = append(cpu, cpuTime()-cpu0)
		count, order, total = append(count, t1.Sub(t0)), append(order, t2.Sub(t1)), append(total, t2.Sub(t0))
		for _, r := range ranked {
			if r.Elem == fault {
				faultRank = r
			}
		}
	}
	fmt.Printf("formula %s, GOMAXPROCS %d, median of %d runs: CountMatrix %v, score+Rank %v, total %v (min %v, max %v); CPU time %v\n",
		f.Name(), runtime.GOMAXPROCS(0), c.runs, ms(median(count)), ms(median(order)), ms(median(total)), ms(slices.Min(total)), ms(slices.Max(total)), ms(median(cpu)))
	fmt.Printf("planted fault %s:%d: rank %d, tie group [%d,%d], score %.4f\n",
		locs[fault].File, locs[fault].Line, faultRank.Rank, faultRank.TieFirst, faultRank.TieLast, faultRank.Score)
	if faultRank.Rank != 1 {
		return fmt.Errorf("planted fault ranked %d, want 1", faultRank.Rank)
	}
	return nil
}

// synthesize builds a matrix shaped like real coverage: every test runs a
// little shared setup (0.5% of lines) and then a random 2–10% of the lines
// in runs of 1–8 (basic blocks). The planted fault is executed by every
// failing test and by 3% of the passing ones (coincidental correctness).
func synthesize(c config) (runs []rank.Run, fault int) {
	rng := rand.New(rand.NewPCG(c.seed, 0x5eed))
	fault = c.lines * 2 / 3
	setup := max(1, c.lines/200)
	set := make([]uint64, (c.lines+63)/64)
	runs = make([]rank.Run, c.tests)
	for t := range runs {
		clear(set)
		mark := func(i int) { set[i/64] |= 1 << (i % 64) }
		for i := range setup {
			mark(i)
		}
		density := 0.02 + 0.08*rng.Float64()
		const meanBlock = 4.5
		meanGap := meanBlock * (1 - density) / density
		for i := setup + int(rng.ExpFloat64()*meanGap); i < c.lines; i += int(rng.ExpFloat64() * meanGap) {
			for end := min(c.lines, i+1+rng.IntN(8)); i < end; i++ {
				mark(i)
			}
		}
		failing := rng.Float64() < c.failingRate
		if failing || rng.Float64() < 0.03 {
			mark(fault)
		} else {
			set[fault/64] &^= 1 << (fault % 64)
		}
		runs[t] = rank.Run{Failing: failing, Hits: members(set)}
	}
	return runs, fault
}

// members lists the set bits in increasing order.
func members(set []uint64) []int32 {
	n := 0
	for _, w := range set {
		n += bits.OnesCount64(w)
	}
	out := make([]int32, 0, n)
	for wi, w := range set {
		for w != 0 {
			out = append(out, int32(wi*64+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return out
}

// locations spreads the lines over files of 250 lines in 20 packages.
func locations(n int) []rank.Location {
	const perFile = 250
	locs := make([]rank.Location, n)
	for i := range locs {
		file := i / perFile
		locs[i] = rank.Location{File: fmt.Sprintf("pkg%02d/file%03d.go", file%20, file), Line: 1 + i%perFile}
	}
	return locs
}

func failing(runs []rank.Run) int {
	n := 0
	for _, r := range runs {
		if r.Failing {
			n++
		}
	}
	return n
}

// cpuTime is the user plus system CPU time the process has used: unlike
// wall time, it does not grow when other processes compete for the cores.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return time.Duration(math.Round(float64(s[len(s)/2-1]+s[len(s)/2]) / 2))
}
