//go:build cgo

// Command solver measures MCS enumeration time of each algorithm of
// faultline/solver/mcs on the same instances: random bit-vector clause
// sets and chains of assignments and branches shaped like the program
// formulas of fault localisation (the AgxFaults foo example, lengthened).
// It prints a Markdown table of median CPU times and ratios to the last
// algorithm listed (Z3 Optimize by default).
//
//	go run ./bench/solver -reps 5
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// instance adds its constraints to an enumerator; incremental instances
// do so in two steps with an enumeration in between.
type instance struct {
	name    string
	maxSize int
	steps   int
	build   func(ctx *z3.Context, e *mcs.Enumerator[int], step int) error
}

func main() {
	reps := flag.Int("reps", 5, "repetitions per instance and algorithm")
	budget := flag.Duration("budget", 60*time.Second, "time budget per enumeration")
	only := flag.String("only", "", "run only instances whose name contains this")
	algsFlag := flag.String("algs", "hitting-set,levels,hitting-set/ALL,levels/ALL,optimize",
		"configurations to run: algorithm[/logic], the last is the ratio base")
	flag.Parse()
	algs, err := parseAlgorithms(*algsFlag)
	if err != nil {
		log.Fatal(err)
	}
	var rows []string
	for _, inst := range instances() {
		if !strings.Contains(inst.name, *only) {
			continue
		}
		medians := map[string]time.Duration{}
		var counts []string
		for _, alg := range algs {
			var times []time.Duration
			var found []string
			for range *reps {
				d, sets, err := measure(inst, alg.opts, *budget)
				if errors.Is(err, mcs.ErrBudgetExhausted) {
					times = nil // reported as over budget
					break
				}
				if err != nil {
					log.Fatalf("%s/%v: %v", inst.name, alg, err)
				}
				times = append(times, d)
				found = sets
			}
			if times != nil {
				medians[alg.name] = median(times)
				counts = append(counts, strings.Join(found, ";"))
			}
		}
		agree, n := "yes", 0
		for i, c := range counts {
			if c != counts[0] {
				agree = "NO"
			}
			if i == 0 && c != "" {
				n = len(strings.Split(c, ";"))
			}
		}
		base, baseOK := medians[algs[len(algs)-1].name]
		row := fmt.Sprintf("| %s | %d | %s |", inst.name, n, agree)
		for _, alg := range algs {
			d, ok := medians[alg.name]
			switch {
			case !ok:
				row += fmt.Sprintf(" > %v |", *budget)
			case !baseOK:
				row += fmt.Sprintf(" %.1f |", float64(d.Microseconds())/1000)
			default:
				row += fmt.Sprintf(" %.1f (%.2f×) |", float64(d.Microseconds())/1000, float64(d)/float64(base))
			}
		}
		rows = append(rows, row)
		fmt.Fprintln(os.Stderr, row)
	}
	fmt.Printf("z3 %s, %d repetitions, median CPU ms per full enumeration (ratio to %s)\n\n", z3.Version(), *reps, algs[len(algs)-1].name)
	header, rule := "| instance | MCSs | same sets |", "|---|---|---|"
	for _, alg := range algs {
		header += " " + alg.name + " |"
		rule += "---|"
	}
	fmt.Println(header)
	fmt.Println(rule)
	for _, r := range rows {
		fmt.Println(r)
	}
}

// measure times one enumeration from an empty context to the last MCS and
// returns the sets found (sorted, canonical) for cross-checking.
func measure(inst instance, opts mcs.Options, budget time.Duration) (time.Duration, []string, error) {
	ctx, err := z3.NewContext(z3.Config{})
	if err != nil {
		return 0, nil, err
	}
	defer ctx.Close()
	start := cpuTime()
	e, err := mcs.New[int](ctx, opts)
	if err != nil {
		return 0, nil, err
	}
	var sets []string
	for step := range inst.steps {
		if err := inst.build(ctx, e, step); err != nil {
			return 0, nil, err
		}
		sets = sets[:0]
		for c, err := range e.Enumerate(context.Background(), mcs.Bounds{MaxSize: inst.maxSize, Budget: budget}) {
			if err != nil {
				return 0, nil, err
			}
			sets = append(sets, fmt.Sprint(c.Soft))
		}
	}
	d := cpuTime() - start
	sort.Strings(sets)
	return d, sets, nil
}

// config is one enumerator set-up under test.
type config struct {
	name string
	opts mcs.Options
}

// parseAlgorithms reads "hitting-set,levels/ALL,...": an algorithm name
// and optionally a solver logic (default: automatic).
func parseAlgorithms(list string) ([]config, error) {
	var out []config
	for _, name := range strings.Split(list, ",") {
		algName, logic, _ := strings.Cut(name, "/")
		found := false
		for _, a := range []mcs.Algorithm{mcs.HittingSet, mcs.Levels, mcs.OptimizeBlocking} {
			if a.String() == algName {
				out, found = append(out, config{name: name, opts: mcs.Options{Algorithm: a, Logic: logic}}), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown algorithm %q", algName)
		}
	}
	return out, nil
}

// cpuTime is the process's user plus system CPU time. The benchmark
// measures CPU rather than wall-clock time because the machines it runs on
// are shared; the solver is single-threaded, so the two agree when idle.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func instances() []instance {
	var out []instance
	for _, n := range []int{12, 24, 48} {
		out = append(out, chain(n, 3, 1), chain(n, 3, 2))
	}
	for seed := range uint64(3) {
		out = append(out, random(seed, 20, 3, 3), random(seed+10, 40, 4, 3))
	}
	return out
}

// chain is a straight-line program with a branch every third statement:
//
//	v = x; for i: if i%3 == 2 { if v > t_i { v = 2*v } else { v = v - 1 } } else { v = v + c_i }
//
// over Go int32, one ab literal per statement, phis hard, the input fixed
// and the output asserted to the value of the program with one constant
// changed (the fault). With steps = 2 the second half of the program is
// added after a first enumeration, as angelic refinement does.
func chain(n, maxSize, steps int) instance {
	name := fmt.Sprintf("chain n=%d k<=%d", n, maxSize)
	if steps == 2 {
		name += " incremental"
	}
	return instance{name: name, maxSize: maxSize, steps: steps, build: func(ctx *z3.Context, e *mcs.Enumerator[int], step int) error {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		bv := func(v int64) z3.BV { return ctx.BVInt(v, 32) }
		type stmt struct{ c, t int32 }
		prog := make([]stmt, n)
		for i := range prog {
			prog[i] = stmt{c: int32(rng.IntN(20)) - 5, t: int32(rng.IntN(60))}
		}
		run := func(fault int) int32 {
			v := int32(7)
			for i, s := range prog {
				c := s.c
				if i == fault {
					c++
				}
				switch {
				case i%3 != 2:
					v += c
				case v > s.t:
					v *= 2
				default:
					v--
				}
			}
			return v
		}
		want := run(n / 2)
		hard := []z3.Bool{}
		v := ctx.BVConst("v0", 32)
		if step == 0 {
			hard = append(hard, v.Eq(bv(7)))
		}
		lo, hi := 0, n
		if steps == 2 {
			lo, hi = step*n/2, (step+1)*n/2
		}
		// Each step re-derives the SSA names of the values it connects to.
		v = ctx.BVConst(fmt.Sprintf("v%d", lo), 32)
		soft := func(body z3.Bool) error {
			ab := ctx.FreshBool("ab")
			hard = append(hard, ctx.Or(ab, body))
			_, err := e.AddSoft(e.NumSoft(), ab.Not())
			return err
		}
		for i := lo; i < hi; i++ {
			next := ctx.BVConst(fmt.Sprintf("v%d", i+1), 32)
			if i%3 != 2 {
				if err := soft(next.Eq(v.Add(bv(int64(prog[i].c))))); err != nil {
					return err
				}
			} else {
				g := ctx.FreshBool("g")
				thenV, elseV := ctx.FreshConst("t", ctx.BVSort(32)).AsBV(), ctx.FreshConst("e", ctx.BVSort(32)).AsBV()
				if err := soft(g.Iff(bv(int64(prog[i].t)).SLT(v))); err != nil {
					return err
				}
				if err := soft(thenV.Eq(v.Mul(bv(2)))); err != nil {
					return err
				}
				if err := soft(elseV.Eq(v.Sub(bv(1)))); err != nil {
					return err
				}
				hard = append(hard, g.Implies(next.Eq(thenV)), g.Not().Implies(next.Eq(elseV)))
			}
			v = next
		}
		if hi == n {
			hard = append(hard, v.Eq(bv(int64(want))))
		}
		return e.AddHard(hard...)
	}}
}

// random is a random clause set over 16-bit variables: nVars variables,
// nSoft soft atoms and nSoft/5 hard clauses of two atoms. The hard clauses
// hold under a hidden assignment, so they are consistent, and most soft
// atoms do too, so that small MCSs exist.
func random(seed uint64, nSoft, nVars, maxSize int) instance {
	return instance{name: fmt.Sprintf("random soft=%d vars=%d k<=%d #%d", nSoft, nVars, maxSize, seed), maxSize: maxSize, steps: 1,
		build: func(ctx *z3.Context, e *mcs.Enumerator[int], _ int) error {
			rng := rand.New(rand.NewPCG(seed, 2))
			vars := make([]z3.BV, nVars)
			hidden := make([]uint16, nVars)
			for i := range vars {
				vars[i] = ctx.BVConst(fmt.Sprintf("x%d", i), 16)
				hidden[i] = uint16(rng.IntN(1 << 16))
			}
			num := func(v uint16) z3.BV { return ctx.BVUint(uint64(v), 16) }
			// atom returns a random constraint and its value under hidden.
			atom := func() (z3.Bool, bool) {
				i, j := rng.IntN(nVars), rng.IntN(nVars)
				x, y, hx, hy := vars[i], vars[j], hidden[i], hidden[j]
				c := uint16(rng.IntN(1 << 16))
				if rng.IntN(2) == 0 { // near the hidden values, so atoms often hold
					c = hx + hy + uint16(rng.IntN(3))
				}
				switch rng.IntN(5) {
				case 0:
					return x.Eq(num(c - hy)), hx == c-hy
				case 1:
					return x.ULT(y), hx < hy
				case 2:
					return x.Add(y).Eq(num(c)), hx+hy == c
				case 3:
					return x.Mul(num(3)).Add(y).ULE(num(c)), hx*3+hy <= c
				default:
					m := uint16(rng.IntN(1 << 16))
					return x.And(num(m)).Eq(num(c & m)), hx&m == c&m
				}
			}
			for range nSoft / 5 {
				a, va := atom()
				b, vb := atom()
				for !va && !vb {
					b, vb = atom()
				}
				if err := e.AddHard(ctx.Or(a, b)); err != nil {
					return err
				}
			}
			for i := range nSoft {
				a, holds := atom()
				for mustHold := rng.IntN(20) != 0; mustHold && !holds; { // 19 in 20 hold: small MCSs
					a, holds = atom()
				}
				if _, err := e.AddSoft(i, a); err != nil {
					return err
				}
			}
			return nil
		}}
}
